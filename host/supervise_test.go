package host_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// faultBound is how long a fault test waits for something that takes
// milliseconds when the host works; reaching it means the host is broken,
// not that the machine is slow.
const faultBound = 20 * time.Second

func awaitState(t *testing.T, sub *host.Subscription, server string, state host.State) host.Event {
	t.Helper()
	return await(t, sub, server+" "+string(state), func(e host.Event) bool {
		return e.Type == host.EventState && e.Server == server && e.State == state
	})
}

// A server killed mid-call fails its in-flight call at once, comes back,
// and the next call succeeds.
func TestKillMidCall(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{demoServer(t, "victim")}); err != nil {
		t.Fatal(err)
	}
	oldPID := status(t, h, "victim").PID

	done := make(chan error, 1)
	go func() {
		_, err := h.CallTool(context.Background(), "mcp__victim__sleep", map[string]any{"ms": 600000})
		done <- err
	}()
	// The sleep tool reports progress once it runs: the call is in flight.
	await(t, sub, "sleep running", func(e host.Event) bool {
		return e.Type == host.EventProgress && e.Tool == "mcp__victim__sleep"
	})
	if err := syscall.Kill(oldPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var cerr *host.CallError
		if !errors.As(err, &cerr) || cerr.Server != "victim" {
			t.Errorf("in-flight call: err = %v, want a CallError naming the server", err)
		}
	case <-time.After(faultBound):
		t.Fatal("in-flight call still waiting after its server was killed")
	}
	e := awaitState(t, sub, "victim", host.StateConnecting)
	if !strings.Contains(e.Error, "connection lost") {
		t.Errorf("connecting event error = %q", e.Error)
	}
	e = awaitState(t, sub, "victim", host.StateConnected)
	if e.PID == 0 || e.PID == oldPID {
		t.Errorf("reconnected with pid %d (old %d)", e.PID, oldPID)
	}
	res, err := h.CallTool(context.Background(), "mcp__victim__echo", map[string]any{"text": "back"})
	if err != nil || text(t, res) != "back" {
		t.Fatalf("call after reconnect: %v %+v", err, res)
	}
	if alive(oldPID) {
		t.Errorf("killed process %d still there", oldPID)
	}
}

// gate holds a host's connect attempts to one server while hold is set,
// until release is closed, and tells on waiting when a call starts
// waiting for a server: the tests that need a reconnect or restart gap
// make it with this, instead of racing it.
type gate struct {
	hold    atomic.Bool
	release chan struct{}
	waiting chan struct{}
}

// holdAttempts installs a gate on h, which must not have started yet.
func holdAttempts(h *host.Host, server string) *gate {
	g := &gate{release: make(chan struct{}), waiting: make(chan struct{}, 1)}
	h.SetHooks(host.Hooks{
		BeforeAttempt: func(ctx context.Context, name string) {
			if g.hold.Load() && name == server {
				select {
				case <-g.release:
				case <-ctx.Done():
				}
			}
		},
		CallWaits: func(string) {
			select {
			case g.waiting <- struct{}{}:
			default:
			}
		},
	})
	return g
}

// A call made while the server is reconnecting waits for it and succeeds.
// The test holds the reconnect until it has looked at the tool set and
// the call is waiting, so a reconnect quicker than the test cannot make
// either check pass without being made.
func TestCallDuringReconnect(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	g := holdAttempts(h, "flaky")
	hold, release, waiting := &g.hold, g.release, g.waiting
	if err := h.Start(context.Background(), []config.ServerConfig{demoServer(t, "flaky")}); err != nil {
		t.Fatal(err)
	}
	sub := h.Subscribe() // after Start: the connecting awaited is the reconnect's
	defer sub.Close()
	hold.Store(true) // every attempt from now on: the reconnect
	if err := syscall.Kill(status(t, h, "flaky").PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	awaitState(t, sub, "flaky", host.StateConnecting)
	if st := status(t, h, "flaky"); st.State != host.StateConnecting {
		t.Fatalf("while the reconnect is held: %+v", st)
	}
	if tool, ok := toolNamed(h, "mcp__flaky__echo"); !ok {
		t.Fatal("tool dropped from the set while its server reconnects")
	} else if !tool.Deferred {
		t.Error("tool of a reconnecting server is not deferred")
	}

	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		res, err := h.CallTool(context.Background(), "mcp__flaky__echo", map[string]any{"text": "in the gap"})
		if err != nil {
			done <- result{err: err}
			return
		}
		done <- result{text: host.ResultText(res)}
	}()
	select {
	case <-waiting:
	case r := <-done:
		t.Fatalf("call returned while its server was reconnecting: %+v", r)
	case <-time.After(faultBound):
		t.Fatal("call neither waits nor returns")
	}
	close(release)
	select {
	case r := <-done:
		if r.err != nil || r.text != "in the gap" {
			t.Fatalf("call during reconnect: %+v", r)
		}
	case <-time.After(faultBound):
		t.Fatal("call still waiting after its server was let reconnect")
	}
}

// A server that keeps dying is given up on after a bounded number of
// spawns, with its last stderr lines in the error; Restart revives it.
func TestCrashLoopGivesUp(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	cfg := demoServer(t, "crashy", "--exit-after", "300ms")
	if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	spawns := 1
	for {
		e := await(t, sub, "crash loop", func(e host.Event) bool {
			return e.Type == host.EventState && e.Server == "crashy" && (e.State == host.StateConnected || e.State == host.StateFailed)
		})
		if e.State == host.StateFailed {
			if !strings.Contains(e.Error, "crash loop") || !strings.Contains(e.Error, "exiting with code 3") {
				t.Errorf("failed event error = %q; want the crash loop and the server's last stderr line", e.Error)
			}
			break
		}
		spawns++
	}
	if spawns > host.CrashLoopFailures+1 {
		t.Errorf("%d spawns, want at most %d", spawns, host.CrashLoopFailures+1)
	}
	if st := status(t, h, "crashy"); st.State != host.StateFailed || st.PID != 0 {
		t.Errorf("after giving up: %+v", st)
	}
	if _, ok := toolNamed(h, "mcp__crashy__echo"); ok {
		t.Error("a given-up server's tools are still offered")
	}
	if err := h.Restart("crashy"); err != nil {
		t.Fatal(err)
	}
	awaitState(t, sub, "crashy", host.StateConnected)
}

// A server that stops answering pings is treated as dropped.
func TestPingDetectsFrozenServer(t *testing.T) {
	cfg := demoServer(t, "frozen", "--freeze-after", "500ms")
	cfg.PingInterval = 100 * time.Millisecond
	h := start(t, nil, cfg)
	sub := h.Subscribe()
	defer sub.Close()
	first := status(t, h, "frozen").PID
	awaitState(t, sub, "frozen", host.StateConnecting)
	e := awaitState(t, sub, "frozen", host.StateConnected)
	if e.PID == first {
		t.Errorf("reconnected to the frozen process %d", first)
	}
	if alive(first) {
		t.Errorf("frozen process %d left running", first)
	}
}

func TestRestart(t *testing.T) {
	h := start(t, nil, demoServer(t, "r"))
	sub := h.Subscribe()
	defer sub.Close()
	old := status(t, h, "r").PID
	if err := h.Restart("r"); err != nil {
		t.Fatal(err)
	}
	e := awaitState(t, sub, "r", host.StateConnected)
	if e.PID == old || alive(old) {
		t.Errorf("restart: new pid %d, old pid %d alive=%v", e.PID, old, alive(old))
	}
	if err := h.Restart("nosuch"); err == nil {
		t.Error("Restart of an unknown server succeeded")
	}
}

// A lazy server starts on its first call; before that its cached tools
// are offered deferred.
func TestLazyServer(t *testing.T) {
	cache := t.TempDir()
	cfg := demoServer(t, "lazy")
	warm := host.New(&host.Options{CacheDir: cache})
	if err := warm.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	warm.Close()

	cfg.Lazy = true
	h := start(t, &host.Options{CacheDir: cache}, cfg)
	if st := status(t, h, "lazy"); st.State != host.StateIdle || st.PID != 0 {
		t.Fatalf("lazy server before any call: %+v", st)
	}
	if tool, ok := toolNamed(h, "mcp__lazy__echo"); !ok || !tool.Deferred {
		t.Fatalf("lazy server's cached tool: %+v %v", tool, ok)
	}
	res, err := h.CallTool(context.Background(), "mcp__lazy__echo", map[string]any{"text": "woke"})
	if err != nil || text(t, res) != "woke" {
		t.Fatalf("first call: %v %+v", err, res)
	}
	if st := status(t, h, "lazy"); st.State != host.StateConnected {
		t.Errorf("after first call: %+v", st)
	}
}

// tools/list_changed brings the new tool in with one change event.
func TestListChangedRefresh(t *testing.T) {
	h := start(t, nil, demoServer(t, "dyn", "--test-tools"))
	sub := h.Subscribe()
	defer sub.Close()
	before := h.Tools().Version
	if _, err := h.CallTool(context.Background(), "mcp__dyn__add_tool", map[string]any{"name": "fresh"}); err != nil {
		t.Fatal(err)
	}
	// Start may still be publishing its own (older) version: skip it.
	e := await(t, sub, "tool set change", func(e host.Event) bool { return e.Type == host.EventTools && e.Version > before })
	if e.Version != before+1 {
		t.Errorf("tool set went from version %d to %d; want one change", before, e.Version)
	}
	if _, ok := toolNamed(h, "mcp__dyn__fresh"); !ok {
		t.Fatal("new tool not in the set after list_changed")
	}
	res, err := h.CallTool(context.Background(), "mcp__dyn__fresh", map[string]any{"text": "new"})
	if err != nil || text(t, res) != "new" {
		t.Errorf("calling the new tool: %v %+v", err, res)
	}
}

func TestView(t *testing.T) {
	h := start(t, nil, demoServer(t, "a"), demoServer(t, "b"))
	v := h.View(host.ViewFilter{Servers: []string{"a"}, Tools: config.ToolFilter{Deny: []string{"*__sleep"}}})
	for _, tool := range v.Tools().Tools {
		if tool.Server != "a" || tool.Tool == "sleep" {
			t.Errorf("view shows %s", tool.Name)
		}
	}
	if len(v.Tools().Tools) == 0 {
		t.Fatal("view shows nothing")
	}
	if _, err := v.CallTool(context.Background(), "mcp__a__echo", map[string]any{"text": "x"}); err != nil {
		t.Error(err)
	}
	if _, err := v.CallTool(context.Background(), "mcp__b__echo", map[string]any{"text": "x"}); !errors.Is(err, host.ErrUnknownTool) {
		t.Errorf("call outside the view: %v", err)
	}
	// A reconnect under the view is invisible to it.
	if err := h.Restart("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.CallTool(context.Background(), "mcp__a__echo", map[string]any{"text": "x"}); err != nil {
		t.Errorf("call through the view after a restart: %v", err)
	}
}

// A server that left a grandchild and then died does not leave it behind
// when it is reconnected: the whole process group goes.
func TestReconnectEndsGrandchildren(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{demoServer(t, "parent", "--grandchild")}); err != nil {
		t.Fatal(err)
	}
	grandchild := awaitGrandchild(t, sub)
	leader := status(t, h, "parent").PID
	if err := syscall.Kill(leader, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	awaitState(t, sub, "parent", host.StateConnecting)
	awaitState(t, sub, "parent", host.StateConnected)
	if alive(grandchild) {
		t.Errorf("grandchild %d of the killed server survived the reconnect", grandchild)
	}
}

// A view's version moves when what it shows changes, not when a server
// it hides does (issue 23), and its lookups never show what it hides.
func TestViewVersionAndLookups(t *testing.T) {
	h := start(t, nil, demoServer(t, "a"), demoServer(t, "b", "--test-tools"))
	sub := h.Subscribe()
	defer sub.Close()
	va := h.View(host.ViewFilter{Servers: []string{"a"}, Tools: config.ToolFilter{Deny: []string{"*__sleep"}}})
	vb := h.View(host.ViewFilter{Servers: []string{"b"}})
	before, beforeB := va.Tools(), vb.Tools()

	if _, err := h.CallTool(context.Background(), "mcp__b__add_tool", map[string]any{"name": "zanzibar"}); err != nil {
		t.Fatal(err)
	}
	await(t, sub, "b's new tool", func(e host.Event) bool {
		_, ok := toolNamed(h, "mcp__b__zanzibar")
		return e.Type == host.EventTools && ok
	})
	after, afterB := va.Tools(), vb.Tools()
	if after.Version != before.Version {
		t.Errorf("a's view moved from version %d to %d when only b changed", before.Version, after.Version)
	}
	if afterB.Version <= beforeB.Version {
		t.Errorf("b's view stayed at version %d when b gained a tool", afterB.Version)
	}
	if afterB.Version != h.Tools().Version {
		t.Errorf("b's view is at version %d, the host at %d", afterB.Version, h.Tools().Version)
	}

	for _, name := range []string{"mcp__a__sleep", "mcp__b__echo"} {
		if _, ok := va.Tool(name); ok {
			t.Errorf("View.Tool shows hidden %s", name)
		}
		if _, ok := va.Resolve(host.KindTool, name); ok {
			t.Errorf("View.Resolve shows hidden %s", name)
		}
		if _, err := va.Find(host.KindTool, name); err == nil {
			t.Errorf("View.Find shows hidden %s", name)
		}
		if _, ok := h.Tool(name); !ok {
			t.Errorf("Host.Tool hides %s", name)
		}
	}
	if _, ok := va.Exposed(host.KindTool, host.Ref{Server: "a", Name: "sleep"}); ok {
		t.Error("View.Exposed shows hidden a/sleep")
	}
	if tool, ok := va.Tool("mcp__a__echo"); !ok || tool.InputSchema == nil {
		t.Errorf("View.Tool(mcp__a__echo) = %+v, %v", tool, ok)
	}
	for _, p := range va.Prompts() {
		if p.Server != "a" {
			t.Errorf("a's view shows prompt %s", p.Exposed)
		}
	}
}

// A view's tool globs match exposed names, a server's config filter its
// own names (config.ToolFilter, issue 23).
func TestToolFilterNames(t *testing.T) {
	a := demoServer(t, "a")
	a.Tools = config.ToolFilter{Allow: []string{"echo", "add"}}
	h := start(t, nil, a, demoServer(t, "b"))
	if _, ok := h.Tool("mcp__a__echo"); !ok {
		t.Error("a's config filter by its own name dropped echo")
	}
	if _, ok := h.Tool("mcp__a__pid"); ok {
		t.Error("a's config filter kept pid")
	}
	for _, c := range []struct {
		allow []string
		want  []string
	}{
		{[]string{"echo"}, nil},
		{[]string{"*__echo"}, []string{"mcp__a__echo", "mcp__b__echo"}},
		{[]string{"mcp__b__e*"}, []string{"mcp__b__echo"}},
	} {
		var got []string
		for _, tool := range h.View(host.ViewFilter{Tools: config.ToolFilter{Allow: c.allow}}).Tools().Tools {
			got = append(got, tool.Name)
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("view allowing %v shows %v, want %v", c.allow, got, c.want)
		}
	}
}

// A view gets prompts and reads resources of what it shows alone.
func TestViewPromptsAndResources(t *testing.T) {
	h := start(t, nil, demoServer(t, "a"), demoServer(t, "b"))
	if err := h.WaitListed(context.Background()); err != nil {
		t.Fatal(err)
	}
	va := h.View(host.ViewFilter{Servers: []string{"a"}})
	res, err := va.GetPrompt(context.Background(), "mcp__a__greet", map[string]string{"name": "Ada"})
	if err != nil || len(res.Messages) == 0 {
		t.Fatalf("GetPrompt(mcp__a__greet): %+v, %v", res, err)
	}
	var ne *host.NameError
	if _, err := va.GetPrompt(context.Background(), "mcp__b__greet", nil); !errors.As(err, &ne) {
		t.Errorf("GetPrompt of a hidden prompt: %v, want a *NameError", err)
	}
	if server, ok := va.ResourceServer(demo.ReadmeURI); !ok || server != "a" {
		t.Errorf("a's view routes %s to %q, %v", demo.ReadmeURI, server, ok)
	}
	if rr, err := va.ReadResource(context.Background(), demo.ReadmeURI); err != nil || len(rr.Contents) == 0 {
		t.Errorf("ReadResource in a's view: %+v, %v", rr, err)
	}
	none := h.View(host.ViewFilter{Servers: []string{"nobody"}})
	if _, err := none.ReadResource(context.Background(), demo.ReadmeURI); !errors.As(err, &ne) {
		t.Errorf("ReadResource in an empty view: %v, want a *NameError", err)
	}
	if err := none.SubscribeResource(context.Background(), demo.ReadmeURI); !errors.As(err, &ne) {
		t.Errorf("SubscribeResource in an empty view: %v, want a *NameError", err)
	}
	if err := va.SubscribeResource(context.Background(), demo.ReadmeURI); err != nil {
		t.Errorf("SubscribeResource in a's view: %v", err)
	}
	if err := va.UnsubscribeResource(context.Background(), demo.ReadmeURI); err != nil {
		t.Errorf("UnsubscribeResource in a's view: %v", err)
	}
}
