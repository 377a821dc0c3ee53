package bridge_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// TestMain doubles as the demo server behind the test daemons, and as a
// bridge program a TypeScript client launches (tsclient_test.go).
func TestMain(m *testing.M) {
	if demoserver.Serving() {
		os.Exit(demoserver.Run(os.Args[1:]))
	}
	if path := os.Getenv(envBridgeSocket); path != "" {
		os.Exit(runBridgeProgram(path))
	}
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	goleak.VerifyTestMain(m)
}

// eventBound is far beyond what any event here takes: reaching it is a
// failure, not a timing.
const eventBound = time.Minute

// legacy is the protocol of a client with a session (initialize): the one
// a bridge restores.
const legacy = "2025-11-25"

// daemon is what the daemon package will be, as far as a bridge sees it:
// an app with a gateway, serving each connection to a unix socket as its
// own downstream session (App.ServePipe).
type daemon struct {
	a      *app.App
	ln     net.Listener
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	conns    []net.Conn
	sessions int
}

// startDaemon serves a demo server of each name (with sample, which asks
// the client to sample, and big_reply) on the socket at path.
func startDaemon(t testing.TB, path string, names ...string) *daemon {
	t.Helper()
	var servers []config.ServerConfig
	for _, name := range names {
		srv, err := demoserver.Config(name, "--sampling", "--reply-tools")
		if err != nil {
			t.Fatal(err)
		}
		servers = append(servers, srv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.Start(ctx, &app.Loaded{Servers: servers},
		&app.Options{Host: &host.Options{ToolPrefix: host.NoToolPrefix}, Gateway: &gateway.Options{}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		cancel()
		a.Close()
		t.Fatal(err)
	}
	d := &daemon{a: a, ln: ln, cancel: cancel}
	d.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			d.mu.Lock()
			d.conns = append(d.conns, conn)
			d.sessions++
			d.mu.Unlock()
			d.wg.Go(func() {
				defer conn.Close()
				_ = a.ServePipe(ctx, host.ViewFilter{}, conn, conn)
			})
		}
	})
	t.Cleanup(d.close)
	return d
}

// close is the daemon dying: its socket, its sessions and its servers go.
func (d *daemon) close() {
	d.cancel()
	d.ln.Close()
	d.mu.Lock()
	for _, c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	d.wg.Wait()
	d.a.Close()
}

func (d *daemon) sessionCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sessions
}

func dialUnix(path string) func(context.Context) (io.ReadWriteCloser, error) {
	return func(ctx context.Context) (io.ReadWriteCloser, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
}

// client is a go-sdk client speaking to a bridge over pipes, as a client
// app speaks to the serve it launched.
type client struct {
	sess        *mcp.ClientSession
	listChanged chan string // the list that changed: tools, prompts, resources
	logs        chan *mcp.LoggingMessageParams
	progress    chan *mcp.ProgressNotificationParams
	bridgeLog   chan string // the bridge's Logf lines
	ran         chan error  // Run's result
	toBridge    *io.PipeWriter
}

func startClient(t testing.TB, path string) *client {
	t.Helper()
	return startClientAt(t, path, legacy)
}

// startClientAt is startClient speaking protocol.
func startClientAt(t testing.TB, path, protocol string) *client {
	t.Helper()
	c := &client{
		listChanged: make(chan string, 64),
		logs:        make(chan *mcp.LoggingMessageParams, 64),
		progress:    make(chan *mcp.ProgressNotificationParams, 64),
		bridgeLog:   make(chan string, 64),
		ran:         make(chan error, 1),
	}
	bridgeIn, toBridge := io.Pipe()
	fromBridge, bridgeOut := io.Pipe()
	c.toBridge = toBridge
	opts := bridge.Options{
		Dial: dialUnix(path),
		Logf: func(format string, args ...any) {
			select {
			case c.bridgeLog <- fmt.Sprintf(format, args...):
			default:
			}
		},
	}
	go func() {
		err := bridge.Run(context.Background(), bridgeIn, bridgeOut, opts)
		bridgeOut.Close()
		c.ran <- err
	}()
	note := func(ch chan string, s string) {
		select {
		case ch <- s:
		default:
		}
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { note(c.listChanged, "tools") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { note(c.listChanged, "prompts") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { note(c.listChanged, "resources") },
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			select {
			case c.logs <- r.Params:
			default:
			}
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case c.progress <- r.Params:
			default:
			}
		},
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test", Content: &mcp.TextContent{Text: "sampled by the client"}}, nil
		},
	})
	sess, err := cl.Connect(context.Background(), &mcp.IOTransport{Reader: fromBridge, Writer: toBridge},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	c.sess = sess
	t.Cleanup(func() { c.close(t) })
	return c
}

// close is the client app quitting: its end of stdin closes, and Run
// returns nil.
func (c *client) close(t testing.TB) {
	if c.sess == nil {
		return
	}
	c.sess.Close()
	c.toBridge.Close()
	c.sess = nil
	select {
	case err := <-c.ran:
		if err != nil {
			t.Errorf("Run after the client left: %v, want nil", err)
		}
	case <-time.After(eventBound):
		t.Error("the bridge did not end with its client's stdin")
	}
}

func (c *client) call(t testing.TB, tool string, args map[string]any) string {
	t.Helper()
	res, err := c.sess.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("%s: %+v", tool, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func await[T any](t testing.TB, ch <-chan T, what string, ok func(T) bool) T {
	t.Helper()
	timeout := time.After(eventBound)
	for {
		select {
		case v := <-ch:
			if ok(v) {
				return v
			}
		case <-timeout:
			t.Fatalf("never saw %s", what)
		}
	}
}

func drain[T any](ch <-chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// TestBridgeRecovers: a client works through the bridge (tools, a call,
// the server asking the client to sample); the daemon dies under a call
// in flight, which fails at once, the client is told, a new daemon comes
// up on the same socket, and the client's next call works in the session
// the bridge restored, with its lists to fetch again.
func TestBridgeRecovers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.sock")
	d1 := startDaemon(t, path, "demo")
	c := startClient(t, path)
	ctx := context.Background()

	tools, err := c.sess.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !hasTool(tools.Tools, "demo__echo") {
		t.Fatalf("tools/list through the bridge: no demo__echo in %d tools", len(tools.Tools))
	}
	if got := c.call(t, "demo__echo", map[string]any{"text": "one"}); got != "one" {
		t.Errorf("echo: %q", got)
	}
	if got := c.call(t, "demo__sample", map[string]any{"text": "hi"}); got != "sampled by the client" {
		t.Errorf("sample: the server got %q, want the client's answer", got)
	}
	if err := c.sess.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}

	inFlight := make(chan error, 1)
	go func() {
		_, err := c.sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"ms": 600000},
			Meta: mcp.Meta{"progressToken": "sleeping"}})
		inFlight <- err
	}()
	await(t, c.progress, "the sleep reach the server", func(*mcp.ProgressNotificationParams) bool { return true })
	drain(c.listChanged)
	d1.close()

	select {
	case err := <-inFlight:
		if err == nil || !strings.Contains(err.Error(), "lost the connection to the daemon") {
			t.Errorf("the call in flight when the daemon died: %v, want the bridge's error", err)
		}
	case <-time.After(eventBound):
		t.Fatal("the call in flight when the daemon died was left hanging")
	}
	await(t, c.bridgeLog, "the bridge say it lost the daemon", func(s string) bool { return strings.HasPrefix(s, "lost the daemon") })
	await(t, c.logs, "a warning to the client", func(p *mcp.LoggingMessageParams) bool { return p.Level == "warning" && p.Logger == "switchboard" })

	d2 := startDaemon(t, path, "demo")
	await(t, c.listChanged, "tools/list_changed", func(s string) bool { return s == "tools" })
	await(t, c.bridgeLog, "the bridge say it reconnected", func(s string) bool { return s == "reconnected to the daemon" })
	if got := c.call(t, "demo__echo", map[string]any{"text": "two"}); got != "two" {
		t.Errorf("echo after the reconnect: %q", got)
	}
	if got := c.call(t, "demo__sample", map[string]any{"text": "again"}); got != "sampled by the client" {
		t.Errorf("sample after the reconnect: %q", got)
	}
	if n := d2.sessionCount(); n != 1 {
		t.Errorf("the new daemon had %d sessions, want the one the bridge restored", n)
	}
	c.close(t)
}

// TestTwoBridges: two clients are two sessions of one daemon, which runs
// one server for both; one leaving closes nothing of the other's.
func TestTwoBridges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.sock")
	d := startDaemon(t, path, "demo")
	c1, c2 := startClient(t, path), startClient(t, path)
	pid1 := c1.call(t, "demo__pid", nil)
	pid2 := c2.call(t, "demo__pid", nil)
	if pid1 != pid2 {
		t.Errorf("the clients reached servers %s and %s, want one", pid1, pid2)
	}
	if n := d.sessionCount(); n != 2 {
		t.Errorf("%d sessions, want one per bridge", n)
	}
	c1.close(t)
	if got := c2.call(t, "demo__pid", nil); got != pid1 {
		t.Errorf("after the other client left, the server is %s, want %s still", got, pid1)
	}
	if st := d.a.Host().Status(); len(st) != 1 || st[0].State != host.StateConnected {
		t.Errorf("after a client left: %+v, want the server still connected", st)
	}
}

// TestStatelessClient: a 2026-07-28 client, which has no session to
// restore, lists, calls and has the server ask it through the bridge, and
// after a new daemon calls again.
func TestStatelessClient(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.sock")
	d1 := startDaemon(t, path, "demo")
	c := startClientAt(t, path, config.ProtocolModern)
	if got := c.call(t, "demo__echo", map[string]any{"text": "new era"}); got != "new era" {
		t.Errorf("echo: %q", got)
	}
	if got := c.call(t, "demo__sample", map[string]any{"text": "hi"}); got != "sampled by the client" {
		t.Errorf("sample: the server got %q, want the client's answer", got)
	}
	d1.close()
	await(t, c.bridgeLog, "the bridge say it lost the daemon", func(s string) bool { return strings.HasPrefix(s, "lost the daemon") })
	startDaemon(t, path, "demo")
	await(t, c.bridgeLog, "the bridge say it reconnected", func(s string) bool { return s == "reconnected to the daemon" })
	if got := c.call(t, "demo__echo", map[string]any{"text": "again"}); got != "again" {
		t.Errorf("echo after the reconnect: %q", got)
	}
	c.close(t)
}

// TestFirstDialFails: no daemon is Run's error, for its caller to start
// one; nothing is read or written.
func TestFirstDialFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.sock")
	var out strings.Builder
	err := bridge.Run(context.Background(), strings.NewReader(""), &out, bridge.Options{Dial: dialUnix(path)})
	if err == nil || !strings.Contains(err.Error(), "connecting to the daemon") {
		t.Errorf("Run without a daemon: %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("Run without a daemon wrote %q", out.String())
	}
}

// TestRunEndsWithContext: ctx ending ends Run with its error, and the
// daemon's stream is closed.
func TestRunEndsWithContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.sock")
	d := startDaemon(t, path, "demo")
	in, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	dialled := make(chan struct{})
	dial := dialUnix(path)
	go func() {
		ran <- bridge.Run(ctx, in, io.Discard, bridge.Options{Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			defer close(dialled)
			return dial(ctx)
		}})
	}()
	<-dialled
	cancel()
	if err := <-ran; !errors.Is(err, context.Canceled) {
		t.Errorf("Run after ctx ended: %v, want context.Canceled", err)
	}
	_ = d
}

func hasTool(tools []*mcp.Tool, name string) bool {
	for _, tl := range tools {
		if tl.Name == name {
			return true
		}
	}
	return false
}
