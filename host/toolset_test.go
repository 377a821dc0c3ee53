package host_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// noCoalesceTimer stands in for the coalescing delay in tests that count
// versions: long enough that the timer never publishes, so every version
// they see comes from the host becoming quiet or from a reader.
const noCoalesceTimer = time.Hour

// A burst of servers connecting together publishes the tool set once,
// when the last of them settles, not once per server.
func TestBurstPublishesOnce(t *testing.T) {
	const n = 50
	// Fifty servers starting at once on a loaded machine can take longer
	// than the era probe's bound to answer it (the host then connects
	// again, waiting longer: dial); this test is about the burst, not the
	// probe, and waits for it as long as it takes.
	h := host.New(&host.Options{DiscoverTimeout: 5 * time.Minute})
	defer h.Close()
	h.SetHooks(host.Hooks{Coalesce: noCoalesceTimer})
	sub := h.Subscribe()
	defer sub.Close()
	configs := make([]config.ServerConfig, n)
	for i := range configs {
		configs[i] = demoServer(t, fmt.Sprintf("s%02d", i))
	}
	if err := h.Start(context.Background(), configs); err != nil {
		t.Fatal(err)
	}
	set := h.Tools()
	if set.Version != 1 {
		t.Errorf("tool set version %d after a burst of %d connects, want 1", set.Version, n)
	}
	servers := map[string]int{}
	for _, tool := range set.Tools {
		if tool.Deferred {
			t.Errorf("%s deferred after Start", tool.Name)
		}
		servers[tool.Server]++
	}
	if len(servers) != n {
		t.Errorf("tools of %d servers, want %d", len(servers), n)
		for _, st := range h.Status() {
			if servers[st.Name] == 0 {
				t.Logf("%s: %s %s", st.Name, st.State, st.Error)
			}
		}
	}
	// The one tools event follows the last state event: the set is
	// published when the last server settles.
	connected := 0
	for {
		e := await(t, sub, "state and tools events", func(e host.Event) bool {
			return e.Type == host.EventTools || e.Type == host.EventState && e.State == host.StateConnected
		})
		if e.Type == host.EventState {
			connected++
			continue
		}
		if connected != n || e.Version != 1 {
			t.Errorf("tools event (version %d) after %d of %d servers connected", e.Version, connected, n)
		}
		break
	}
}

// heldServers holds the connect attempts of the servers named in it until
// their channel is closed.
type heldServers map[string]chan struct{}

func (held heldServers) hook(ctx context.Context, name string) {
	if c, ok := held[name]; ok {
		select {
		case <-c:
		case <-ctx.Done():
		}
	}
}

// While a burst is under way a change waits to be published; whoever
// reads the tool set meanwhile publishes it first, and finds the tools
// of a server that has connected, after the state event that says so.
// A call to a deferred tool, woken when its server connects, goes
// through while the rest of the burst is still connecting.
func TestPendingToolsPublishedOnRead(t *testing.T) {
	dir := t.TempDir()
	a, b := demoServer(t, "a"), demoServer(t, "b")
	warm := start(t, &host.Options{CacheDir: dir}, a, b)
	warm.Close() // both cached: the next Start returns at the gate

	h := host.New(&host.Options{CacheDir: dir, StartupGate: time.Millisecond})
	defer h.Close()
	held := heldServers{"a": make(chan struct{}), "b": make(chan struct{})}
	waiting := make(chan string, 4)
	h.SetHooks(host.Hooks{
		BeforeAttempt: held.hook,
		CallWaits:     func(server string) { waiting <- server },
		Coalesce:      noCoalesceTimer,
	})
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{a, b}); err != nil {
		t.Fatal(err)
	}
	before := h.Tools()
	if tool, ok := toolNamed(h, "mcp__a__echo"); !ok || !tool.Deferred {
		t.Fatalf("cached tool before a connects: %+v, %v", tool, ok)
	}

	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		res, err := h.CallTool(context.Background(), "mcp__a__echo", map[string]any{"text": "woken"})
		if err != nil {
			done <- result{err: err}
			return
		}
		done <- result{text: host.ResultText(res)}
	}()
	if server := <-waiting; server != "a" {
		t.Fatalf("the call waits for %q", server)
	}
	close(held["a"]) // b stays connecting: the burst goes on
	r := <-done
	if r.err != nil || r.text != "woken" {
		t.Fatalf("call woken by its server's connect: %+v", r)
	}
	awaitState(t, sub, "a", host.StateConnected)
	tool, ok := toolNamed(h, "mcp__a__echo")
	if !ok || tool.Deferred {
		t.Errorf("a's tool once a connected and b is still connecting: %+v, %v", tool, ok)
	}
	after := h.Tools()
	if after.Version != before.Version+1 {
		t.Errorf("version %d -> %d, want one change", before.Version, after.Version)
	}
	e := await(t, sub, "tools event", func(e host.Event) bool { return e.Type == host.EventTools })
	if e.Version != after.Version {
		t.Errorf("tools event version %d, set version %d", e.Version, after.Version)
	}
	if st := status(t, h, "b"); st.State != host.StateConnecting {
		t.Errorf("b: %+v", st)
	}
	close(held["b"])
	awaitState(t, sub, "b", host.StateConnected)
}
