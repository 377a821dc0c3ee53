package host_test

import (
	"context"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// These tests drive what server-everything and server-filesystem send
// back to the host (DESIGN.md F25–F27): progress, log notifications, resource
// updates, sampling, elicitation and roots. Every wait is on host events,
// bounded by await's generous limit.

// startEverythingStdio runs server-everything over stdio under a host
// built from opts, with a subscription opened before Start so no event
// of the connect is missed.
func startEverythingStdio(t *testing.T, opts *host.Options) (*host.Host, *host.Subscription) {
	t.Helper()
	command, args := peers.EverythingStdio(t)
	cfg := stdioPeer("everything", command, args, nil)
	cfg.Timeout = interopCallTimeout
	h := host.New(opts)
	t.Cleanup(func() { h.Close() })
	sub := h.Subscribe()
	t.Cleanup(sub.Close)
	if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	if st := status(t, h, "everything"); st.State != host.StateConnected {
		t.Fatalf("everything: %+v", st)
	}
	if err := h.WaitListed(context.Background()); err != nil { // resources follow the tools
		t.Fatal(err)
	}
	return h, sub
}

func TestEverythingProgress(t *testing.T) {
	h, sub := startEverythingStdio(t, nil)
	const tool = "mcp__everything__trigger-long-running-operation"
	const steps = 3
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		// duration is in seconds: a step every 100 ms.
		res, err := h.CallTool(context.Background(), tool, map[string]any{"duration": 0.3, "steps": steps})
		done <- result{res, err}
	}()
	// Every report names the call's tool, the last one too: go-sdk handles
	// it on another goroutine than the result, often after CallTool returned.
	for want := 1; want <= steps; want++ {
		e := await(t, sub, "progress event for "+tool, func(e host.Event) bool { return e.Type == host.EventProgress })
		if e.Tool != tool || e.Server != "everything" || e.Progress == nil {
			t.Fatalf("progress event = %+v (%+v); want one for %s", e, e.Progress, tool)
		}
		if e.Progress.Progress != float64(want) || e.Progress.Total != steps {
			t.Errorf("progress %d: got %v of %v", want, e.Progress.Progress, e.Progress.Total)
		}
	}
	r := <-done
	if r.err != nil || r.res.IsError || !strings.Contains(text(t, r.res), "completed") {
		t.Errorf("%s: %v %q", tool, r.err, resultText(r.res))
	}
}

// simulatedLog matches the messages of toggle-simulated-logging
// ("Error-level message", "Alert level-message"); nothing on its stderr
// looks like that, so a match came from notifications/message.
var simulatedLog = regexp.MustCompile(`^(\w+)[- ]level[- ]message`)

func TestEverythingLogging(t *testing.T) {
	// At debug every simulated message passes the server's level filter,
	// so the first arrives at once rather than on a later 5 s tick.
	h, sub := startEverythingStdio(t, &host.Options{LogLevel: "debug"})
	res, err := h.CallTool(context.Background(), "mcp__everything__toggle-simulated-logging", nil)
	if err != nil || res.IsError {
		t.Fatalf("toggle-simulated-logging: %v %q", err, resultText(res))
	}
	e := await(t, sub, "a simulated log notification", func(e host.Event) bool {
		return e.Type == host.EventLog && e.Server == "everything" && simulatedLog.MatchString(e.Message)
	})
	// The host maps MCP's eight levels to its three.
	want := host.LevelInfo
	switch strings.ToLower(simulatedLog.FindStringSubmatch(e.Message)[1]) {
	case "warning":
		want = host.LevelWarn
	case "error", "critical", "alert", "emergency":
		want = host.LevelError
	}
	if e.Level != want {
		t.Errorf("log %q has level %q, want %q", e.Message, e.Level, want)
	}
	lines, _ := h.Logs("everything")
	found := false
	for _, l := range lines {
		found = found || l.Text == e.Message
	}
	if !found {
		t.Errorf("log notification %q not in the server's log", e.Message)
	}
}

func TestEverythingResourceUpdated(t *testing.T) {
	h, sub := startEverythingStdio(t, nil)
	ctx := context.Background()
	uri := ""
	rs, _ := h.Resources()
	for _, r := range rs {
		if strings.HasPrefix(r.URI, "demo://resource/static/") {
			uri = r.URI
			break
		}
	}
	if uri == "" {
		t.Fatalf("no static resource among %d listed", len(rs))
	}
	if err := h.SubscribeResource(ctx, "everything", uri); err != nil {
		t.Fatal(err)
	}
	// The server sends updates only to sessions that toggled them on; it
	// sends one at once, then every 5 s.
	res, err := h.CallTool(ctx, "mcp__everything__toggle-subscriber-updates", nil)
	if err != nil || res.IsError {
		t.Fatalf("toggle-subscriber-updates: %v %q", err, resultText(res))
	}
	await(t, sub, "resources/updated for "+uri, func(e host.Event) bool {
		return e.Type == host.EventResourceUpdated && e.Server == "everything" && e.URI == uri
	})
}

func TestEverythingSamplingAndElicitation(t *testing.T) {
	type samplingCall struct {
		server, prompt string
	}
	var (
		mu      sync.Mutex
		sampled []samplingCall
		asked   []string
	)
	const reply = "a sampled reply from the test model"
	opts := &host.Options{
		Sampling: func(_ context.Context, server string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			var prompt string
			if len(p.Messages) > 0 {
				if tc, ok := p.Messages[0].Content.(*mcp.TextContent); ok {
					prompt = tc.Text
				}
			}
			mu.Lock()
			sampled = append(sampled, samplingCall{server, prompt})
			mu.Unlock()
			return &mcp.CreateMessageResult{
				Role: "assistant", Model: "test-model", StopReason: "endTurn",
				Content: &mcp.TextContent{Text: reply},
			}, nil
		},
		// Accepts with two fields; the host fills the others from the
		// schema's defaults (favourite integer 42, for one).
		Elicitation: func(_ context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, server)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace", "check": true}}, nil
		},
	}
	h, sub := startEverythingStdio(t, opts)
	ctx := context.Background()

	// Offered only to a client that declared the capability, after
	// initialize, announced with tools/list_changed.
	const sampling = "mcp__everything__trigger-sampling-request"
	awaitTool(t, h, sub, sampling)
	res, err := h.CallTool(ctx, sampling, map[string]any{"prompt": "say hello", "maxTokens": 20})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %q", sampling, err, resultText(res))
	}
	if got := text(t, res); !strings.Contains(got, reply) || !strings.Contains(got, "test-model") {
		t.Errorf("%s = %q; want the handler's reply in it", sampling, got)
	}
	mu.Lock()
	if len(sampled) != 1 || sampled[0].server != "everything" || !strings.Contains(sampled[0].prompt, "say hello") {
		t.Errorf("sampling handler calls = %+v; want one from everything with the prompt", sampled)
	}
	mu.Unlock()

	const elicitation = "mcp__everything__trigger-elicitation-request"
	awaitTool(t, h, sub, elicitation)
	res, err = h.CallTool(ctx, elicitation, nil)
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %q", elicitation, err, resultText(res))
	}
	got := text(t, res)
	for _, want := range []string{"User provided the requested information", "- Name: Ada Lovelace", "- Agreed to terms: true", "- Favorite Integer: 42"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s result lacks %q:\n%s", elicitation, want, got)
		}
	}
	mu.Lock()
	if len(asked) != 1 || asked[0] != "everything" {
		t.Errorf("elicitation handler calls = %v; want one from everything", asked)
	}
	mu.Unlock()
}

// server-filesystem started without directories takes its allowed
// directories from the client's roots.
func TestFilesystemRoots(t *testing.T) {
	dir := t.TempDir()
	command, args, env := peers.FilesystemStdio(t)
	h := host.New(&host.Options{Roots: []*mcp.Root{{URI: fileURI(dir), Name: "test"}}})
	t.Cleanup(func() { h.Close() })
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{stdioPeer("fs", command, args, env)}); err != nil {
		t.Fatal(err)
	}
	st := status(t, h, "fs")
	if st.State != host.StateConnected {
		t.Fatalf("fs: %+v", st)
	}
	// It asks for roots/list after initialized, then says so on stderr;
	// a call before that would still see no directories.
	await(t, sub, "fs took its directories from the roots", func(e host.Event) bool {
		return e.Type == host.EventLog && e.Server == "fs" && strings.Contains(e.Message, "allowed directories from MCP roots")
	})
	ctx := context.Background()
	res, err := h.CallTool(ctx, "mcp__fs__list_allowed_directories", nil)
	if err != nil || res.IsError || !strings.Contains(text(t, res), dir) {
		t.Errorf("list_allowed_directories: %v %q; want %s listed", err, resultText(res), dir)
	}
	res, err = h.CallTool(ctx, "mcp__fs__write_file", map[string]any{"path": filepath.Join(dir, "note.txt"), "content": "hi"})
	if err != nil || res.IsError {
		t.Fatalf("write_file: %v %q", err, resultText(res))
	}
	res, err = h.CallTool(ctx, "mcp__fs__list_directory", map[string]any{"path": dir})
	if err != nil || res.IsError || !strings.Contains(text(t, res), "[FILE] note.txt") {
		t.Errorf("list_directory: %v %q", err, resultText(res))
	}
	closeAndCheckGone(t, h, st.PID)
}

// fileURI turns an absolute path into a file:// URI.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
