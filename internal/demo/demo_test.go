package demo_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// eventTimeout bounds every wait for something the server should do
// promptly; it is generous so a loaded CI machine does not flake, and only
// reached when a test is already failing.
const eventTimeout = 30 * time.Second

func TestMain(m *testing.M) {
	if os.Getenv(demo.EnvServerMode) == "1" {
		os.Exit(demo.Main(os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

// connect serves NewServer(opts) in memory and returns a connected client.
func connect(t *testing.T, opts demo.Options, copts *mcp.ClientOptions) (*mcp.Server, *mcp.ClientSession) {
	t.Helper()
	ctx := t.Context()
	s := demo.NewServer(opts)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, copts)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return s, cs
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(eventTimeout):
		t.Fatalf("timed out after %v waiting for %s", eventTimeout, what)
		panic("unreachable")
	}
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

var baseTools = []string{"add", "echo", "fail", "now", "pid", "sha256", "sleep", "tiny_image"}

func TestToolList(t *testing.T) {
	tests := []struct {
		name string
		opts demo.Options
		want []string
	}{
		{"default", demo.Options{}, baseTools},
		{"tools-count", demo.Options{ToolsCount: 3}, append([]string{"extra_0", "extra_1", "extra_2"}, baseTools...)},
		{"weird-names", demo.Options{WeirdNames: true}, append(slices.Clone(baseTools), demo.WeirdToolNames...)},
		{"escapes", demo.Options{Escapes: true}, append(slices.Clone(baseTools), "escapes", "escapes_error")},
		{"reply-tools", demo.Options{ReplyTools: true}, append(slices.Clone(baseTools), "big_log", "big_reply", demo.DeepReplyTool)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, cs := connect(t, tt.opts, nil)
			want := slices.Sorted(slices.Values(tt.want))
			if diff := cmp.Diff(want, toolNames(t, cs)); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if got := cs.InitializeResult().ServerInfo.Name; got != demo.DefaultName {
				t.Errorf("server name = %q, want %q", got, demo.DefaultName)
			}
		})
	}
}

func TestWeirdLongNames(t *testing.T) {
	var long []string
	for _, n := range demo.WeirdToolNames {
		if len(n) == 80 {
			long = append(long, n)
		}
	}
	if len(long) != 2 || long[0] == long[1] || long[0][:70] != long[1][:70] {
		t.Fatalf("want two distinct 80-character names sharing 70 characters, got %q", long)
	}
	_, cs := connect(t, demo.Options{WeirdNames: true}, nil)
	for _, n := range demo.WeirdToolNames {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: n, Arguments: map[string]any{"text": n}})
		if err != nil {
			t.Fatalf("call %q: %v", n, err)
		}
		if got := textOf(t, res); got != n {
			t.Errorf("call %q = %q, want it echoed", n, got)
		}
	}
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("got %d content items, want 1: %+v", len(res.Content), res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}

func TestCallTools(t *testing.T) {
	digest := sha256.Sum256([]byte("abc"))
	tests := []struct {
		tool           string
		args           map[string]any
		wantText       string
		wantStructured string // JSON, empty for none
		wantError      bool
	}{
		{tool: "echo", args: map[string]any{"text": "hello"}, wantText: "hello"},
		{tool: "add", args: map[string]any{"a": 2, "b": 3.5}, wantText: "5.5", wantStructured: `{"sum":5.5}`},
		{tool: "sha256", args: map[string]any{"text": "abc"}, wantText: hex.EncodeToString(digest[:])},
		{tool: "fail", args: map[string]any{"message": "boom"}, wantText: "boom", wantError: true},
		{tool: "pid", wantText: strconv.Itoa(os.Getpid())},
		{tool: "sleep", args: map[string]any{"ms": 1}, wantText: "slept 1 ms"},
		{tool: "now", args: map[string]any{"timezone": "Not/AZone"}, wantError: true},
		{tool: "add", args: map[string]any{"a": "x", "b": 1}, wantError: true},
	}
	_, cs := connect(t, demo.Options{}, nil)
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.wantError {
				t.Fatalf("IsError = %v, want %v; content %+v", res.IsError, tt.wantError, res.Content)
			}
			if tt.wantText != "" {
				if got := textOf(t, res); got != tt.wantText {
					t.Errorf("text = %q, want %q", got, tt.wantText)
				}
			}
			if tt.wantStructured != "" {
				got, err := json.Marshal(res.StructuredContent)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tt.wantStructured {
					t.Errorf("structured = %s, want %s", got, tt.wantStructured)
				}
			}
		})
	}
}

// TestEscapes: --escapes carries the payload, whole, everywhere a host
// may show it to a person.
func TestEscapes(t *testing.T) {
	_, cs := connect(t, demo.Options{Escapes: true}, nil)
	ctx := t.Context()
	var desc string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "escapes" {
			desc = tool.Description
		}
	}
	if !strings.HasPrefix(desc, demo.EscapePayload) {
		t.Errorf("escapes' description = %q, want the payload", desc)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "escapes"})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.HasPrefix(tc.Text, demo.EscapePayload+"\n") {
		t.Errorf("escapes' result = %+v, want the payload first", res.Content)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "escapes_error"}); err == nil || !strings.Contains(err.Error(), demo.EscapePayload) {
		t.Errorf("escapes_error: %v, want a protocol error with the payload", err)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: demo.EscapeURI})
	if err != nil || !strings.HasPrefix(rr.Contents[0].Text, demo.EscapePayload) {
		t.Errorf("read %s = %+v, %v; want the payload", demo.EscapeURI, rr, err)
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "escapes"})
	if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != demo.EscapePayload {
		t.Errorf("prompt escapes = %+v, %v; want the payload", pr, err)
	}
}

func TestNow(t *testing.T) {
	_, cs := connect(t, demo.Options{}, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "now", Arguments: map[string]any{"timezone": "UTC"}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Time string `json:"time"`
		Unix int64  `json:"unix"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	ts, err := time.Parse(time.RFC3339, out.Time)
	if err != nil {
		t.Fatalf("time %q: %v", out.Time, err)
	}
	if ts.Unix() != out.Unix || textOf(t, res) != out.Time || !strings.HasSuffix(out.Time, "Z") {
		t.Errorf("inconsistent result: text %q, structured %+v", textOf(t, res), out)
	}
}

func TestTinyImage(t *testing.T) {
	_, cs := connect(t, demo.Options{}, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "tiny_image"})
	if err != nil {
		t.Fatal(err)
	}
	img, ok := res.Content[0].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("content = %+v, want a PNG image", res.Content)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != 8 || cfg.Height != 8 {
		t.Errorf("image is %dx%d, want 8x8", cfg.Width, cfg.Height)
	}
}

// TestSleepCancelled checks that cancelling a call ends the handler early:
// progress says the handler is sleeping, a middleware reports its result.
func TestSleepCancelled(t *testing.T) {
	started := make(chan struct{}, 1)
	s, cs := connect(t, demo.Options{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			started <- struct{}{}
		},
	})
	handled := make(chan mcp.Result, 1)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/call" {
				handled <- res
			}
			return res, err
		}
	})

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	params := &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 10 * 60 * 1000}}
	params.SetProgressToken("sleep-1")
	callErr := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, params)
		callErr <- err
	}()
	recv(t, started, "sleep to start")
	cancel()
	if err := recv(t, callErr, "the call to return"); err == nil {
		t.Error("cancelled call succeeded")
	}
	res, ok := recv(t, handled, "the handler to return").(*mcp.CallToolResult)
	if !ok || !res.IsError || !strings.Contains(textOf(t, res), "sleep cancelled") {
		t.Errorf("handler result = %+v, want a cancellation error", res)
	}
}

func TestReadme(t *testing.T) {
	_, cs := connect(t, demo.Options{}, nil)
	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: demo.ReadmeURI})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "text/markdown" || !strings.Contains(res.Contents[0].Text, "demo server") {
		t.Errorf("readme = %+v", res.Contents)
	}
}

func TestGreet(t *testing.T) {
	_, cs := connect(t, demo.Options{}, nil)
	res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || !strings.Contains(res.Messages[0].Content.(*mcp.TextContent).Text, "Ada") {
		t.Errorf("messages = %+v", res.Messages)
	}
	if _, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "greet"}); err == nil {
		t.Error("greet without a name succeeded")
	}
}

// TestRootsTool: --roots lists what the client offers as roots, and says
// so when it offers none.
func TestRootsTool(t *testing.T) {
	for _, tc := range []struct {
		roots []*mcp.Root
		want  string
	}{
		{nil, "no roots"},
		{[]*mcp.Root{{URI: "file:///work/project", Name: "project"}, {URI: "file:///tmp/other", Name: "other"}},
			"file:///tmp/other other\nfile:///work/project project"}, // go-sdk lists them by URI
	} {
		s := demo.NewServer(demo.Options{Roots: true})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
		client.AddRoots(tc.roots...)
		// The version switchboard's host speaks: from 2026-07-28 on, a
		// server may not send requests while it serves one.
		cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "roots"})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != tc.want {
			t.Errorf("roots with %d offered = %q, want %q", len(tc.roots), got, tc.want)
		}
		cs.Close()
		ss.Wait()
	}
}

// --hold-lists holds resources/list, resources/templates/list and
// prompts/list until its file exists, and answers tools/list and calls
// meanwhile.
func TestHoldLists(t *testing.T) {
	file := filepath.Join(t.TempDir(), "release")
	_, cs := connect(t, demo.Options{HoldLists: file}, nil)
	ctx := t.Context()
	type listed struct {
		n   int
		err error
	}
	resources := make(chan listed, 1)
	go func() {
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			resources <- listed{err: err}
			return
		}
		resources <- listed{n: len(res.Resources)}
	}()
	if got := toolNames(t, cs); len(got) != len(baseTools) {
		t.Errorf("tools while lists are held: %q", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "still here"}})
	if err != nil || res.IsError {
		t.Fatalf("call while lists are held: %v %+v", err, res)
	}
	select {
	case r := <-resources:
		t.Fatalf("resources/list answered before its file exists: %+v", r)
	default:
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := recv(t, resources, "resources/list"); r.err != nil || r.n != 1 {
		t.Errorf("resources/list once released: %+v", r)
	}
	if ps, err := cs.ListPrompts(ctx, nil); err != nil || len(ps.Prompts) != 1 {
		t.Errorf("prompts/list once released: %v %+v", err, ps)
	}
}
