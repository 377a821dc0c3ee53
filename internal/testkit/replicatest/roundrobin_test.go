package replicatest_test

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testkit/replicatest"
)

// TestRoundRobinWithoutStickiness: behind docs/deploy/haproxy-roundrobin.cfg
// (every request to the next replica), 2026-07-28 clients are served
// whichever replica a request reaches. Without a shared session key and
// store, a 2025-11-25 session fails as that file and the README say: its
// second request reaches a replica that never saw it, which answers 404,
// and the client cannot connect.
func TestRoundRobinWithoutStickiness(t *testing.T) {
	c := replicatest.New(t, replicatest.Binary(t), nil)
	c.SetServer(t, "demo", c.Demo("demo"))
	c.Start(t, 3)
	h := c.StartHAProxy(t, "haproxy-roundrobin.cfg")
	replicaOf := map[string]string{}
	for _, r := range c.Replicas {
		replicaOf[callText(t, connect(t, r.URL, next, nil), "demo__pid", nil)] = r.Name
	}

	s := connect(t, h.URL, next, nil)
	served := map[string]bool{}
	for range 6 {
		served[replicaOf[callText(t, s, "demo__pid", nil)]] = true
	}
	if len(served) != 3 {
		t.Errorf("one 2026-07-28 client's six calls were served by %v, want every replica", served)
	}

	ls, err := dial(t.Context(), h.URL, legacy, nil)
	if err == nil {
		defer ls.Close()
		_, err = ls.ListTools(t.Context(), nil)
	}
	t.Logf("a legacy session, round-robin, no key or store: %v", err)
	if err == nil || !strings.Contains(err.Error(), "session not found") {
		t.Fatalf("a legacy session round-robin across replicas that share no session key or store: %v; the docs say it fails with \"session not found\"", err)
	}
}
