package gateway_test

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/gateway"
)

// Without session keys a requestState is the round's bare id: it
// continues that round only for the caller and the request that began it,
// as a sealed one does. Another caller who learns the id (a log, a
// proxy) cannot answer someone else's question, and no caller can carry
// a round over to another tool or other arguments.
func TestBareRequestStateBound(t *testing.T) {
	cfg := demoServer(t, "demo", "--legacy", "--elicitation")
	a := startReplica(t, gateway.HTTPOptions{}, cfg)
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
	answers := map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "Mallory"}}}
	for _, tc := range []struct {
		name, token, tool string
		args              map[string]any
		want              string
	}{
		{"another caller", "bob-token", "demo__ask", map[string]any{}, "another caller"},
		{"other arguments", "ann-token", "demo__ask", map[string]any{"x": 1}, "another request"},
		{"another tool", "ann-token", "demo__echo", map[string]any{"text": "hi"}, "another request"},
	} {
		got := modernCall(t, a, tc.token, tc.tool, tc.args, state, answers)
		if e := errorOf(got); !strings.Contains(e, "requestState refused") || !strings.Contains(e, tc.want) {
			t.Errorf("%s: %v, want the requestState refused as %s", tc.name, got, tc.want)
		}
	}
	// The round is still Ann's to finish.
	ann := map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "Ann"}}}
	done := modernCall(t, a, "ann-token", "demo__ask", map[string]any{}, state, ann)
	if r, _ := done["result"].(map[string]any); r == nil || !strings.Contains(toJSON(r), "hello Ann") {
		t.Fatalf("Ann finishing her round: %v", done)
	}
}
