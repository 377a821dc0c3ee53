package gateway_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/gateway"
)

// awaitRoundsGone polls until g holds no round and no round's upstream
// call: no event marks a round's end.
func awaitRoundsGone(t *testing.T, g *gateway.Gateway, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rounds, _, roundCallers := g.InFlight()
		if rounds == 0 && roundCallers == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d rounds, %d upstream calls of rounds; want none", what, rounds, roundCallers)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEndParkedRounds: EndParkedRounds ends a round parked on its
// client's input (its upstream call too), and a round that parks after
// it is ended as it parks; its client still gets the input-required
// result, and with session keys its answer finishes the call on another
// replica.
func TestEndParkedRounds(t *testing.T) {
	opts := gateway.HTTPOptions{SessionKeys: loadKeys(t, randomKey(t))}
	cfg := demoServer(t, "demo", "--legacy", "--elicitation")
	a, b := startReplica(t, opts, cfg), startReplica(t, opts, cfg)
	if !a.gw.RoundsMovable() {
		t.Fatal("RoundsMovable is false with session keys")
	}
	park := func() (string, map[string]any) {
		t.Helper()
		msg := modernCall(t, a, "ann-token", "demo__ask", map[string]any{}, "", nil)
		res, _ := msg["result"].(map[string]any)
		state, _ := res["requestState"].(string)
		asks, _ := res["inputRequests"].(map[string]any)
		if state == "" || len(asks) != 1 {
			t.Fatalf("A answered no round with one question: %v", msg)
		}
		answers := map[string]any{}
		for k := range asks {
			answers[k] = map[string]any{"action": "accept", "content": map[string]any{"name": "Ann"}}
		}
		return state, answers
	}

	park()
	if rounds, _, _ := a.gw.InFlight(); rounds != 1 {
		t.Fatalf("A holds %d rounds, want the one parked", rounds)
	}
	if n := a.gw.EndParkedRounds(); n != 1 {
		t.Fatalf("EndParkedRounds ended %d rounds, want 1", n)
	}
	awaitRoundsGone(t, a.gw, "after EndParkedRounds")

	state, answers := park()
	awaitRoundsGone(t, a.gw, "a round that parked after EndParkedRounds")
	done := modernCall(t, b, "ann-token", "demo__ask", map[string]any{}, state, answers)
	if r, _ := done["result"].(map[string]any); r == nil || r["isError"] == true || !strings.Contains(toJSON(r), "hello Ann") {
		t.Fatalf("B, with the state of a round A ended: %v", done)
	}
}
