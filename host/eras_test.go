package host_test

import (
	"context"
	"fmt"
	"maps"
	"net"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// The two protocol eras (issue 13): 2026-07-28 servers answer
// server/discover and have no initialize; 2025-era servers either refuse
// server/discover (-32601) or, misbehaving, never answer it. The host
// probes each server once, bounded, and remembers its era in the tool
// cache.

const (
	era2025 = config.ProtocolLegacy
	era2026 = config.ProtocolModern
)

// eraStartupTimeout is the startup timeout of the server that never
// answers server/discover: the host's own probe timeout bounds the probe,
// and this leaves the fallback initialize room on a loaded machine.
const eraStartupTimeout = 4 * host.DefaultDiscoverTimeout

// eraServer is one server of TestEras: its config, its era, and a tool
// call that works on it.
type eraServer struct {
	cfg  config.ServerConfig
	era  string
	tool string
	args map[string]any
	want string // a substring of the call's text
	// handshake: a demo server whose stderr shows its server/discover and
	// initialize requests (demo.DiscoverLine, demo.InitializeLine).
	handshake bool
}

func eraServers(t *testing.T) []eraServer {
	t.Helper()
	echo := func(s string) map[string]any { return map[string]any{"text": s} }
	mute := demoServer(t, "mute", "--ignore-discover")
	mute.StartupTimeout = eraStartupTimeout
	command, args := peers.EverythingStdio(t)
	servers := []eraServer{
		{cfg: demoServer(t, "modern"), era: era2026, tool: "echo", args: echo("modern"), want: "modern"},
		{cfg: demoServer(t, "legacy", "--legacy"), era: era2025, tool: "echo", args: echo("legacy"), want: "legacy", handshake: true},
		{cfg: mute, era: era2025, tool: "echo", args: echo("mute"), want: "mute", handshake: true},
		{cfg: config.ServerConfig{Name: "go_stateless", Type: config.TransportHTTP, URL: peers.StartGoEverything(t, true)},
			era: era2026, tool: "test_simple_text", want: "simple text"},
		{cfg: config.ServerConfig{Name: "go_stateful", Type: config.TransportHTTP, URL: peers.StartGoEverything(t, false)},
			era: era2025, tool: "test_simple_text", want: "simple text"},
		{cfg: config.ServerConfig{Name: "everything", Command: command, Args: args},
			era: era2025, tool: "echo", args: map[string]any{"message": "ts"}, want: "ts"},
	}
	for i := range servers {
		c := &servers[i].cfg
		c.Timeout = interopCallTimeout
		c.Source = config.Source{Provider: "test", Path: "eras_test.go", Level: config.LevelExplicit}
	}
	return servers
}

// TestEras runs one host over servers of both eras: each connects, in its
// era, and answers a call. A second host on the same cache connects the
// 2025-era demo servers without a probe: the first host learned their era.
func TestEras(t *testing.T) {
	servers := eraServers(t)
	var configs []config.ServerConfig
	for _, s := range servers {
		configs = append(configs, s.cfg)
	}
	opts := &host.Options{CacheDir: t.TempDir()}

	for run, probes := range []int{1, 0} { // probes each 2025-era demo sees
		label := [...]string{"first start (no cache)", "second start (warm cache)"}[run]
		h := host.New(opts)
		sub := h.Subscribe()
		ctx := context.Background()
		if err := h.Start(ctx, configs); err != nil {
			t.Fatal(err)
		}
		if err := h.WaitSettled(ctx); err != nil {
			t.Fatal(err)
		}
		for _, s := range servers {
			name := s.cfg.Name
			st := status(t, h, name)
			if st.State != host.StateConnected {
				t.Errorf("%s: %s: %s %s", label, name, st.State, st.Error)
				continue
			}
			if got := st.ProtocolVersion; got != s.era {
				t.Errorf("%s: %s: protocolVersion %q, want %q", label, name, got, s.era)
			}
			callEra(t, h, s)
		}
		var demos []string
		for _, s := range servers {
			if s.handshake {
				demos = append(demos, s.cfg.Name)
			}
		}
		awaitInitialize(t, sub, demos...)
		for _, name := range demos {
			if got := logCount(t, h, name, demo.DiscoverLine); got != probes {
				t.Errorf("%s: %s got server/discover %d times, want %d; log:\n%s", label, name, got, probes, logText(t, h, name))
			}
		}
		sub.Close()
		h.Close()
	}
}

// callEra calls s's tool through the host.
func callEra(t *testing.T, h *host.Host, s eraServer) {
	t.Helper()
	i := slices.IndexFunc(h.Tools().Tools, func(tool host.Tool) bool { return tool.Server == s.cfg.Name && tool.Tool == s.tool })
	if i < 0 {
		t.Errorf("%s: no tool %q", s.cfg.Name, s.tool)
		return
	}
	exposed := h.Tools().Tools[i].Name
	res, err := h.CallTool(context.Background(), exposed, s.args)
	if err != nil {
		t.Errorf("%s: %s: %v", s.cfg.Name, exposed, err)
		return
	}
	if got := text(t, res); res.IsError || !strings.Contains(got, s.want) {
		t.Errorf("%s: %s = %q (isError %v), want it to contain %q", s.cfg.Name, exposed, got, res.IsError, s.want)
	}
}

// A server pinned to 2025-11-25 is never probed: the host goes straight
// to initialize, even for a server that would answer server/discover.
func TestErasPinnedNeverProbed(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flags []string
	}{
		{"pinned_mute", []string{"--ignore-discover"}}, // a probe would cost the probe timeout
		{"pinned_modern", nil},                         // a probe would land in 2026-07-28
	} {
		name, flags := tt.name, tt.flags
		t.Run(name, func(t *testing.T) {
			cfg := demoServer(t, name, flags...)
			cfg.ProtocolVersion = config.ProtocolLegacy
			h := host.New(nil)
			t.Cleanup(func() { h.Close() })
			sub := h.Subscribe()
			defer sub.Close()
			if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
				t.Fatal(err)
			}
			st := status(t, h, name)
			if st.State != host.StateConnected {
				t.Fatalf("%s %s", st.State, st.Error)
			}
			if got := st.ProtocolVersion; got != era2025 {
				t.Errorf("protocolVersion %q, want %q", got, era2025)
			}
			awaitInitialize(t, sub, name)
			if got := logCount(t, h, name, demo.DiscoverLine); got != 0 {
				t.Errorf("a pinned server got server/discover %d times; log:\n%s", got, logText(t, h, name))
			}
		})
	}
}

// awaitInitialize waits until each named demo server's stderr, in the
// host's log, shows demo.InitializeLine: every server/discover line of its
// handshake comes before it.
func awaitInitialize(t *testing.T, sub *host.Subscription, names ...string) {
	t.Helper()
	waiting := map[string]bool{}
	for _, n := range names {
		waiting[n] = true
	}
	for len(waiting) > 0 {
		e := await(t, sub, fmt.Sprintf("%q on the stderr of %v", demo.InitializeLine, slices.Sorted(maps.Keys(waiting))), func(e host.Event) bool {
			return e.Type == host.EventLog && waiting[e.Server] && e.Message == demo.InitializeLine
		})
		delete(waiting, e.Server)
	}
}

func logCount(t *testing.T, h *host.Host, name, line string) int {
	t.Helper()
	lines, ok := h.Logs(name)
	if !ok {
		t.Fatalf("no server %q", name)
	}
	n := 0
	for _, l := range lines {
		if l.Text == line {
			n++
		}
	}
	return n
}

func logText(t *testing.T, h *host.Host, name string) string {
	t.Helper()
	lines, _ := h.Logs(name)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

// A 2026-07-28 server brings list changes on the subscriptions/listen
// stream go-sdk opens at connect, and never opens again: when the server
// lets it go (here it restarts, on the same address), the host
// reconnects, with its backoff, and list changes come again.
func TestListenStreamReopened(t *testing.T) {
	bin := peers.GoEverythingBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	run := func() *exec.Cmd {
		cmd := exec.Command(bin, "-http", addr)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		deadline := time.Now().Add(20 * time.Second)
		for {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				return cmd
			}
			if time.Now().After(deadline) {
				t.Fatal("the everything-server does not listen")
			}
			time.Sleep(10 * time.Millisecond) // polling a port that is coming up
		}
	}
	srv := run()
	h := host.New(nil)
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	ctx := context.Background()
	if err := h.Start(ctx, []config.ServerConfig{{Name: "ev", Type: config.TransportHTTP, URL: "http://" + addr + "/mcp"}}); err != nil {
		t.Fatal(err)
	}
	h.WaitSettled(ctx)
	if st := status(t, h, "ev"); st.State != host.StateConnected || st.ProtocolVersion != config.ProtocolModern {
		t.Fatalf("ev: %s %s %q", st.State, st.ProtocolVersion, st.Error)
	}
	changed := func(what string) {
		t.Helper()
		if _, err := h.CallTool(ctx, "mcp__ev__test_trigger_tool_change", map[string]any{}); err != nil {
			t.Fatal(err)
		}
		await(t, sub, what, func(e host.Event) bool { return e.Type == host.EventTools })
	}
	changed("a tool-list change")

	srv.Process.Kill()
	srv.Wait()
	awaitState(t, sub, "ev", host.StateConnecting)
	run()
	awaitState(t, sub, "ev", host.StateConnected)
	changed("a tool-list change after the listen stream was re-opened")
}

// Under 2026-07-28 a server asks for input (elicitation, sampling, roots)
// in an input-required result, not a request of its own; go-sdk answers
// and calls again, and the host's handlers are the ones asked, as under
// 2025-11-25.
func TestInputRequiredReachesTheHandlers(t *testing.T) {
	var elicited, sampled atomic.Int32
	opts := &host.Options{
		Elicitation: func(_ context.Context, server string, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			elicited.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		Sampling: func(_ context.Context, server string, _ *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			sampled.Add(1)
			return &mcp.CreateMessageResult{Model: "test", Role: "assistant", Content: &mcp.TextContent{Text: "sampled"}}, nil
		},
		Roots: []*mcp.Root{{URI: "file:///work", Name: "work"}},
	}
	h := start(t, opts, config.ServerConfig{Name: "go", Type: config.TransportHTTP, URL: peers.StartGoEverything(t, true)})
	ctx := context.Background()
	h.WaitSettled(ctx)
	if st := status(t, h, "go"); st.ProtocolVersion != config.ProtocolModern {
		t.Fatalf("go: %s %s %q", st.State, st.ProtocolVersion, st.Error)
	}
	for _, tool := range []string{"test_input_required_result_elicitation", "test_input_required_result_sampling",
		"test_input_required_result_list_roots", "test_input_required_result_multiple_inputs"} {
		res, err := h.CallTool(ctx, "mcp__go__"+tool, map[string]any{})
		if err != nil || res.IsError {
			t.Errorf("%s: %v %v", tool, err, res)
		}
	}
	if elicited.Load() < 2 || sampled.Load() < 2 {
		t.Errorf("handlers asked: elicitation %d, sampling %d; want each at least twice", elicited.Load(), sampled.Load())
	}
}

// go-sdk's own conformance server asks for a titled multi-select whose
// items name their type (`"type": "string"` beside `anyOf`), which
// go-sdk's client refuses before anyone is asked. The host lets it
// through to the handler, with the schema as the server sent it. (That
// server's go-sdk then refuses its own schema when the answer comes, so
// the call's result is its error; a gateway's client has been asked.)
func TestTitledMultiSelectReachesTheHandler(t *testing.T) {
	var asked atomic.Pointer[mcp.ElicitParams]
	opts := &host.Options{
		Elicitation: func(_ context.Context, _ string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			asked.Store(p)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{
				"untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
				"untitledMulti": []any{"option1"}, "titledMulti": []any{"value1", "value2"},
			}}, nil
		},
	}
	cmd, args := peers.GoEverythingStdio(t)
	h := start(t, opts, config.ServerConfig{Name: "go", Command: cmd, Args: args, ProtocolVersion: config.ProtocolLegacy})
	ctx := context.Background()
	h.WaitSettled(ctx)
	if _, err := h.CallTool(ctx, "mcp__go__test_elicitation_sep1330_enums", map[string]any{}); err != nil {
		t.Fatalf("call: %v", err)
	}
	p := asked.Load()
	if p == nil {
		t.Fatal("the handler was never asked")
	}
	schema, _ := p.RequestedSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	titled, _ := props["titledMulti"].(map[string]any)
	items, _ := titled["items"].(map[string]any)
	if items["type"] != "string" || items["anyOf"] == nil {
		t.Errorf("the handler saw items %v; want the server's own, type and anyOf", items)
	}
}
