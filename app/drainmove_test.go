package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
)

const drainToken = "tok-drain-123456"

// post sends one JSON-RPC message to s's gateway with the headers given
// (and the token) and returns the status, the Retry-After header and
// the JSON-RPC response (the data of its event for a stream; nil when
// the body is not one).
func post(t *testing.T, s *served, header map[string]string, msg map[string]any) (int, string, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequest(http.MethodPost, s.url+gateway.Path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+drainToken)
	for k, v := range header {
		req.Header.Set(k, v)
	}
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
	var out map[string]any
	_ = json.Unmarshal([]byte(text), &out)
	return resp.StatusCode, resp.Header.Get("Retry-After"), out
}

// modernCall is a 2026-07-28 tools/call of tool, continuing a round when
// state is set.
func modernCall(t *testing.T, s *served, tool string, args map[string]any, state string, answers map[string]any) (int, string, map[string]any) {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{
		mcp.MetaKeyProtocolVersion:    config.ProtocolModern,
		mcp.MetaKeyClientInfo:         map[string]any{"name": "test", "version": "1"},
		mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}},
	}}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = answers
	}
	return post(t, s, map[string]string{"Mcp-Protocol-Version": config.ProtocolModern, "Mcp-Method": "tools/call", "Mcp-Name": tool},
		map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
}

// parkRound starts the demo's ask, which asks the client for a name, and
// returns the round's requestState and the answers to its question.
func parkRound(t *testing.T, s *served) (string, map[string]any) {
	t.Helper()
	_, _, msg := modernCall(t, s, "demo__ask", map[string]any{}, "", nil)
	res, _ := msg["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	asks, _ := res["inputRequests"].(map[string]any)
	if state == "" || len(asks) != 1 {
		t.Fatalf("ask answered no round with one question: %v", msg)
	}
	answers := map[string]any{}
	for k := range asks {
		answers[k] = map[string]any{"action": "accept", "content": map[string]any{"name": "Ann"}}
	}
	return state, answers
}

func greeted(msg map[string]any) bool {
	res, _ := msg["result"].(map[string]any)
	b, _ := json.Marshal(res)
	return res != nil && res["isError"] != true && strings.Contains(string(b), "hello Ann")
}

// TestDrainParkedRoundWithoutKeys: without session keys a round's
// requestState opens on this replica only, so a drain leaves a parked
// round its grace: the client's answer during the drain finishes the
// call (a continuation is not a new call, and is not answered 503), and
// the drain then ends clean. A round whose client does not come back is
// ended once the grace is over, and the drain ends clean too.
func TestDrainParkedRoundWithoutKeys(t *testing.T) {
	t.Run("answered within the grace", func(t *testing.T) {
		defer app.SetParkedGrace(time.Hour)()
		s := serveDemo(t, &app.Options{}, gateway.HTTPOptions{Token: drainToken}, "--legacy", "--elicitation")
		state, answers := parkRound(t, s)
		drained := make(chan error, 1)
		go func() { drained <- s.a.Drain(context.Background()) }()
		waitFor(t, "the drain to begin", s.a.Draining)
		if code, _, msg := modernCall(t, s, "demo__ask", map[string]any{}, state, answers); code != http.StatusOK || !greeted(msg) {
			t.Fatalf("the round's answer during the drain: %d %v, want the greeting", code, msg)
		}
		if err := <-drained; err != nil {
			t.Errorf("Drain: %v", err)
		}
	})
	t.Run("not answered", func(t *testing.T) {
		defer app.SetParkedGrace(time.Millisecond)()
		s := serveDemo(t, &app.Options{}, gateway.HTTPOptions{Token: drainToken}, "--legacy", "--elicitation")
		parkRound(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), eventBound)
		defer cancel()
		if err := s.a.Drain(ctx); err != nil {
			t.Errorf("Drain with a round parked past the grace: %v, want the round ended and a clean drain", err)
		}
	})
}
