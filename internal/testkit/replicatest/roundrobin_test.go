//go:build unix

package replicatest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit/redistest"
	"github.com/switchboard-mcp/switchboard/internal/testkit/replicatest"
)

// revokeBound bounds how long a session's end takes to reach every
// replica through the store's publish/subscribe.
const revokeBound = 5 * time.Second

// TestRoundRobinWithoutStickiness: behind docs/deploy/haproxy-roundrobin.cfg
// (every request to the next replica), 2026-07-28 clients are served by
// whichever replica a request reaches. A 2025-11-25 session works too
// when the replicas share a session key file (and a store, a real
// redis-server, for what else a session has): each request's replica
// rebuilds the session from its sealed id. Without one it fails as that
// file and the README say: its second request reaches a replica that
// never saw it, which answers 404, and the client cannot connect.
func TestRoundRobinWithoutStickiness(t *testing.T) {
	for _, tc := range []struct {
		name         string
		keyed, store bool
	}{
		{"no key, no store", false, false},
		{"shared key", true, false},
		{"shared key and store", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := replicatest.New(t, replicatest.Binary(t), nil)
			c.SetServer(t, "demo", c.Demo("demo"))
			var extra []string
			if tc.keyed {
				extra = append(extra, "--session-key-file", keyFile(t, c.Dir))
			}
			if tc.store {
				extra = append(extra, "--store", redistest.Start(t).URL)
			}
			c.Start(t, 3, extra...)
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

			ls, err := dialAs(t.Context(), h.URL, legacy, "ann")
			if !tc.keyed {
				if err == nil {
					ls.Close()
				}
				t.Logf("a legacy session, round-robin, no key: %v", err)
				if err == nil || !strings.Contains(err.Error(), "session not found") {
					t.Fatalf("a legacy session round-robin across replicas that share no session key: %v; the docs say it fails with \"session not found\"", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("a legacy session, round-robin, shared key: %v", err)
			}
			id := ls.ID()
			served = map[string]bool{}
			for range 6 {
				served[replicaOf[callText(t, ls, "demo__pid", nil)]] = true
			}
			if len(served) < 2 || ls.ID() != id {
				t.Errorf("one legacy session's six calls were served by %v (id kept: %v), want several replicas, one id", served, ls.ID() == id)
			}
			// The client ends its session (DELETE, to one replica). With
			// the store, every replica learns it (by the store's fan-out,
			// awaited under a bound); with the key alone, only the one
			// that got the DELETE does (README).
			ls.Close()
			ended := time.Now()
			var open []string
			for _, r := range c.Replicas {
				code, _ := rawList(t, r.URL, id, "ann")
				for tc.store && code == http.StatusOK && time.Since(ended) < revokeBound {
					select {
					case <-t.Context().Done():
					case <-time.After(20 * time.Millisecond): // the fan-out's arrival shows only in the answer
					}
					code, _ = rawList(t, r.URL, id, "ann")
				}
				if code == http.StatusOK {
					open = append(open, r.Name)
				}
			}
			switch {
			case tc.store && len(open) > 0:
				t.Errorf("the ended session still answers on %v %v after its DELETE, with a shared store", open, revokeBound)
			case !tc.store && len(open) == 0:
				t.Errorf("with no store, every replica learnt of the session's end: the README says only one does")
			}
			if tc.store {
				t.Logf("every replica refused the session %v after its DELETE", time.Since(ended).Round(time.Millisecond))
			}
			t.Logf("after DELETE, the session answers on %v", open)
		})
	}
}

// TestNginxDocsConfig: docs/deploy/nginx.conf in front of three
// replicas that share a session key file and a store (what that file
// says it needs): 2026-07-28 calls, whose hash key (the session header)
// is empty, spread over the replicas, and a 2025-11-25 session is served
// under its id.
func TestNginxDocsConfig(t *testing.T) {
	c := replicatest.New(t, replicatest.Binary(t), nil)
	c.SetServer(t, "demo", c.Demo("demo"))
	c.Start(t, 3, "--session-key-file", keyFile(t, c.Dir), "--store", redistest.Start(t).URL)
	n := c.StartNginx(t)
	replicaOf := map[string]string{}
	for _, r := range c.Replicas {
		replicaOf[callText(t, connect(t, r.URL, next, nil), "demo__pid", nil)] = r.Name
	}
	s := connect(t, n.URL, next, nil)
	served := map[string]bool{}
	for range 12 {
		served[replicaOf[callText(t, s, "demo__pid", nil)]] = true
	}
	if len(served) < 2 {
		t.Errorf("twelve 2026-07-28 calls through nginx were all served by %v", served)
	}
	ls, err := dialAs(t.Context(), n.URL, legacy, "ann")
	if err != nil {
		t.Fatalf("a legacy session through nginx: %v", err)
	}
	defer ls.Close()
	id := ls.ID()
	for range 3 {
		callText(t, ls, "demo__pid", nil)
	}
	if ls.ID() != id {
		t.Errorf("the legacy session's id changed through nginx")
	}
	t.Logf("through nginx: 2026-07-28 calls served by %d replicas; a legacy session's calls served", len(served))
}
