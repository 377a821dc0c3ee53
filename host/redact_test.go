package host_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// The tests of DESIGN.md F44: each reproduces one way issue 9 saw a secret
// leave the host, and checks every way out — Status, events, logs, the
// host's own log, call errors — for it.

// leakWatch collects everything a host lets out while a test runs.
type leakWatch struct {
	t   *testing.T
	sub *host.Subscription
	log syncBuffer
	mu  sync.Mutex
	out []string // event texts, as they arrive
}

func newLeakWatch(t *testing.T) (*leakWatch, *host.Options) {
	w := &leakWatch{t: t}
	opts := &host.Options{Logger: slog.New(slog.NewTextHandler(&w.log, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	return w, opts
}

// subscribe starts collecting h's events; wait for the awaited event with
// next.
func (w *leakWatch) subscribe(h *host.Host) {
	w.sub = h.Subscribe()
	w.t.Cleanup(w.sub.Close)
}

// next waits for an event, keeping every event it reads.
func (w *leakWatch) next(what string, match func(host.Event) bool) host.Event {
	w.t.Helper()
	return await(w.t, w.sub, what, func(e host.Event) bool {
		b, _ := json.Marshal(e)
		w.mu.Lock()
		w.out = append(w.out, string(b))
		w.mu.Unlock()
		return match(e)
	})
}

// check fails for every secret found in what h shows now or showed.
func (w *leakWatch) check(h *host.Host, secrets ...string) {
	w.t.Helper()
	texts := map[string]string{}
	st, _ := json.Marshal(h.Status())
	texts["Status"] = string(st)
	for _, s := range h.Status() {
		lines, _ := h.Logs(s.Name)
		b, _ := json.Marshal(lines)
		texts["Logs("+s.Name+")"] = string(b)
	}
	w.mu.Lock()
	texts["events"] = strings.Join(w.out, "\n")
	w.mu.Unlock()
	texts["the host's log"] = w.log.String()
	for where, text := range texts {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				w.t.Errorf("%s holds the secret %q:\n%s", where, s, text)
			}
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func failed(server string) func(host.Event) bool {
	return func(e host.Event) bool {
		return e.Type == host.EventState && e.Server == server && e.State == host.StateFailed
	}
}

// A ${VAR} in a url's query reached the error text through net/http's
// "Post <url>: …", and with it Status, events and the host's log.
func TestURLQuerySecretMasked(t *testing.T) {
	const key = "query-secret-7f3a9c"
	// A server that drops every connection: the error quotes the url.
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	defer srv.Close()
	w, opts := newLeakWatch(t)
	h := host.New(opts)
	defer h.Close()
	w.subscribe(h)
	cfg := config.ServerConfig{Name: "remote", Type: config.TransportHTTP, URL: srv.URL + "/mcp?api_key=" + key + "&v=1"}
	if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	e := w.next("remote fails", failed("remote"))
	if !strings.Contains(e.Error, srv.URL+"/mcp?api_key=«redacted»&v=1") {
		t.Errorf("the error should still name the url, with its key masked: %q", e.Error)
	}
	w.check(h, key)
}

// A server that prints its environment when it cannot start put every env
// value — plain ones and "!command" outputs, which are plain values by the
// time the host has them — in the error, the events and the logs.
func TestServerEnvironmentMasked(t *testing.T) {
	const token, fromCommand = "plain-token-5d2e81", "command-output-a4b7c2"
	w, opts := newLeakWatch(t)
	h := host.New(opts)
	defer h.Close()
	w.subscribe(h)
	cfg := demoServer(t, "dumper", "--dump-env")
	cfg.Env["TOKEN"] = token
	cfg.Env["FROM_HELPER"] = fromCommand
	cfg.Env["DEBUG"] = "true" // a setting, not a secret
	if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	e := w.next("dumper fails", failed("dumper"))
	if !strings.Contains(e.Error, demo.DumpEnvError) {
		t.Errorf("the error should quote the stderr: %q", e.Error)
	}
	// The error quotes the head of the line (said.go); the log has it whole.
	lines, _ := h.Logs("dumper")
	b, _ := json.Marshal(lines)
	if !strings.Contains(string(b), "TOKEN=«redacted»") || !strings.Contains(string(b), "DEBUG=true") {
		t.Errorf("the log should have the stderr, masked: %s", b)
	}
	w.check(h, token, fromCommand)
}

// echoAuth answers 403 with a JSON-RPC error that quotes the Authorization
// header it got, to every request when next is nil and to tool calls
// otherwise: the server of issue 9 that echoed a bearer token.
func echoAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		if next != nil && msg.Method != "tools/call" {
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(rw, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":%q}}`,
			jsonOf(msg.ID), "forbidden: you sent Authorization: "+r.Header.Get("Authorization"))
	})
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestEchoedAuthorizationMasked(t *testing.T) {
	const bearer, user, pass = "bearer-token-91c3d4", "alice-8e1f", "hunter-2b6d"
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	srv := httptest.NewServer(echoAuth(nil))
	defer srv.Close()
	w, opts := newLeakWatch(t)
	h := host.New(opts)
	defer h.Close()
	w.subscribe(h)
	withUser := strings.Replace(srv.URL, "http://", "http://"+user+":"+pass+"@", 1)
	configs := []config.ServerConfig{
		{Name: "bearer", Type: config.TransportHTTP, URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer " + bearer}},
		{Name: "userinfo", Type: config.TransportHTTP, URL: withUser},
	}
	if err := h.Start(context.Background(), configs); err != nil {
		t.Fatal(err)
	}
	left := map[string]bool{"bearer": true, "userinfo": true}
	for len(left) > 0 {
		e := w.next("both fail", func(e host.Event) bool { return left[e.Server] && e.State == host.StateFailed })
		delete(left, e.Server)
		if !strings.Contains(e.Error, "you sent Authorization: ") || !strings.Contains(e.Error, "«redacted»") {
			t.Errorf("%s: the error should quote the server, masked: %q", e.Server, e.Error)
		}
	}
	w.check(h, bearer, basic, user, pass)
}

// A call whose server answers 403 quoting the header: the call's error
// and the result an agent reads are masked.
func TestEchoedAuthorizationInCallMasked(t *testing.T) {
	const bearer = "bearer-token-3e7a55"
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return demo.NewServer(demo.Options{}) }, nil)
	srv := httptest.NewServer(echoAuth(mcpHandler))
	t.Cleanup(srv.Close) // after the host's Close: its event stream holds a connection
	w, opts := newLeakWatch(t)
	cfg := config.ServerConfig{Name: "api", Type: config.TransportHTTP, URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer " + bearer}}
	h := start(t, opts, cfg)
	res, err := h.CallTool(context.Background(), "mcp__api__echo", map[string]any{"text": "hi"})
	if err == nil {
		t.Fatalf("the call worked: %v", text(t, res))
	}
	for what, s := range map[string]string{"error": err.Error(), "result": text(t, res)} {
		if strings.Contains(s, bearer) || !strings.Contains(s, "you sent Authorization: Bearer «redacted»") {
			t.Errorf("%s: %q", what, s)
		}
	}
	var cerr *host.CallError
	if !errors.As(err, &cerr) || cerr.Server != "api" || strings.Contains(cerr.Err.Error(), bearer) {
		t.Errorf("want a masked *CallError, got %#v", err)
	}
	w.check(h, bearer)
}

// Reload learns the new configs' secrets; a variable substituted into the
// config is masked too, and so is what a server says about itself.
func TestReloadLearnsSecrets(t *testing.T) {
	const first, second, variable = "first-token-0a1b2c", "second-token-3d4e5f", "variable-value-6a7b8c"
	w, opts := newLeakWatch(t)
	h := host.New(opts)
	defer h.Close()
	w.subscribe(h)
	a := demoServer(t, "dumper", "--dump-env")
	a.Env["TOKEN"] = first
	if err := h.Start(context.Background(), []config.ServerConfig{a}); err != nil {
		t.Fatal(err)
	}
	w.next("the first dumper fails", failed("dumper"))
	b := demoServer(t, "dumper", "--dump-env")
	b.Env["TOKEN"] = second
	// The variable's value is the server's name: what it reports in
	// initialize, which Status shows.
	named := demoServer(t, "named")
	named.Args = []string{"--name", variable}
	named.Substituted = map[string]string{"SERVER_NAME": variable}
	if _, err := h.Reload(context.Background(), []config.ServerConfig{b, named}); err != nil {
		t.Fatal(err)
	}
	w.next("the new dumper fails", failed("dumper"))
	if st := status(t, h, "named"); st.State != host.StateConnected || st.ServerInfo == nil || st.ServerInfo.Name != "«redacted»" {
		t.Errorf("named: %+v", st)
	}
	w.check(h, first, second, variable)
}

// AddSecrets is how a value got at run time (an OAuth token) joins them.
func TestAddSecrets(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	h.AddSecrets("oauth-token-9f8e7d")
	if got := h.Redact("refresh failed for oauth-token-9f8e7d"); got != "refresh failed for «redacted»" {
		t.Errorf("Redact = %q", got)
	}
}

// TestSecretAcrossTheCutMasked: a secret that straddles where a long
// stderr line, or a line of stdout noise, is cut is masked whole: the
// host masks first and cuts after. Before, 40 of a 44-byte secret showed.
func TestSecretAcrossTheCutMasked(t *testing.T) {
	const token = "tok-7f3a9c2e51b84d06a1e2c3f4b5d6e7f80912ab34" // 44 bytes
	w, opts := newLeakWatch(t)
	h := host.New(opts)
	defer h.Close()
	w.subscribe(h)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The padding puts 40 bytes of the token before each cut: 8 KiB for
	// a stderr line, 512 bytes for stdout noise.
	script := `pad() { head -c "$1" /dev/zero | tr '\0' x; }
{ pad 8152; printf '%s' "$TOKEN"; pad 200; echo; } >&2
{ pad 472; printf '%s' "$TOKEN"; pad 200; echo; }
echo stderr-done >&2
exec "$0" --name cut`
	cfg := config.ServerConfig{
		Name: "cut", Command: "/bin/sh", Args: []string{"-c", script, exe},
		Env:    map[string]string{demo.EnvServerMode: "1", "TOKEN": token},
		Source: config.Source{Provider: "test", Path: "redact_test.go", Level: config.LevelExplicit},
	}
	if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	w.next("the last stderr line", func(e host.Event) bool {
		return e.Type == host.EventLog && e.Server == "cut" && e.Message == "stderr-done"
	})
	lines, _ := h.Logs("cut")
	var cut int
	for _, l := range lines {
		if strings.Contains(l.Text, "more bytes)") {
			cut++
		}
	}
	if cut != 2 {
		t.Errorf("want both lines cut, saying so; got %d of %d lines cut", cut, len(lines))
	}
	w.check(h, token[:40], token[len(token)-4:])
}
