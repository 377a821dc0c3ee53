//go:build unix

package replicatest_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit/replicatest"
)

// drainTimeout is longer than replicatest.ExitBound: a replica whose
// drain waited for it would fail Wait.
const drainTimeout = 2 * replicatest.ExitBound

// TestDrainLetsGoOfParkedRound: a 2026-07-28 call whose server asks a
// question is parked on replica A, waiting for the client's answer. A,
// sharing the session key with B, gets SIGTERM: it does not wait for
// that round (the client holds its next step, and can take it on B), so
// it exits 0 at once, not after --drain-timeout. The client's answer,
// with the requestState A gave it, then finishes the call on B.
func TestDrainLetsGoOfParkedRound(t *testing.T) {
	c := replicatest.New(t, replicatest.Binary(t), nil)
	c.SetServer(t, "demo", map[string]any{
		"command": c.Bin,
		"args":    []string{"demo-server", "--name", "demo", "--legacy", "--elicitation"},
		"env":     map[string]string{replicatest.MarkEnv: c.Mark},
	})
	c.Start(t, 2, "--session-key-file", keyFile(t, c.Dir), "--drain-timeout", drainTimeout.String())
	a, b := c.Replicas[0], c.Replicas[1]

	first := roundCall(t, a.URL, "ann", "demo__ask", "", nil)
	res, _ := first["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	asks, _ := res["inputRequests"].(map[string]any)
	if state == "" || len(asks) != 1 {
		t.Fatalf("replica A answered no round with one question: %v", first)
	}

	termed := time.Now()
	a.Signal(t, syscall.SIGTERM)
	if err := a.Wait(t); err != nil {
		t.Fatalf("replica A after SIGTERM with a round parked: %v, want exit 0\n%s", err, a.Log())
	}
	took := time.Since(termed)
	if took >= drainTimeout {
		t.Fatalf("replica A took %v to exit: its drain waited for the parked round", took)
	}
	t.Logf("A exited %v after SIGTERM (--drain-timeout %v)", took.Round(time.Millisecond), drainTimeout)

	answers := map[string]any{}
	for k := range asks {
		answers[k] = map[string]any{"action": "accept", "content": map[string]any{"name": "Ann"}}
	}
	done := roundCall(t, b.URL, "ann", "demo__ask", state, answers)
	if r, _ := done["result"].(map[string]any); r == nil || r["isError"] == true || !strings.Contains(toJSON(r), "hello Ann") {
		t.Fatalf("B, the state A minted before its drain, answered: %v", done)
	}
}
