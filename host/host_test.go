package host_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// TestMain doubles as the demo server: a config that runs this test binary
// with SWITCHBOARD_DEMO_SERVER=1 gets a real MCP server child process.
func TestMain(m *testing.M) {
	if demoserver.Serving() {
		os.Exit(demoserver.Run(os.Args[1:]))
	}
	if code, ok := rssProbe(); ok {
		os.Exit(code)
	}
	if kind := os.Getenv(envBenchServer); kind != "" {
		os.Exit(benchServer(kind))
	}
	// A race-built server child would otherwise pause a second at exit.
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	goleak.VerifyTestMain(peers.Reporting(m))
}

// demoServer is a config that starts the demo server with flags.
func demoServer(t testing.TB, name string, flags ...string) config.ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return demoConfig(exe, name, flags...)
}

// demoConfig is demoServer's config, for exe, the test binary.
func demoConfig(exe, name string, flags ...string) config.ServerConfig {
	return config.ServerConfig{
		Name:    name,
		Command: exe,
		Args:    append([]string{"--name", name}, flags...),
		Env:     map[string]string{demo.EnvServerMode: "1"},
		Source:  config.Source{Provider: "test", Path: "host_test.go", Level: config.LevelExplicit},
	}
}

// start runs a host over configs and closes it when the test ends.
func start(t testing.TB, opts *host.Options, configs ...config.ServerConfig) *host.Host {
	t.Helper()
	h := host.New(opts)
	t.Cleanup(func() { h.Close() })
	if err := h.Start(context.Background(), configs); err != nil {
		t.Fatal(err)
	}
	return h
}

func status(t testing.TB, h *host.Host, name string) host.Status {
	t.Helper()
	for _, s := range h.Status() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in status", name)
	return host.Status{}
}

func toolNamed(h *host.Host, name string) (host.Tool, bool) {
	for _, tool := range h.Tools().Tools {
		if tool.Name == name {
			return tool, true
		}
	}
	return host.Tool{}, false
}

func text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil {
		t.Fatal("nil result")
	}
	return host.ResultText(res)
}

// await reads events until one matches, failing after a generous bound
// that only a broken host reaches.
func await(t testing.TB, sub *host.Subscription, what string, match func(host.Event) bool) host.Event {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case e, ok := <-sub.C:
			if !ok {
				t.Fatalf("events closed while waiting for %s", what)
			}
			if match(e) {
				return e
			}
		case <-timeout:
			t.Fatalf("no event: %s", what)
		}
	}
}

func TestConnectListCall(t *testing.T) {
	h := start(t, nil, demoServer(t, "alpha"), demoServer(t, "beta"))
	if err := h.WaitSettled(context.Background()); err != nil { // resources and prompts too
		t.Fatal(err)
	}
	for _, name := range []string{"alpha", "beta"} {
		st := status(t, h, name)
		if st.State != host.StateConnected || st.PID == 0 || st.Tools < 8 || st.Resources != 1 || st.Prompts != 1 {
			t.Errorf("%s: %+v", name, st)
		}
	}
	set := h.Tools()
	for i := 1; i < len(set.Tools); i++ {
		if set.Tools[i-1].Name >= set.Tools[i].Name {
			t.Fatalf("tool set not sorted: %q before %q", set.Tools[i-1].Name, set.Tools[i].Name)
		}
	}
	tool, ok := toolNamed(h, "mcp__alpha__echo")
	if !ok || tool.Server != "alpha" || tool.Tool != "echo" || tool.Deferred {
		t.Fatalf("mcp__alpha__echo: %+v, %v", tool, ok)
	}
	res, err := h.CallTool(context.Background(), "mcp__alpha__echo", map[string]any{"text": "hi there"})
	if err != nil || res.IsError || text(t, res) != "hi there" {
		t.Fatalf("echo: %v, %+v", err, res)
	}
	res, err = h.CallTool(context.Background(), "mcp__beta__add", map[string]any{"a": 2, "b": 40})
	if err != nil || res.IsError {
		t.Fatalf("add: %v %+v", err, res)
	}
	if sc, ok := res.StructuredContent.(map[string]any); !ok || sc["sum"] != 42.0 {
		t.Errorf("add structured content = %#v", res.StructuredContent)
	}
	res, err = h.CallTool(context.Background(), "mcp__beta__tiny_image", nil)
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("tiny_image: %v %+v", err, res)
	}
	if img, ok := res.Content[0].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || len(img.Data) == 0 {
		t.Errorf("tiny_image content = %#v", res.Content[0])
	}
	res, err = h.CallTool(context.Background(), "mcp__beta__fail", map[string]any{"message": "nope"})
	if err != nil || !res.IsError {
		t.Errorf("fail: want an isError result and no Go error, got %v %+v", err, res)
	}
	if _, err := h.CallTool(context.Background(), "mcp__nobody__echo", nil); !errors.Is(err, host.ErrUnknownTool) {
		t.Errorf("unknown tool: err = %v", err)
	}

	rs, _ := h.Resources()
	if len(rs) != 2 {
		t.Errorf("resources = %d, want 2", len(rs))
	}
	rr, err := h.ReadResource(context.Background(), "alpha", "demo://readme")
	if err != nil || len(rr.Contents) == 0 || rr.Contents[0].Text == "" {
		t.Errorf("read demo://readme: %v %+v", err, rr)
	}
	pr, err := h.GetPrompt(context.Background(), "beta", "greet", map[string]string{"name": "Ada"})
	if err != nil || len(pr.Messages) == 0 {
		t.Errorf("greet: %v %+v", err, pr)
	}
}

// A slow server with a warm cache does not hold the gate: its tools come
// back deferred, and a call to one waits for the server and succeeds.
func TestSlowServerWarmCache(t *testing.T) {
	cache := t.TempDir()
	slowFlag := filepath.Join(t.TempDir(), "slow")
	slow := demoServer(t, "slow", "--init-delay", "4s", "--slow-when", slowFlag)
	fast := demoServer(t, "fast")
	// A gate far above a demo server's connect time, far below the slow
	// server's delay: a loaded machine cannot make either land on the
	// wrong side.
	opts := &host.Options{CacheDir: cache, StartupGate: 1500 * time.Millisecond}

	// First run: the slow server is fast this once, and fills the cache.
	h := host.New(opts)
	if err := h.Start(context.Background(), []config.ServerConfig{slow, fast}); err != nil {
		t.Fatal(err)
	}
	if st := status(t, h, "slow"); st.State != host.StateConnected {
		t.Fatalf("first run: %+v", st)
	}
	h.Close()
	if err := os.WriteFile(slowFlag, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	h = host.New(opts)
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{slow, fast}); err != nil {
		t.Fatal(err)
	}
	if st := status(t, h, "slow"); st.State != host.StateConnecting {
		t.Fatalf("with a warm cache, Start waited for the slow server: %+v", st)
	}
	if st := status(t, h, "fast"); st.State != host.StateConnected {
		t.Fatalf("fast server not connected at the gate: %+v", st)
	}
	tool, ok := toolNamed(h, "mcp__slow__echo")
	if !ok || !tool.Deferred {
		t.Fatalf("slow server's echo = %+v, %v; want a deferred tool", tool, ok)
	}
	if tool, _ := toolNamed(h, "mcp__fast__echo"); tool.Deferred {
		t.Error("the connected server's tool is deferred")
	}
	res, err := h.CallTool(context.Background(), "mcp__slow__echo", map[string]any{"text": "waited"})
	if err != nil || text(t, res) != "waited" {
		t.Fatalf("call to a deferred tool: %v %+v", err, res)
	}
	await(t, sub, "slow connected", func(e host.Event) bool {
		return e.Type == host.EventState && e.Server == "slow" && e.State == host.StateConnected
	})
	if tool, _ := toolNamed(h, "mcp__slow__echo"); tool.Deferred {
		t.Error("tool still deferred after its server connected")
	}

	// Without a cache the gate waits for it (correctness over speed).
	nocache := start(t, &host.Options{StartupGate: 100 * time.Millisecond}, slow)
	if st := status(t, nocache, "slow"); st.State != host.StateConnected {
		t.Errorf("without a cache, Start returned before the slow server connected: %+v", st)
	}
}

func TestFailingServerDoesNotStopOthers(t *testing.T) {
	bad := demoServer(t, "bad", "--fail-start")
	missing := config.ServerConfig{Name: "missing", Command: "/nonexistent/program"}
	invalid := config.ServerConfig{Name: "invalid", Err: errors.New("mcp.json:3:5: field \"url\": bad")}
	h := start(t, nil, bad, demoServer(t, "good"), missing, invalid)
	st := status(t, h, "bad")
	if st.State != host.StateFailed || !strings.Contains(st.Error, "configured to fail") {
		t.Errorf("bad: %+v (want failed, naming its stderr)", st)
	}
	if st := status(t, h, "missing"); st.State != host.StateFailed || st.Error == "" {
		t.Errorf("missing: %+v", st)
	}
	if st := status(t, h, "invalid"); st.State != host.StateFailed || !strings.Contains(st.Error, "mcp.json:3:5") {
		t.Errorf("invalid: %+v", st)
	}
	if st := status(t, h, "good"); st.State != host.StateConnected {
		t.Errorf("good: %+v", st)
	}
	if _, err := h.CallTool(context.Background(), "mcp__good__echo", map[string]any{"text": "x"}); err != nil {
		t.Error(err)
	}
}

func TestGarbageOnStdout(t *testing.T) {
	h := start(t, nil, demoServer(t, "noisy", "--garbage", "--stderr-lines"))
	if st := status(t, h, "noisy"); st.State != host.StateConnected {
		t.Fatalf("noisy: %+v", st)
	}
	res, err := h.CallTool(context.Background(), "mcp__noisy__echo", map[string]any{"text": "still fine"})
	if err != nil || text(t, res) != "still fine" {
		t.Fatalf("%v %+v", err, res)
	}
	lines, _ := h.Logs("noisy")
	var skipped, errs, infos int
	for _, l := range lines {
		switch {
		case strings.Contains(l.Text, "skipped non-JSON line"):
			skipped++
		case l.Level == host.LevelError:
			errs++
		case l.Level == host.LevelInfo:
			infos++
		}
	}
	if skipped == 0 || errs == 0 || infos == 0 {
		t.Errorf("log has %d skipped, %d error, %d info lines; want some of each:\n%+v", skipped, errs, infos, lines)
	}
}

func TestNamesWithOddCharacters(t *testing.T) {
	h := start(t, nil, demoServer(t, "odd.server 1", "--weird-names"))
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	seen := map[string]bool{}
	for _, tool := range h.Tools().Tools {
		if !valid.MatchString(tool.Name) {
			t.Errorf("%q (tool %q) is not a valid name", tool.Name, tool.Tool)
		}
		seen[tool.Tool] = true
	}
	for _, want := range []string{"s3", "s4", "a.b", "with space", "tool/with/slash"} {
		if !seen[want] {
			t.Errorf("tool %q missing", want)
		}
	}
	if n := len(h.Tools().Tools); n != len(seen) {
		t.Errorf("%d exposed names for %d tools", n, len(seen))
	}
	for _, tool := range h.Tools().Tools {
		res, err := h.CallTool(context.Background(), tool.Name, map[string]any{"text": "x"})
		if tool.Tool == "s3" && (err != nil || res.IsError) {
			t.Errorf("call %s: %v", tool.Name, err)
		}
	}
}

func TestCallCancelAndTimeout(t *testing.T) {
	quick := demoServer(t, "quick")
	quick.Timeout = 300 * time.Millisecond
	h := start(t, nil, demoServer(t, "d"), quick)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.CallTool(ctx, "mcp__d__sleep", map[string]any{"ms": 60000})
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: err = %v, want context.Canceled", err)
	}

	res, err := h.CallTool(context.Background(), "mcp__quick__sleep", map[string]any{"ms": 60000})
	var cerr *host.CallError
	if !errors.As(err, &cerr) || res == nil || !res.IsError || !strings.HasPrefix(text(t, res), "MCP error: ") {
		t.Errorf("timed-out call: %v, %+v", err, res)
	}
	// The server is still usable after both.
	if _, err := h.CallTool(context.Background(), "mcp__quick__echo", map[string]any{"text": "ok"}); err != nil {
		t.Error(err)
	}
}

func TestDisabledAndUntrusted(t *testing.T) {
	off := demoServer(t, "off")
	off.Disabled = true
	proj := demoServer(t, "proj")
	proj.Source.Level = config.LevelProject
	proj.Untrusted = true
	h := host.New(nil)
	t.Cleanup(func() { h.Close() })
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{off, proj}); err != nil {
		t.Fatal(err)
	}
	// Announced as they are placed: nothing else would say what they are.
	awaitState(t, sub, "off", host.StateDisabled)
	if e := awaitState(t, sub, "proj", host.StateUntrusted); !strings.Contains(e.Error, "switchboard trust") {
		t.Errorf("untrusted event: %+v", e)
	}
	if st := status(t, h, "off"); st.State != host.StateDisabled || st.PID != 0 {
		t.Errorf("off: %+v", st)
	}
	if st := status(t, h, "proj"); st.State != host.StateUntrusted || st.PID != 0 {
		t.Errorf("proj: %+v", st)
	}
	if n := len(h.Tools().Tools); n != 0 {
		t.Errorf("%d tools from servers that must not connect", n)
	}

	trusted := start(t, &host.Options{TrustProject: true}, proj)
	if st := status(t, trusted, "proj"); st.State != host.StateConnected {
		t.Errorf("trusted project server: %+v", st)
	}
}

func TestDisconnectRemovesTools(t *testing.T) {
	h := start(t, nil, demoServer(t, "a"), demoServer(t, "b"))
	pid := status(t, h, "a").PID
	sub := h.Subscribe()
	defer sub.Close()
	before := h.Tools()
	if err := h.Disconnect("a"); err != nil {
		t.Fatal(err)
	}
	after := h.Tools()
	if after.Version <= before.Version {
		t.Errorf("version %d -> %d", before.Version, after.Version)
	}
	for _, tool := range after.Tools {
		if tool.Server == "a" {
			t.Fatalf("tool %s left after Disconnect", tool.Name)
		}
	}
	await(t, sub, "tools event", func(e host.Event) bool { return e.Type == host.EventTools })
	if alive(pid) {
		t.Errorf("process %d still running after Disconnect", pid)
	}
	if err := h.Disconnect("a"); err != nil {
		t.Errorf("second Disconnect: %v", err)
	}
}

// Close leaves no process behind, even a server that ignores SIGTERM and
// one that left a grandchild; goleak in TestMain checks goroutines.
func TestCloseLeavesNothingRunning(t *testing.T) {
	h := host.New(nil)
	sub := h.Subscribe()
	err := h.Start(context.Background(), []config.ServerConfig{
		demoServer(t, "stubborn", "--ignore-sigterm"),
		demoServer(t, "parent", "--grandchild"),
		demoServer(t, "plain"),
	})
	if err != nil {
		t.Fatal(err)
	}
	grandchild := awaitGrandchild(t, sub)
	var pids []int
	for _, st := range h.Status() {
		if st.PID == 0 {
			t.Fatalf("%s has no pid: %+v", st.Name, st)
		}
		pids = append(pids, st.PID)
	}
	pids = append(pids, grandchild)

	// Concurrent and repeated Close calls are safe, and each returns once
	// the host is closed.
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- h.Close() }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d survived Close", pid)
		}
	}
	// Each Close returned only when the whole close was done: the events
	// have ended (those published before may still be buffered).
	for ended := false; !ended; {
		select {
		case _, ok := <-sub.C:
			ended = !ok
		default:
			t.Fatal("a Close returned before the host's events ended")
		}
	}
	if err := h.Start(context.Background(), nil); !errors.Is(err, host.ErrClosed) {
		t.Errorf("Start after Close: %v", err)
	}
}

// alive reports whether pid names a process that is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// Field 3 is the state; Z is a zombie waiting for a parent that is gone.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// awaitGrandchild reads the pid a --grandchild demo server reports.
func awaitGrandchild(t testing.TB, sub *host.Subscription) int {
	t.Helper()
	re := regexp.MustCompile(`grandchild pid (\d+)`)
	for {
		e := await(t, sub, "grandchild pid line", func(e host.Event) bool { return e.Type == host.EventLog })
		if m := re.FindStringSubmatch(e.Message); m != nil {
			pid, _ := strconv.Atoi(m[1])
			return pid
		}
	}
}

// ServersFor answers from the cache and the names alone: a server that
// would record its start is never started.
func TestServersFor(t *testing.T) {
	cache := t.TempDir()
	a := demoServer(t, "a")
	b := demoServer(t, "b")
	b.Tools = config.ToolFilter{Deny: []string{"add"}} // add is a's alone
	opts := &host.Options{CacheDir: cache}
	h := host.New(opts)
	if err := h.Start(context.Background(), []config.ServerConfig{a, b}); err != nil {
		t.Fatal(err)
	}
	if err := h.WaitListed(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.Close() // both servers' lists are cached now, prompts too
	marker := filepath.Join(t.TempDir(), "started")
	c := config.ServerConfig{Name: "c", Command: "/bin/sh", Args: []string{"-c", "touch " + marker},
		Source: config.Source{Provider: "test", Path: "host_test.go", Level: config.LevelExplicit}}
	configs := []config.ServerConfig{a, b, c}
	for _, tc := range []struct {
		kind host.Kind
		name string
		want []string
	}{
		{host.KindTool, "add", []string{"a"}},
		{host.KindTool, "mcp__b__echo", []string{"b"}},
		{host.KindTool, "b__echo", []string{"b"}},
		{host.KindTool, "c/anything", []string{"c"}},   // spelled, never cached
		{host.KindTool, "echo", []string{"a", "b"}},    // ambiguous: both
		{host.KindTool, "nosuch", nil},                 // nobody's: all
		{host.KindTool, "b/nosuch", nil},               // b's list lacks it: all, for "did you mean"
		{host.KindPrompt, "a/greet", []string{"a"}},    // the spelling
		{host.KindPrompt, "greet", []string{"a", "b"}}, // cached with the tools: both have it
	} {
		if got := host.ServersFor(opts, configs, tc.kind, tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("ServersFor(%v, %q) = %q, want %q", tc.kind, tc.name, got, tc.want)
		}
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ServersFor started a server (stat %s: %v)", marker, err)
	}
	if got := host.ServersFor(&host.Options{}, configs, host.KindTool, "add"); got != nil {
		t.Errorf("without a cache, ServersFor(add) = %q, want nil", got)
	}
}
