package host_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// A server whose resource and prompt lists hang is connected with its
// tools at once, and its tools can be called; another server's lists are
// not held up by it. Once the lists answer, they arrive with their events
// after the state event, and WaitSettled, which waited for them, returns.
func TestListsAfterTools(t *testing.T) {
	release := filepath.Join(t.TempDir(), "release")
	h := host.New(nil)
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	held, quick := demoServer(t, "held", "--hold-lists", release), demoServer(t, "quick")
	if err := h.Start(context.Background(), []config.ServerConfig{held, quick}); err != nil {
		t.Fatal(err)
	}
	if st := status(t, h, "held"); st.State != host.StateConnected || st.Tools < 8 || st.Resources != 0 || st.Prompts != 0 {
		t.Errorf("held once Start returned: %+v", st)
	}
	if tool, ok := toolNamed(h, "mcp__held__echo"); !ok || tool.Deferred {
		t.Errorf("held's tool: %+v, %v", tool, ok)
	}
	res, err := h.CallTool(context.Background(), "mcp__held__echo", map[string]any{"text": "lists pending"})
	if err != nil || text(t, res) != "lists pending" {
		t.Fatalf("call while held's lists hang: %v %+v", err, res)
	}
	awaitState(t, sub, "held", host.StateConnected)
	awaitLists(t, sub, "quick")

	for name, wait := range map[string]func(context.Context) error{"WaitSettled": h.WaitSettled, "WaitListed": h.WaitListed} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		if err := wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s while held's lists hang: %v, want it to wait", name, err)
		}
		cancel()
	}
	if rs, _ := h.Resources(); len(rs) != 1 || rs[0].Server != "quick" {
		t.Errorf("resources while held's hang: %+v", rs)
	}

	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	awaitLists(t, sub, "held")
	if err := h.WaitListed(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := status(t, h, "held"); st.Resources != 1 || st.Prompts != 1 {
		t.Errorf("held once its lists answered: %+v", st)
	}
	if rs, _ := h.Resources(); len(rs) != 2 {
		t.Errorf("resources = %d, want 2", len(rs))
	}
}

// awaitLists waits for a server's resources and prompts events, which
// come in either order.
func awaitLists(t *testing.T, sub *host.Subscription, server string) {
	t.Helper()
	got := map[host.EventType]bool{}
	for len(got) < 2 {
		e := await(t, sub, server+"'s resources and prompts", func(e host.Event) bool {
			return e.Server == server && (e.Type == host.EventResources || e.Type == host.EventPrompts)
		})
		got[e.Type] = true
	}
}

// The log level is set before a server is published, so a call made the
// moment Start returns has its log notifications (a go-sdk server sends
// none until a client sets a level).
func TestLogLevelSetBeforePublished(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{demoServer(t, "chatty", "--test-tools")}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.CallTool(context.Background(), "mcp__chatty__log", map[string]any{"message": "first"}); err != nil {
		t.Fatal(err)
	}
	await(t, sub, "the first call's log", func(e host.Event) bool {
		return e.Type == host.EventLog && e.Server == "chatty" && e.Message == "demo: first"
	})
}

// Servers whose lists hang do not hold the others' lists back, however
// many of them there are: each gives its turn up after a moment. The test
// lets every turn be taken by a hung server before the quick one starts.
func TestHungListsDoNotBlockOthers(t *testing.T) {
	release := filepath.Join(t.TempDir(), "release")
	h := host.New(nil)
	defer h.Close()
	listing := make(chan string, 16)
	h.SetHooks(host.Hooks{Listing: func(server string) { listing <- server }})
	sub := h.Subscribe()
	defer sub.Close()
	var hung []config.ServerConfig
	for i := range host.ExtrasAtOnce + 2 {
		cfg := demoServer(t, fmt.Sprintf("hung%d", i), "--hold-lists", release)
		cfg.StartupTimeout = time.Hour // the hang is not cut short
		hung = append(hung, cfg)
	}
	if err := h.Start(context.Background(), hung); err != nil {
		t.Fatal(err)
	}
	for range host.ExtrasAtOnce { // every turn there is, taken by a hung server
		<-listing
	}
	if err := h.Start(context.Background(), []config.ServerConfig{demoServer(t, "quick")}); err != nil {
		t.Fatal(err)
	}
	awaitLists(t, sub, "quick")
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.WaitSettled(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rs, _ := h.Resources(); len(rs) != len(hung)+1 {
		t.Errorf("%d resources once released, want %d", len(rs), len(hung)+1)
	}
}

// WaitListed waits for the lists of the servers connected, not for a
// server still connecting.
func TestWaitListedSkipsConnecting(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	held := heldServers{"slow": make(chan struct{})}
	defer close(held["slow"])
	h.SetHooks(host.Hooks{BeforeAttempt: held.hook})
	sub := h.Subscribe()
	defer sub.Close()
	go h.Start(context.Background(), []config.ServerConfig{demoServer(t, "quick"), demoServer(t, "slow")})
	awaitState(t, sub, "quick", host.StateConnected)
	if err := h.WaitListed(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := status(t, h, "quick"); st.Resources != 1 || st.Prompts != 1 {
		t.Errorf("quick once listed: %+v", st)
	}
	if st := status(t, h, "slow"); st.State != host.StateConnecting {
		t.Errorf("slow: %+v", st)
	}
}
