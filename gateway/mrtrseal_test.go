package gateway_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/internal/seal"
)

// A requestState minted on A is accepted on B, which holds no round for
// it: B runs the call again upstream and answers the server's question
// from the client's inputResponses, so the client is asked once.
func TestSealedRequestStateAcrossReplicas(t *testing.T) {
	opts := gateway.HTTPOptions{SessionKeys: loadKeys(t, randomKey(t))}
	cfg := demoServer(t, "demo", "--legacy", "--elicitation")
	a, b := startReplica(t, opts, cfg), startReplica(t, opts, cfg)
	lb := &balancer{token: "ann-token"}
	lb.to.Store(a)
	var asked atomic.Int32
	c := mcp.NewClient(&mcp.Implementation{Name: "modern", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			lb.to.Store(b) // the answer goes to the other replica
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ann"}}, nil
		},
	})
	tr := &mcp.StreamableClientTransport{Endpoint: "http://balancer" + gateway.Path, HTTPClient: &http.Client{Transport: lb}}
	sess, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolModern})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__ask", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("call across replicas: %v %q", err, failure(res, err))
	}
	if got := textOf(res); got != "hello Ann" {
		t.Fatalf("result %q, want hello Ann", got)
	}
	if n := asked.Load(); n != 1 {
		t.Fatalf("the client was asked %d times, want once", n)
	}
	if rounds, _, _ := b.gw.InFlight(); rounds != 0 {
		t.Fatalf("B keeps %d rounds after the result", rounds)
	}
	if rounds, _, _ := a.gw.InFlight(); rounds != 1 {
		t.Fatalf("A holds %d rounds, want its own, unanswered: B must have run the call", rounds)
	}
}

// modernCall posts one tools/call of 2026-07-28 to a replica and returns
// the JSON-RPC response.
func modernCall(t *testing.T, r *replica, token, tool string, args map[string]any, state string, answers map[string]any) map[string]any {
	t.Helper()
	return modernCallAs(t, r.srv.URL, "Bearer "+token, tool, args, state, answers)
}

// modernCallAs is modernCall to the gateway at base with the
// Authorization header authz, as the client wrote it.
func modernCallAs(t *testing.T, base, authz, tool string, args map[string]any, state string, answers map[string]any) map[string]any {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{
		mcp.MetaKeyProtocolVersion:    config.ProtocolModern,
		mcp.MetaKeyClientInfo:         map[string]any{"name": "raw", "version": "1"},
		mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}},
	}}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = answers
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	req, _ := http.NewRequest(http.MethodPost, base+gateway.Path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", config.ProtocolModern)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	req.Header.Set("Authorization", authz)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	text := out.String()
	// An event stream: the response is the data of its message event.
	for _, line := range strings.Split(text, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id"`) {
			text = d
		}
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(text), &msg); err != nil {
		t.Fatalf("response %d %q: %v", resp.StatusCode, out.String(), err)
	}
	return msg
}

// errorOf is a JSON-RPC response's error message, or its tool error's
// text, or "".
func errorOf(msg map[string]any) string {
	if e, ok := msg["error"].(map[string]any); ok {
		return e["message"].(string)
	}
	if res, ok := msg["result"].(map[string]any); ok && res["isError"] == true {
		b, _ := json.Marshal(res["content"])
		return string(b)
	}
	return ""
}

// A sealed requestState is refused when tampered with, expired, replayed
// by another caller or for another request, each with its reason.
func TestSealedRequestStateRefusals(t *testing.T) {
	k := randomKey(t)
	opts := gateway.HTTPOptions{SessionKeys: loadKeys(t, k)}
	cfg := demoServer(t, "demo", "--legacy", "--elicitation")
	a, b := startReplica(t, opts, cfg), startReplica(t, opts, cfg)
	first := modernCall(t, a, "ann-token", "demo__ask", map[string]any{}, "", nil)
	res, _ := first["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	if state == "" {
		t.Fatalf("no requestState in %v", first)
	}
	var key string
	for k := range res["inputRequests"].(map[string]any) {
		key = k
	}
	answers := map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "Ann"}}}

	raw, _ := base64.RawURLEncoding.DecodeString(state)
	raw[len(raw)-2] ^= 1
	tampered := base64.RawURLEncoding.EncodeToString(raw)
	kr, _ := seal.New(k)
	sum := sha256.Sum256([]byte("{}"))
	payload, _ := json.Marshal(map[string]string{"r": "x", "t": "demo__ask", "a": hex.EncodeToString(sum[:16])})
	caller := gateway.CallerOf(&http.Request{Header: http.Header{"Authorization": {"Bearer ann-token"}}})
	expired := kr.Seal("mrtr-state", caller, time.Now().Add(-time.Second), payload)
	for _, tc := range []struct {
		name, token, tool, state string
		args                     map[string]any
		want                     string
	}{
		{"tampered", "ann-token", "demo__ask", tampered, map[string]any{}, "tampered"},
		{"expired", "ann-token", "demo__ask", expired, map[string]any{}, "expired"},
		{"another caller", "bob-token", "demo__ask", state, map[string]any{}, "another caller"},
		{"other arguments", "ann-token", "demo__ask", state, map[string]any{"x": 1}, "another request"},
		{"another tool", "ann-token", "demo__echo", state, map[string]any{}, "another request"},
		{"a session id", "ann-token", "demo__ask", kr.Seal("mcp-session", caller, time.Now().Add(time.Hour), payload), map[string]any{}, "tampered"},
	} {
		got := errorOf(modernCall(t, b, tc.token, tc.tool, tc.args, tc.state, answers))
		if !strings.Contains(got, "requestState refused") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want a refusal saying %q", tc.name, got, tc.want)
		}
	}
	// The genuine one is accepted on B (and A's round is left to idle).
	done := modernCall(t, b, "ann-token", "demo__ask", map[string]any{}, state, answers)
	if r, _ := done["result"].(map[string]any); r == nil || !strings.Contains(errorOf(done)+toJSON(r), "hello Ann") {
		t.Fatalf("genuine state on B: %v", done)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
