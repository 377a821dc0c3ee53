//go:build unix

package replicatest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/internal/seal"
	"github.com/switchboard-mcp/switchboard/internal/testkit/replicatest"
)

// roundCall posts one 2026-07-28 tools/call to url as the caller with
// token, with a round's state and answers when given, and returns the
// JSON-RPC response (the data of its event when the answer is a stream).
func roundCall(t *testing.T, url, token, tool, state string, answers map[string]any) map[string]any {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": map[string]any{}, "_meta": map[string]any{
		mcp.MetaKeyProtocolVersion:    next,
		mcp.MetaKeyClientInfo:         map[string]any{"name": "replicatest", "version": "1"},
		mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}},
	}}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = answers
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", next)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	text := string(data)
	for _, line := range strings.Split(text, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id"`) {
			text = d
		}
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(text), &msg); err != nil {
		t.Fatalf("tools/call %s at %s: %d %q: %v", tool, url, resp.StatusCode, data, err)
	}
	return msg
}

// refusal is a response's error message or error result's text.
func refusal(msg map[string]any) string {
	if e, ok := msg["error"].(map[string]any); ok {
		s, _ := e["message"].(string)
		return s
	}
	if res, ok := msg["result"].(map[string]any); ok && res["isError"] == true {
		b, _ := json.Marshal(res["content"])
		return string(b)
	}
	return ""
}

// TestRoundStateMovesAcrossReplicas: a 2026-07-28 call whose server asks
// a question (elicitation) gets an input-required result from replica A
// with a sealed requestState; replica B, sharing the key file, accepts
// the answer with that state and returns the call's result. B refuses
// the state tampered with, replayed by another caller (another bearer
// token), or expired, each saying why (SPEC F64).
func TestRoundStateMovesAcrossReplicas(t *testing.T) {
	c := replicatest.New(t, replicatest.Binary(t), nil)
	c.SetServer(t, "demo", map[string]any{
		"command": c.Bin,
		"args":    []string{"demo-server", "--name", "demo", "--legacy", "--elicitation"},
		"env":     map[string]string{replicatest.MarkEnv: c.Mark},
	})
	keys := keyFile(t, c.Dir)
	// A's round is left waiting for an answer that went to B; A's drain
	// at the test's end lets go of it (TestDrainLetsGoOfParkedRound).
	c.Start(t, 2, "--session-key-file", keys)
	a, b := c.Replicas[0], c.Replicas[1]

	first := roundCall(t, a.URL, "ann", "demo__ask", "", nil)
	res, _ := first["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	asks, _ := res["inputRequests"].(map[string]any)
	if state == "" || len(asks) != 1 {
		t.Fatalf("replica A answered no round with one question: %v", first)
	}
	answers := map[string]any{}
	for k := range asks {
		answers[k] = map[string]any{"action": "accept", "content": map[string]any{"name": "Ann"}}
	}

	raw, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil {
		t.Fatalf("requestState is not base64url: %v", err)
	}
	raw[len(raw)-2] ^= 1
	tampered := base64.RawURLEncoding.EncodeToString(raw)
	kr, err := seal.Load(keys)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("{}"))
	payload, _ := json.Marshal(map[string]string{"r": "x", "t": "demo__ask", "a": hex.EncodeToString(sum[:16])})
	ann := gateway.CallerOf(&http.Request{Header: http.Header{"Authorization": {"Bearer ann"}}})
	expired := kr.Seal("mrtr-state", ann, time.Now().Add(-time.Second), payload)
	for _, tc := range []struct{ name, token, state, want string }{
		{"tampered", "ann", tampered, "tampered"},
		{"replayed by another caller", "bob", state, "another caller"},
		{"expired", "ann", expired, "expired"},
	} {
		got := refusal(roundCall(t, b.URL, tc.token, "demo__ask", tc.state, answers))
		if !strings.Contains(got, "requestState refused") || !strings.Contains(got, tc.want) {
			t.Errorf("B, a state %s: %q, want a refusal saying %q", tc.name, got, tc.want)
		}
	}
	done := roundCall(t, b.URL, "ann", "demo__ask", state, answers)
	if r, _ := done["result"].(map[string]any); r == nil || r["isError"] == true || !strings.Contains(toJSON(r), "hello Ann") {
		t.Fatalf("B, the state A minted, answered: %v", done)
	}
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }
