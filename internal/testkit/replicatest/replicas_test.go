//go:build unix

package replicatest_test

import (
	"context"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testkit/replicatest"
)

// awaitTools lists s's tools until the list holds every name of want,
// awaiting a list_changed between lists (a server may still be
// connecting), and returns the list.
func awaitTools(t *testing.T, s *mcp.ClientSession, changed *notes, want ...string) []*mcp.Tool {
	t.Helper()
	for {
		tools := listTools(t, s)
		have := names(tools)
		missing := false
		for _, w := range want {
			missing = missing || !slices.Contains(have, w)
		}
		if !missing {
			return tools
		}
		changed.await(t, "waiting for "+want[0])
	}
}

// TestReplicasListTheSameTools: replicas of one config list the same
// tools, with the same definitions, in the same order, in both eras
// (SPEC F64, consistency): a client balanced to any replica sees one
// server. Each replica runs its own copies of the servers.
func TestReplicasListTheSameTools(t *testing.T) {
	c := replicatest.New(t, replicatest.Binary(t), nil)
	c.SetServer(t, "demo", c.Demo("demo"))
	c.SetServer(t, "zeta", c.Demo("zeta"))
	c.SetServer(t, "count", c.Upstream(t, filepath.Join(c.Dir, "runs"), false))
	c.Start(t, 3)
	want := []string{"demo__echo", "zeta__echo", "count__work"}
	for _, era := range []string{legacy, next} {
		hashes := map[string][]string{}
		for _, r := range c.Replicas {
			changed := newNotes()
			s := connect(t, r.URL, era, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed.note() }})
			tools := awaitTools(t, s, changed, want...)
			h := hash(t, tools)
			hashes[h] = append(hashes[h], r.Name)
			t.Logf("%s %s: %d tools, sha256 %s", era, r.Name, len(tools), h)
		}
		if len(hashes) != 1 {
			t.Errorf("%s: the replicas list different tools: %v", era, hashes)
		}
	}
}

// TestConfigChangeReachesEveryReplica: an edit of the shared config file
// reaches clients on every replica as tools/list_changed (each replica
// watches the file): legacy sessions stuck to each of the three
// replicas, a 2026-07-28 client's listen stream, and the TypeScript
// SDK's client, all through HAProxy.
func TestConfigChangeReachesEveryReplica(t *testing.T) {
	c := replicatest.New(t, replicatest.Binary(t), nil)
	c.SetServer(t, "demo", c.Demo("demo"))
	c.Start(t, 3)
	h := c.StartHAProxy(t, "haproxy.cfg")

	// Which replica a session is on: each runs its own demo server, whose
	// pid tool says which process it is.
	replicaOf := map[string]string{}
	for _, r := range c.Replicas {
		replicaOf[callText(t, connect(t, r.URL, next, nil), "demo__pid", nil)] = r.Name
	}
	type client struct {
		s       *mcp.ClientSession
		changed *notes
		where   string
	}
	var clients []client
	seen := map[string]bool{}
	for i := range 4 {
		era := legacy
		if i == 3 {
			era = next
		}
		changed := newNotes()
		s := connect(t, h.URL, era, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed.note() }})
		where := replicaOf[callText(t, s, "demo__pid", nil)]
		if era == legacy {
			seen[where] = true
		}
		clients = append(clients, client{s, changed, era + " on " + where})
	}
	if len(seen) != 3 {
		t.Fatalf("haproxy put the three legacy sessions on %v, want one on each replica", seen)
	}
	steps := tsClient(t, []string{"--url", h.URL, "--list", "--pause", "--wait-for-tool", "added__echo", "--within", "30000"}, func([]map[string]any) {
		c.SetServer(t, "added", c.Demo("added"))
	})
	if ts := step(t, steps, "wait-for-tool"); ts["ok"] != true {
		t.Errorf("the TypeScript client never listed added__echo: %v", ts)
	}
	for _, cl := range clients {
		awaitTools(t, cl.s, cl.changed, "added__echo")
		t.Logf("%s: list_changed, added__echo listed", cl.where)
	}
}

// TestStoppedReplicaLeavesRotation: a replica that hangs (SIGSTOP: the
// kernel still accepts its connections, nothing answers) fails HAProxy's
// /readyz check within about 1.5 s; new sessions and 2026-07-28 calls go
// to the other replicas, and a session that was on it (the replicas
// share a session key file) goes on, under its id, on another. Once it
// goes on (SIGCONT) it is back.
func TestStoppedReplicaLeavesRotation(t *testing.T) {
	c := replicatest.New(t, replicatest.Binary(t), nil)
	c.SetServer(t, "demo", c.Demo("demo"))
	c.Start(t, 3, "--session-key-file", keyFile(t, c.Dir))
	h := c.StartHAProxy(t, "haproxy.cfg")
	replicaOf := map[string]string{}
	for _, r := range c.Replicas {
		replicaOf[callText(t, connect(t, r.URL, next, nil), "demo__pid", nil)] = r.Name
	}
	// Sessions until one is on the replica to be stopped: round-robin
	// puts the first, second or third there.
	hung := c.Replicas[0]
	var moved *mcp.ClientSession
	for range 3 {
		s, err := dialAs(t.Context(), h.URL, legacy, "ann")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if replicaOf[callText(t, s, "demo__pid", nil)] == hung.Name {
			moved = s
			break
		}
	}
	if moved == nil {
		t.Fatalf("three sessions, none on %s", hung.Name)
	}
	id := moved.ID()

	hung.Signal(t, syscall.SIGSTOP)
	stopped := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := h.AwaitStatus(ctx, hung.Name, "DOWN"); err != nil {
		t.Fatal(err)
	}
	t.Logf("haproxy took %s out %v after SIGSTOP", hung.Name, time.Since(stopped).Round(10*time.Millisecond))
	for i := range 6 {
		era := []string{legacy, next}[i%2]
		s := connect(t, h.URL, era, nil)
		where := replicaOf[callText(t, s, "demo__pid", nil)]
		if where == hung.Name || where == "" {
			t.Errorf("a %s call went to %q, want one of the running replicas", era, where)
		}
		s.Close()
	}
	where := replicaOf[callText(t, moved, "demo__pid", nil)]
	if where == hung.Name || where == "" || moved.ID() != id {
		t.Errorf("the session that was on %s: its call went to %q, id kept %v", hung.Name, where, moved.ID() == id)
	}
	t.Logf("the session that was on %s went on on %s", hung.Name, where)
	hung.Signal(t, syscall.SIGCONT)
	ctx, cancel = context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := h.AwaitStatus(ctx, hung.Name, "UP"); err != nil {
		t.Fatal(err)
	}
}
