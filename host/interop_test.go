package host_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// The interop tests run the host against the real npm servers (PEERS.md),
// which nobody on this project wrote: they catch what our own demo server,
// built on the same SDK as the host, would agree with us about.

// everythingTools are the tools server-everything always offers (PEERS.md).
var everythingTools = []string{
	"echo", "get-sum", "get-env", "get-tiny-image", "get-structured-content",
	"get-annotated-message", "get-resource-links", "get-resource-reference",
	"gzip-file-as-resource", "toggle-simulated-logging", "toggle-subscriber-updates",
	"trigger-long-running-operation",
}

// interopCallTimeout bounds one request to a peer in these tests. Every
// call answers in milliseconds; a short bound keeps a broken connection from
// holding each call for config.DefaultTimeout.
const interopCallTimeout = 15 * time.Second

func TestEverythingInterop(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(t *testing.T) config.ServerConfig
		want config.Transport
		// listChanged: the server's tools/list_changed right after
		// initialize reliably reaches the client. On streamable HTTP it is
		// lost when no GET stream is open yet (PEERS.md pitfalls).
		listChanged bool
	}{
		{"stdio", func(t *testing.T) config.ServerConfig {
			command, args := peers.EverythingStdio(t)
			return config.ServerConfig{Command: command, Args: args}
		}, config.TransportStdio, true},
		{"sse", func(t *testing.T) config.ServerConfig {
			return config.ServerConfig{Type: config.TransportSSE, URL: peers.StartEverything(t, "sse")}
		}, config.TransportSSE, true},
		{"http", func(t *testing.T) config.ServerConfig {
			return config.ServerConfig{Type: config.TransportHTTP, URL: peers.StartEverything(t, "streamableHttp")}
		}, config.TransportHTTP, false},
		// A url without a type tries streamable HTTP first; the SSE server
		// refuses the POST and the host falls back.
		{"auto-sse", func(t *testing.T) config.ServerConfig {
			return config.ServerConfig{URL: peers.StartEverything(t, "sse")}
		}, config.TransportSSE, true},
		{"auto-http", func(t *testing.T) config.ServerConfig {
			return config.ServerConfig{URL: peers.StartEverything(t, "streamableHttp")}
		}, config.TransportHTTP, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg(t)
			cfg.Name = "everything"
			cfg.Timeout = interopCallTimeout
			cfg.Source = config.Source{Provider: "test", Path: "interop_test.go", Level: config.LevelExplicit}

			h := host.New(nil)
			t.Cleanup(func() { h.Close() })
			sub := h.Subscribe()
			defer sub.Close()
			ctx := context.Background()
			if err := h.Start(ctx, []config.ServerConfig{cfg}); err != nil {
				t.Fatal(err)
			}
			if err := h.WaitSettled(ctx); err != nil {
				t.Fatal(err)
			}
			st := status(t, h, "everything")
			if st.State != host.StateConnected || st.Transport != tt.want {
				t.Fatalf("status = %+v; want connected over %q", st, tt.want)
			}
			if tt.listChanged {
				// The host declares roots, so the server adds get-roots-list
				// after initialize and says so with tools/list_changed.
				awaitTool(t, h, sub, "mcp__everything__get-roots-list")
			}
			var names []string
			for _, tool := range h.Tools().Tools {
				names = append(names, tool.Tool)
			}
			if len(names) < 13 {
				t.Errorf("%d tools, want at least 13: %v", len(names), names)
			}
			for _, want := range everythingTools {
				if !slices.Contains(names, want) {
					t.Errorf("tool %q missing from %v", want, names)
				}
			}

			checkEverythingCalls(t, h)
			checkEverythingCatalog(t, h)

			if tt.want == config.TransportStdio {
				closeAndCheckGone(t, h, st.PID)
			}
		})
	}
}

// checkEverythingCalls calls tools whose results differ in shape: text,
// a computed text, structured content, an image.
func checkEverythingCalls(t *testing.T, h *host.Host) {
	t.Helper()
	ctx := context.Background()
	res, err := h.CallTool(ctx, "mcp__everything__echo", map[string]any{"message": "hello interop"})
	if err != nil || res.IsError || !strings.Contains(text(t, res), "hello interop") {
		t.Errorf("echo: %v %q", err, resultText(res))
	}
	res, err = h.CallTool(ctx, "mcp__everything__get-sum", map[string]any{"a": 2, "b": 40})
	if err != nil || res.IsError || !strings.Contains(text(t, res), "is 42") {
		t.Errorf("get-sum: %v %q", err, resultText(res))
	}

	tool, ok := toolNamed(h, "mcp__everything__get-structured-content")
	if !ok {
		t.Fatal("get-structured-content not in the tool set")
	}
	location := firstEnum(t, tool.InputSchema, "location")
	res, err = h.CallTool(ctx, tool.Name, map[string]any{"location": location})
	if err != nil || res.IsError || res.StructuredContent == nil {
		t.Errorf("get-structured-content(%q): %v %+v", location, err, res)
	} else if sc, ok := res.StructuredContent.(map[string]any); !ok || sc["temperature"] == nil {
		t.Errorf("get-structured-content: structured content = %#v", res.StructuredContent)
	}

	res, err = h.CallTool(ctx, "mcp__everything__get-tiny-image", nil)
	if err != nil || res.IsError {
		t.Fatalf("get-tiny-image: %v %q", err, resultText(res))
	}
	i := slices.IndexFunc(res.Content, func(c mcp.Content) bool {
		img, ok := c.(*mcp.ImageContent)
		return ok && img.MIMEType == "image/png" && len(img.Data) > 0
	})
	if i < 0 {
		t.Errorf("get-tiny-image: no PNG image in %q", host.ResultText(res))
	}
}

func checkEverythingCatalog(t *testing.T, h *host.Host) {
	t.Helper()
	ctx := context.Background()
	rs, _ := h.Resources()
	if len(rs) == 0 {
		t.Fatal("no resources listed")
	}
	rr, err := h.ReadResource(ctx, "everything", rs[0].URI)
	if err != nil || len(rr.Contents) == 0 || rr.Contents[0].Text == "" && len(rr.Contents[0].Blob) == 0 {
		t.Errorf("read %s: %v %+v", rs[0].URI, err, rr)
	}

	ps := h.Prompts()
	if !slices.ContainsFunc(ps, func(p host.Prompt) bool { return p.Name == "simple-prompt" }) {
		t.Errorf("prompts %v lack simple-prompt", ps)
	}
	pr, err := h.GetPrompt(ctx, "everything", "simple-prompt", nil)
	if err != nil || len(pr.Messages) == 0 {
		t.Fatalf("simple-prompt: %v %+v", err, pr)
	}
	if tc, ok := pr.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "simple prompt") {
		t.Errorf("simple-prompt message = %#v", pr.Messages[0].Content)
	}
}

func TestFilesystemInterop(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	command, args, env := peers.FilesystemStdio(t, dir)
	h := start(t, nil, stdioPeer("fs", command, args, env))
	st := status(t, h, "fs")
	if st.State != host.StateConnected || st.Tools < 10 {
		t.Fatalf("fs: %+v", st)
	}
	res, err := h.CallTool(context.Background(), "mcp__fs__list_directory", map[string]any{"path": dir})
	if err != nil || res.IsError || !strings.Contains(text(t, res), "[FILE] hello.txt") {
		t.Errorf("list_directory: %v %q", err, resultText(res))
	}
	closeAndCheckGone(t, h, st.PID)
}

func TestMemoryInterop(t *testing.T) {
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	command, args, env := peers.MemoryStdio(t, file)
	h := start(t, nil, stdioPeer("memory", command, args, env))
	st := status(t, h, "memory")
	if st.State != host.StateConnected || st.Tools < 9 {
		t.Fatalf("memory: %+v", st)
	}
	ctx := context.Background()
	entity := map[string]any{"name": "Ada_Lovelace", "entityType": "person", "observations": []string{"wrote the first program"}}
	res, err := h.CallTool(ctx, "mcp__memory__create_entities", map[string]any{"entities": []any{entity}})
	if err != nil || res.IsError {
		t.Fatalf("create_entities: %v %q", err, resultText(res))
	}
	res, err = h.CallTool(ctx, "mcp__memory__read_graph", nil)
	if err != nil || res.IsError {
		t.Fatalf("read_graph: %v %q", err, resultText(res))
	}
	if got := text(t, res); !strings.Contains(got, "Ada_Lovelace") || !strings.Contains(got, "wrote the first program") {
		t.Errorf("read_graph = %q, want the entity just created", got)
	}
	if data, err := os.ReadFile(file); err != nil || !strings.Contains(string(data), "Ada_Lovelace") {
		t.Errorf("memory file %s: %v %q", file, err, data)
	}
	closeAndCheckGone(t, h, st.PID)
}

// stdioPeer turns a peers helper's command line and "KEY=VALUE" list into a config.
func stdioPeer(name, command string, args, env []string) config.ServerConfig {
	cfg := config.ServerConfig{
		Name:    name,
		Command: command,
		Args:    args,
		Source:  config.Source{Provider: "test", Path: "interop_test.go", Level: config.LevelExplicit},
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if cfg.Env == nil {
			cfg.Env = map[string]string{}
		}
		cfg.Env[k] = v
	}
	return cfg
}

// awaitTool returns once the tool set holds name, reading tool events
// until it does.
func awaitTool(t *testing.T, h *host.Host, sub *host.Subscription, name string) {
	t.Helper()
	for {
		if _, ok := toolNamed(h, name); ok {
			return
		}
		await(t, sub, "tool "+name, func(e host.Event) bool { return e.Type == host.EventTools })
	}
}

// closeAndCheckGone closes h and checks that the server process pid (node,
// which keeps running on timers after stdin closes) did not survive.
func closeAndCheckGone(t *testing.T, h *host.Host, pid int) {
	t.Helper()
	if pid == 0 {
		t.Fatal("stdio server has no pid in Status")
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("server process %d survived Close", pid)
	}
}

// firstEnum reads the first allowed value of a string property from a
// tool's input schema, so the test passes what the server really accepts.
func firstEnum(t *testing.T, schema any, prop string) string {
	t.Helper()
	s, _ := schema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	p, _ := props[prop].(map[string]any)
	enum, _ := p["enum"].([]any)
	if len(enum) == 0 {
		t.Fatalf("input schema has no enum for %q: %#v", prop, schema)
	}
	v, ok := enum[0].(string)
	if !ok {
		t.Fatalf("enum of %q holds %#v, want strings", prop, enum[0])
	}
	return v
}

// resultText is host.ResultText that tolerates nil, for failure messages.
func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return "<nil result>"
	}
	return host.ResultText(res)
}
