package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// served is an app with the demo server, serving HTTP on loopback.
type served struct {
	a    *app.App
	url  string // the listener's base: http://127.0.0.1:PORT
	done chan error
}

func serveDemo(t *testing.T, opts *app.Options, hopts gateway.HTTPOptions, flags ...string) *served {
	t.Helper()
	srv, err := demoserver.Config("demo", flags...)
	if err != nil {
		t.Fatal(err)
	}
	opts.Host = &host.Options{ToolPrefix: host.NoToolPrefix}
	opts.Gateway = &gateway.Options{}
	a, err := app.Start(context.Background(), &app.Loaded{Servers: []config.ServerConfig{srv}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &served{a: a, url: "http://" + ln.Addr().String(), done: make(chan error, 1)}
	go func() { s.done <- a.ServeHTTP(ctx, ln, hopts) }()
	t.Cleanup(func() {
		stop()
		<-s.done
		a.Close()
	})
	return s
}

func (s *served) connect(t *testing.T, progress func(*mcp.ProgressNotificationClientRequest)) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		if progress != nil {
			progress(r)
		}
	}})
	sess, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.url + gateway.Path, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func readAudit(t *testing.T, path string) []app.AuditLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []app.AuditLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l app.AuditLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("audit line %d does not parse: %v: %q", len(lines)+1, err, sc.Text())
		}
		lines = append(lines, l)
	}
	return lines
}

// TestAuditConcurrent: sixteen clients calling at once through the
// gateway leave one whole line per call; a failed call and a cancelled
// one have theirs, with their outcomes; arguments are a digest unless
// asked for, with secrets masked; the file is 0600.
func TestAuditConcurrent(t *testing.T) {
	file := filepath.Join(t.TempDir(), "audit.log")
	s := serveDemo(t, &app.Options{Audit: &app.AuditOptions{File: file, Args: true}}, gateway.HTTPOptions{})
	s.a.Host().AddSecrets("hunter2-secret")
	const clients, calls = 16, 8
	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for i := range clients {
		sess := s.connect(t, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range calls {
				text := fmt.Sprintf("client %d call %d %s", i, j, strings.Repeat("x", 512))
				res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": text}})
				if err == nil && res.IsError {
					err = errors.New("tool error")
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	sess := s.connect(t, nil)
	if res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__fail", Arguments: map[string]any{"message": "hunter2-secret"}}); err != nil || !res.IsError {
		t.Fatalf("fail: %+v, %v", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{}, 1)
	sess = s.connect(t, func(*mcp.ProgressNotificationClientRequest) { started <- struct{}{} })
	callDone := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"ms": 600000}}
		p.SetProgressToken("p")
		_, err := sess.CallTool(ctx, p)
		callDone <- err
	}()
	<-started
	cancel()
	<-callDone
	// The cancelled call's line is written when the host gave it up:
	// a call after it, on the same app, is written after it.
	if _, err := s.connect(t, nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "last"}}); err != nil {
		t.Fatal(err)
	}
	waitLines(t, file, clients*calls+3)

	lines := readAudit(t, file)
	outcomes := map[string]int{}
	for _, l := range lines {
		outcomes[l.Outcome]++
		if l.Server != "demo" || l.Method != "tools/call" || l.Session == "" || l.ArgsSHA == "" {
			t.Errorf("line lacks what it must say: %+v", l)
		}
		if l.Name == "fail" && (strings.Contains(string(l.Args), "hunter2") || !strings.Contains(string(l.Args), "redacted")) {
			t.Errorf("the fail call's arguments are not masked: %s", l.Args)
		}
	}
	if outcomes["ok"] != clients*calls+1 || outcomes["tool_error"] != 1 || outcomes["cancelled"] != 1 {
		t.Errorf("outcomes %v, want %d ok, 1 tool_error, 1 cancelled", outcomes, clients*calls+1)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode: %v, %v; want 0600", st.Mode(), err)
	}
}

// waitLines waits for the audit file to hold n lines: the last line of a
// call is written as its handler returns, which can be a moment after
// the client has its answer. It polls the file, bounded by eventBound.
func waitLines(t *testing.T, path string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), eventBound)
	defer cancel()
	for {
		data, _ := os.ReadFile(path)
		if got := strings.Count(string(data), "\n"); got >= n {
			if got > n {
				t.Fatalf("audit log has %d lines, want %d", got, n)
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("audit log never had %d lines", n)
		case <-pollTick():
		}
	}
}

// TestAuditRotateAndReopen: past MaxSize the file moves to FILE.1 and a
// new one begins; after logrotate moved the file, ReopenAudit writes to a
// new one at the name.
func TestAuditRotateAndReopen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "audit.log")
	s := serveDemo(t, &app.Options{Audit: &app.AuditOptions{File: file, MaxSize: 600}}, gateway.HTTPOptions{})
	sess := s.connect(t, nil)
	call := func() {
		t.Helper()
		if _, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		call()
	}
	// Each line is some 300 bytes: two fit in 600.
	waitLines(t, file, 2)
	if n := len(readAudit(t, file+".1")); n != 2 {
		t.Errorf("rotated file has %d lines, want 2", n)
	}
	if err := os.Rename(file, filepath.Join(dir, "moved.log")); err != nil {
		t.Fatal(err)
	}
	if err := s.a.ReopenAudit(); err != nil {
		t.Fatal(err)
	}
	call()
	waitLines(t, file, 1)
	if n := len(readAudit(t, filepath.Join(dir, "moved.log"))); n != 2 {
		t.Errorf("the moved file has %d lines, want 2", n)
	}
}

// TestDrain: /healthz and /readyz answer without the token and name no
// server without it; Drain turns /readyz to 503, refuses a new call and
// a new session, lets the call in flight finish, and ends ServeHTTP.
func TestDrain(t *testing.T) {
	file := filepath.Join(t.TempDir(), "audit.log")
	s := serveDemo(t, &app.Options{Audit: &app.AuditOptions{File: file}}, gateway.HTTPOptions{Token: "tok-123456"})
	get := func(path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.url+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
		return resp.StatusCode, b.String()
	}
	if code, _ := get(app.HealthPath, ""); code != 200 {
		t.Errorf("/healthz: %d", code)
	}
	if code, body := get(app.ReadyPath, ""); code != 200 || strings.Contains(body, "demo") {
		t.Errorf("/readyz without the token: %d %s; want 200 naming no server", code, body)
	}
	if code, body := get(app.ReadyPath, "tok-123456"); code != 200 || !strings.Contains(body, `"demo"`) {
		t.Errorf("/readyz with the token: %d %s; want 200 naming demo", code, body)
	}

	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	started := make(chan struct{}, 1)
	c = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { started <- struct{}{} }})
	hc := &http.Client{Transport: bearerTransport{"tok-123456", http.DefaultTransport}}
	sess, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.url + gateway.Path, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	slow := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"ms": 1500}}
		p.SetProgressToken("slow")
		res, err := sess.CallTool(context.Background(), p)
		if err == nil && res.IsError {
			err = errors.New("tool error")
		}
		slow <- err
	}()
	<-started
	drained := make(chan error, 1)
	go func() { drained <- s.a.Drain(context.Background()) }()
	waitFor(t, "the drain to begin", s.a.Draining)
	if code, body := get(app.ReadyPath, ""); code != 503 || !strings.Contains(body, "draining") || strings.Contains(body, "demo") {
		t.Errorf("/readyz draining: %d %s; want 503 saying draining, naming no server", code, body)
	}
	if _, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "late"}}); err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("a call during the drain: %v, want it refused", err)
	}
	if _, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.url + gateway.Path, HTTPClient: hc, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy}); err == nil {
		t.Error("a new session during the drain was taken")
	}
	if err := <-slow; err != nil {
		t.Errorf("the call in flight: %v, want it finished", err)
	}
	if err := <-drained; err != nil {
		t.Errorf("Drain: %v", err)
	}
	if err := <-s.done; err != nil {
		t.Errorf("ServeHTTP after the drain: %v", err)
	}
	s.done <- nil // for the cleanup
	outcomes := map[string]int{}
	for _, l := range readAudit(t, file) {
		outcomes[l.Outcome]++
	}
	if outcomes["ok"] != 1 || outcomes["refused"] != 1 {
		t.Errorf("audit outcomes %v, want the slow call ok and the late one refused", outcomes)
	}
}

// pollInterval is how often a test looks again at a file or a flag it
// cannot be told about.
const pollInterval = 10 * time.Millisecond

func pollTick() <-chan time.Time { return time.After(pollInterval) }

// waitFor polls cond until it holds, bounded by eventBound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	timeout := time.After(eventBound)
	for !cond() {
		select {
		case <-timeout:
			t.Fatalf("waited in vain for %s", what)
		case <-pollTick():
		}
	}
}

// TestAuditPromptAndRead: a prompt get and a resource read have their
// lines too, with the prompt's arguments as a digest and the sizes of
// what came back.
func TestAuditPromptAndRead(t *testing.T) {
	file := filepath.Join(t.TempDir(), "audit.log")
	s := serveDemo(t, &app.Options{Audit: &app.AuditOptions{File: file}}, gateway.HTTPOptions{})
	sess := s.connect(t, nil)
	ctx := context.Background()
	waitFor(t, "the demo's prompt and resource", func() bool {
		p, err1 := sess.ListPrompts(ctx, nil)
		r, err2 := sess.ListResources(ctx, nil)
		return err1 == nil && err2 == nil && len(p.Prompts) > 0 && len(r.Resources) > 0
	})
	if _, err := sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: "demo__greet", Arguments: map[string]string{"name": "Ada"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: demo.ReadmeURI}); err != nil {
		t.Fatal(err)
	}
	lines := readAudit(t, file)
	if len(lines) != 2 {
		t.Fatalf("audit lines: %+v, want 2", lines)
	}
	p, r := lines[0], lines[1]
	if p.Method != "prompts/get" || p.Server != "demo" || p.Name != "greet" || p.ArgsSHA == "" || p.Args != nil || p.Outcome != "ok" || p.Size == 0 {
		t.Errorf("the prompt's line: %+v", p)
	}
	if r.Method != "resources/read" || r.Server != "demo" || r.Name != demo.ReadmeURI || r.Outcome != "ok" || r.Size == 0 {
		t.Errorf("the read's line: %+v", r)
	}
}
