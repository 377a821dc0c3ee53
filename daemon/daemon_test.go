package daemon_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/daemon"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// envDial makes this test binary a client that dials the socket it
// names and says what happened (TestOtherUserRefused runs it as
// another user).
const envDial = "DAEMON_TEST_DIAL"

func TestMain(m *testing.M) {
	if demoserver.Serving() {
		os.Exit(demoserver.Run(os.Args[1:]))
	}
	if socket := os.Getenv(envDial); socket != "" {
		os.Exit(dialAndSay(socket))
	}
	if socket := os.Getenv(envListen); socket != "" {
		os.Exit(listenAndAnswer(socket))
	}
	goleak.VerifyTestMain(m)
}

// envListen makes this test binary a stand-in daemon of whatever uid
// runs it: it listens on the socket it names, says so on stdout, and
// answers every request, until its stdin ends.
const envListen = "DAEMON_TEST_LISTEN"

func listenAndAnswer(socket string) int {
	ln, err := net.Listen("unix", socket)
	if err != nil {
		fmt.Println("listen:", err)
		return 1
	}
	if err := os.Chmod(socket, 0o666); err != nil {
		fmt.Println("chmod:", err)
		return 1
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"pid": 4242}`)
	}))
	fmt.Println("listening")
	bufio.NewReader(os.Stdin).ReadString('\n') // until the test is done
	return 0
}

func dialAndSay(socket string) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := daemon.Dial(ctx, socket)
	if err != nil {
		fmt.Println("refused:", err)
		return 0
	}
	defer c.Close()
	if in, err := c.Info(ctx); err != nil {
		fmt.Println("refused:", err)
	} else {
		fmt.Println("answered: pid", in.PID)
	}
	return 0
}

// bound is far beyond what anything here takes on a working machine:
// reaching it is a failure, not a timing.
const bound = 2 * time.Minute

// running is a daemon serving an app of one demo server on a socket.
type running struct {
	a      *app.App
	socket string
	calls  chan error // each upstream call's outcome (host.Observer)
	stop   context.CancelFunc
	ended  chan error
	logs   *bytes.Buffer
}

// socketDir is a short private folder: a unix socket's path is limited
// to about a hundred bytes, which t.TempDir's can pass.
func socketDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sbd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "run")
}

// serve starts an app on the demo server (named name) and a daemon for
// it on socket.
func serve(t testing.TB, socket, name string, opts *daemon.Options, flags ...string) *running {
	t.Helper()
	srv, err := demoserver.Config(name, flags...)
	if err != nil {
		t.Fatal(err)
	}
	r := &running{socket: socket, calls: make(chan error, 64), ended: make(chan error, 1), logs: &bytes.Buffer{}}
	obs := &host.Observer{Call: func(ctx context.Context, _ *host.ObservedCall) (context.Context, func(*mcp.CallToolResult, error)) {
		return ctx, func(_ *mcp.CallToolResult, err error) {
			select {
			case r.calls <- err:
			default: // a benchmark's calls: nobody reads them
			}
		}
	}}
	ctx := context.Background()
	r.a, err = app.Start(ctx, &app.Loaded{Servers: []config.ServerConfig{srv}}, &app.Options{
		Host:    &host.Options{Observer: obs},
		Gateway: &gateway.Options{},
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := daemon.Listen(socket)
	if err != nil {
		r.a.Close()
		t.Fatal(err)
	}
	var o daemon.Options
	if opts != nil {
		o = *opts
	}
	var mu sync.Mutex
	o.Logger = slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: r.logs}, nil))
	sctx, stop := context.WithCancel(ctx)
	r.stop = stop
	go func() { r.ended <- daemon.Serve(sctx, r.a, ln, &o) }()
	t.Cleanup(func() { r.end(t) })
	return r
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// end stops the daemon and waits for Serve, once.
func (r *running) end(t testing.TB) error {
	t.Helper()
	r.stop()
	select {
	case err, ok := <-r.ended:
		if ok {
			close(r.ended)
		}
		return err
	case <-time.After(bound):
		t.Fatal("Serve did not return")
		return nil
	}
}

func dial(t testing.TB, socket string) *daemon.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	c, err := daemon.Dial(ctx, socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestControlAPI: what a view of the host answers, the client answers
// over the socket, errors and all.
func TestControlAPI(t *testing.T) {
	r := serve(t, filepath.Join(socketDir(t), "d.sock"), "demo", &daemon.Options{
		Problems: func() []string { return []string{"/x/mcp.json: line 3: bad"} },
	})
	c := dial(t, r.socket)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	h := r.a.Host()

	in, err := c.Info(ctx)
	if err != nil || in.PID != os.Getpid() || in.Socket != r.socket || in.Version != daemon.Version || len(in.Problems) != 1 {
		t.Errorf("Info = %+v, %v", in, err)
	}
	if err := c.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := c.Status(ctx)
	if err != nil || len(st) != 1 || st[0].State != host.StateConnected || st[0].PID != h.Status()[0].PID || st[0].ConnectTime <= 0 {
		t.Fatalf("Status = %+v, %v", st, err)
	}
	// Durations cross in milliseconds with three decimals.
	if want := h.Status()[0].ConnectTime; st[0].ConnectTime.Round(time.Millisecond) != want.Round(time.Millisecond) {
		t.Errorf("ConnectTime %v, host says %v", st[0].ConnectTime, want)
	}

	tools, err := c.Tools(ctx, host.ViewFilter{})
	if err != nil || len(tools) != len(h.Tools().Tools) || len(tools) == 0 {
		t.Errorf("Tools: %d, %v; host has %d", len(tools), err, len(h.Tools().Tools))
	}
	none, err := c.Tools(ctx, host.ViewFilter{Servers: []string{"other"}})
	if err != nil || len(none) != 0 {
		t.Errorf("Tools of another server: %v, %v", none, err)
	}
	found, err := c.SearchTools(ctx, host.ViewFilter{}, "digest of text", 1)
	if err != nil || len(found) != 1 || found[0].Name != "mcp__demo__sha256" {
		t.Errorf("SearchTools = %v, %v", found, err)
	}
	hits, err := c.SearchToolHits(ctx, host.ViewFilter{}, "digest of text", 1)
	if err != nil || len(hits) != 1 || hits[0].Tool.Name != "mcp__demo__sha256" || len(hits[0].Why) == 0 {
		t.Errorf("SearchToolHits = %+v, %v; want sha256 and why it matched", hits, err)
	}

	n, err := c.Find(ctx, host.KindTool, "demo/echo")
	if err != nil || n.Exposed != "mcp__demo__echo" || n.Server != "demo" || n.Name != "echo" {
		t.Errorf("Find = %+v, %v", n, err)
	}
	_, err = c.Find(ctx, host.KindTool, "ecko")
	_, want := h.Find(host.KindTool, "ecko")
	var ne *host.NameError
	if !errors.Is(err, host.ErrUnknownTool) || !errors.As(err, &ne) || err.Error() != want.Error() {
		t.Errorf("Find(ecko) = %v; the host says %v", err, want)
	}

	res, err := c.CallTool(ctx, "mcp__demo__echo", map[string]any{"text": "hi"})
	if err != nil || host.ResultText(res) != "hi" {
		t.Errorf("echo: %q, %v", host.ResultText(res), err)
	}
	res, err = c.CallTool(ctx, "mcp__demo__echo", `{"text": "as text"}`)
	if err != nil || host.ResultText(res) != "as text" {
		t.Errorf("echo with text arguments: %q, %v", host.ResultText(res), err)
	}
	res, err = c.CallTool(ctx, "mcp__demo__fail", map[string]any{"message": "no"})
	if err != nil || !res.IsError || host.ResultText(res) != "no" {
		t.Errorf("fail: %+v, %v (a tool's own error is an answer)", res, err)
	}
	res, err = c.CallTool(ctx, "mcp__demo__echo", "[1]")
	if !errors.Is(err, host.ErrBadArguments) || res == nil || !res.IsError {
		t.Errorf("echo [1]: %+v, %v; want ErrBadArguments and an error result", res, err)
	}
	_, err = c.CallTool(ctx, "mcp__demo__nope", nil)
	if !errors.Is(err, host.ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
	_, err = c.View(host.ViewFilter{Servers: []string{"other"}}).CallTool(ctx, "mcp__demo__echo", nil)
	if !errors.Is(err, host.ErrUnknownTool) {
		t.Errorf("a tool outside the view: %v", err)
	}

	rs, ts, err := c.Resources(ctx)
	hrs, hts := h.Resources()
	if err != nil || len(rs) != len(hrs) || len(ts) != len(hts) || len(rs) == 0 || rs[0].Server != "demo" || rs[0].URI == "" {
		t.Fatalf("Resources = %v %v, %v", rs, ts, err)
	}
	rr, err := c.ReadResource(ctx, "demo", rs[0].URI)
	if err != nil || len(rr.Contents) == 0 {
		t.Errorf("ReadResource(%s) = %v, %v", rs[0].URI, rr, err)
	}
	ps, err := c.Prompts(ctx)
	if err != nil || len(ps) == 0 || ps[0].Exposed != h.Prompts()[0].Exposed || ps[0].Name != "greet" {
		t.Fatalf("Prompts = %+v, %v", ps, err)
	}
	gp, err := c.GetPrompt(ctx, "demo", "greet", map[string]string{"name": "Ada"})
	if err != nil || len(gp.Messages) == 0 {
		t.Errorf("GetPrompt = %+v, %v", gp, err)
	} else if tc, ok := gp.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "Ada") {
		t.Errorf("GetPrompt's message: %#v", gp.Messages[0].Content)
	}

	if _, err := c.Logs(ctx, "demo"); err != nil {
		t.Errorf("Logs(demo): %v", err)
	}
	if _, err := c.Logs(ctx, "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Logs(nope) = %v, want an error naming it", err)
	}
	if _, err := c.Sources(ctx); err == nil {
		t.Error("Sources without Options.Sources: want an error")
	}
}

// TestCallProgressAndCancel: progress reaches the caller's
// host.WithProgress, and cancelling the caller's ctx ends the host's
// call to the server.
func TestCallProgressAndCancel(t *testing.T) {
	r := serve(t, filepath.Join(socketDir(t), "d.sock"), "demo", nil)
	c := dial(t, r.socket)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()

	callCtx, cancelCall := context.WithCancel(ctx)
	progressed := make(chan string, 16)
	callCtx = host.WithProgress(callCtx, func(p host.Progress, msg string) { progressed <- msg })
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(callCtx, "mcp__demo__sleep", map[string]any{"ms": 600_000})
		errc <- err
	}()
	select {
	case msg := <-progressed:
		if msg != "sleeping 600000 ms" {
			t.Errorf("progress message %q", msg)
		}
	case <-ctx.Done():
		t.Fatal("no progress")
	}
	cancelCall()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	// The host's call to the server ended by the cancel, not by the
	// sleep's end ten minutes on.
	select {
	case err := <-r.calls:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the upstream call ended with %v, want context.Canceled", err)
		}
	case <-ctx.Done():
		t.Fatal("the upstream call never ended")
	}
	// The server is still there for the next call.
	if res, err := c.CallTool(ctx, "mcp__demo__echo", map[string]any{"text": "again"}); err != nil || host.ResultText(res) != "again" {
		t.Errorf("echo after the cancel: %q, %v", host.ResultText(res), err)
	}
}

// TestEvents: the host's events stream to the client until its ctx ends.
func TestEvents(t *testing.T) {
	r := serve(t, filepath.Join(socketDir(t), "d.sock"), "demo", nil)
	c := dial(t, r.socket)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := c.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	evCtx, endEvents := context.WithCancel(ctx)
	events, err := c.Events(evCtx)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.a.Host().Restart("demo"); err != nil {
		t.Fatal(err)
	}
	for e := range events {
		if e.Type == host.EventState && e.Server == "demo" && e.State == host.StateConnected {
			break
		}
	}
	endEvents()
	for range events { // closed once ctx ended
	}
}

// mcpClient opens an MCP session over an attached stream.
func mcpClient(t *testing.T, ctx context.Context, c *daemon.Client, f host.ViewFilter) *mcp.ClientSession {
	t.Helper()
	conn, err := c.Attach(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "attached", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		conn.Close()
		t.Fatal(err)
	}
	return sess
}

// demoChildren are this process's children serving the demo as name.
func demoChildren(name string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		// pid (comm) state ppid …
		_, rest, _ := strings.Cut(string(stat), ") ")
		if f := strings.Fields(rest); len(f) < 2 || f[1] != self {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(cmdline), "\x00--name\x00"+name+"\x00") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestAttachSharesServer: two attached MCP sessions are two downstream
// sessions of one gateway, served by one server process; closing one
// closes nothing upstream.
func TestAttachSharesServer(t *testing.T) {
	r := serve(t, filepath.Join(socketDir(t), "d.sock"), "shared", nil)
	c := dial(t, r.socket)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	one := mcpClient(t, ctx, c, host.ViewFilter{})
	two := mcpClient(t, ctx, c, host.ViewFilter{Servers: []string{"shared"}})
	pidOf := func(s *mcp.ClientSession) string {
		t.Helper()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__shared__pid"})
		if err != nil || res.IsError {
			t.Fatalf("pid: %+v, %v", res, err)
		}
		return host.ResultText(res)
	}
	p1, p2 := pidOf(one), pidOf(two)
	if p1 != p2 {
		t.Errorf("two sessions reached servers %s and %s, want one", p1, p2)
	}
	if kids := demoChildren("shared"); len(kids) != 1 || strconv.Itoa(kids[0]) != p1 {
		t.Errorf("server processes %v, want exactly [%s]", kids, p1)
	}
	if in, err := c.Info(ctx); err != nil || in.Clients != 2 {
		t.Errorf("Info.Clients = %d, %v; want 2", in.Clients, err)
	}
	one.Close()
	if p := pidOf(two); p != p1 {
		t.Errorf("after the first session closed, the second reached %s, want %s", p, p1)
	}
	two.Close()
	if st := r.a.Host().Status(); st[0].State != host.StateConnected {
		t.Errorf("after both sessions closed the server is %s", st[0].State)
	}
}

// TestDaemonGoneAndBack: a daemon that went away makes requests fail with
// ErrNoDaemon, and one started again on the socket answers the same
// client.
func TestDaemonGoneAndBack(t *testing.T) {
	socket := filepath.Join(socketDir(t), "d.sock")
	r := serve(t, socket, "demo", nil)
	c := dial(t, socket)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if _, err := c.Info(ctx); err != nil {
		t.Fatal(err)
	}
	events, err := c.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.end(t); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	for range events { // closed when the daemon went
	}
	if _, err := os.Lstat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there after Serve: %v", err)
	}
	if _, err := c.Tools(ctx, host.ViewFilter{}); !errors.Is(err, daemon.ErrNoDaemon) || !strings.Contains(err.Error(), socket) {
		t.Errorf("Tools with the daemon gone: %v; want ErrNoDaemon naming the socket", err)
	}
	if _, err := daemon.Dial(ctx, socket); !errors.Is(err, daemon.ErrNoDaemon) {
		t.Errorf("Dial with the daemon gone: %v", err)
	}
	serve(t, socket, "demo", nil)
	if tools, err := c.Tools(ctx, host.ViewFilter{}); err != nil || len(tools) == 0 {
		t.Errorf("Tools from the new daemon: %d, %v", len(tools), err)
	}
}

// TestStop: Stop returns once the daemon has closed its servers, and
// Serve returns nil.
func TestStop(t *testing.T) {
	r := serve(t, filepath.Join(socketDir(t), "d.sock"), "stopped", nil)
	c := dial(t, r.socket)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := c.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	if len(demoChildren("stopped")) != 1 {
		t.Fatal("no server process")
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if kids := demoChildren("stopped"); len(kids) != 0 {
		t.Errorf("server processes %v left after Stop returned", kids)
	}
	if err := r.end(t); err != nil {
		t.Errorf("Serve after Stop: %v", err)
	}
}

// TestIdle: a daemon no one uses stops by itself after Options.Idle.
func TestIdle(t *testing.T) {
	r := serve(t, filepath.Join(socketDir(t), "d.sock"), "demo", &daemon.Options{Idle: time.Millisecond})
	select {
	case err := <-r.ended:
		close(r.ended)
		if err != nil {
			t.Errorf("Serve after idling: %v", err)
		}
	case <-time.After(bound):
		t.Fatal("an idle daemon did not stop")
	}
}

// TestListen: the folder is 0700 and the socket 0600; a live daemon's
// socket is refused with its pid, a stale one replaced, a folder others
// may enter refused.
func TestListen(t *testing.T) {
	dir := socketDir(t)
	socket := filepath.Join(dir, "d.sock")
	r := serve(t, socket, "demo", nil)
	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, socket: 0o600 | os.ModeSocket} {
		info, err := os.Lstat(path)
		if err != nil || info.Mode() != want {
			t.Errorf("%s: mode %v, %v; want %v", path, info.Mode(), err, want)
		}
	}
	_, err := daemon.Listen(socket)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("already runs on %s (pid %d)", socket, os.Getpid())) {
		t.Errorf("Listen on a live daemon's socket: %v", err)
	}
	r.end(t)

	// A daemon that died leaves its socket: nothing answers on it.
	stale := filepath.Join(dir, "stale.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	ln2, err := daemon.Listen(stale)
	if err != nil {
		t.Fatalf("Listen on a stale socket: %v", err)
	}
	ln2.Close()

	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := daemon.Listen(filepath.Join(dir, "file")); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("Listen on a plain file: %v", err)
	}
	open := filepath.Join(filepath.Dir(dir), "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o755) // past the umask
	if _, err := daemon.Listen(filepath.Join(open, "d.sock")); err == nil || !strings.Contains(err.Error(), "lets others in") {
		t.Errorf("Listen in a folder open to others: %v", err)
	}
}

// TestStopDrainsAttachedCalls: a call in flight in an attached session
// when Stop comes finishes with its result before the session ends.
func TestStopDrainsAttachedCalls(t *testing.T) {
	r := serve(t, filepath.Join(socketDir(t), "d.sock"), "drained", nil)
	c := dial(t, r.socket)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	conn, err := c.Attach(ctx, host.ViewFilter{})
	if err != nil {
		t.Fatal(err)
	}
	reached := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "attached", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case reached <- struct{}{}:
			default:
			}
		},
	})
	sess, err := client.Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "mcp__drained__sleep", Arguments: map[string]any{"ms": 500}}
		params.SetProgressToken("t")
		res, err := sess.CallTool(ctx, params)
		answered <- answer{res, err}
	}()
	<-reached // the call is at the server
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	a := <-answered
	if a.err != nil || a.res.IsError || host.ResultText(a.res) != "slept 500 ms" {
		t.Errorf("the call in flight at Stop: %+v, %v", a.res, a.err)
	}
}

// TestAttachedSampling: a server's sampling request goes to the attached
// session whose call led to it, not to another one.
func TestAttachedSampling(t *testing.T) {
	r := serve(t, filepath.Join(socketDir(t), "d.sock"), "demo", nil, "--sampling")
	c := dial(t, r.socket)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	asked := make(chan string, 4)
	sampler := func(who string) *mcp.ClientSession {
		conn, err := c.Attach(ctx, host.ViewFilter{})
		if err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: who, Version: "1"}, &mcp.ClientOptions{
			CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				asked <- who
				return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "from " + who}}, nil
			},
		})
		sess, err := client.Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sess.Close() })
		return sess
	}
	a, b := sampler("a"), sampler("b")
	for _, s := range []struct {
		sess *mcp.ClientSession
		who  string
	}{{a, "a"}, {b, "b"}} {
		res, err := s.sess.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__demo__sample", Arguments: map[string]any{"text": "hi"}})
		if err != nil || res.IsError || host.ResultText(res) != "from "+s.who {
			t.Errorf("sample through %s: %q, %v", s.who, host.ResultText(res), err)
		}
		if who := <-asked; who != s.who {
			t.Errorf("%s's call asked %s to sample", s.who, who)
		}
	}
}
