package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

// serveProc is a real `switchboard serve --http` process: this test
// binary as the CLI, with the demo server (also this binary) behind it.
type serveProc struct {
	cmd     *exec.Cmd
	url     string        // http://ADDR
	stderr  chan string   // its stderr, line by line
	exited  chan struct{} // closed when it exited
	waitErr error         // its Wait, once exited is closed
	audit   string        // its --audit-log
}

func startServeProc(t *testing.T) *serveProc {
	t.Helper()
	return startServeProcWith(t)
}

// startServeProcWith is startServeProc with the demo server given
// demoArgs.
func startServeProcWith(t *testing.T, demoArgs ...string) *serveProc {
	t.Helper()
	return startServeProcArgs(t, nil, demoArgs...)
}

// startServeProcArgs is startServeProcWith with more of serve's flags.
func startServeProcArgs(t *testing.T, serveArgs []string, demoArgs ...string) *serveProc {
	t.Helper()
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mcp.json")
	args, _ := json.Marshal(append([]string{"demo-server"}, demoArgs...))
	writeFile(t, cfg, `{"mcpServers": {"demo": {"command": "`+exe+`", "args": `+string(args)+`, "env": {"`+asCLI+`": "1"}}}}`)
	p := &serveProc{stderr: make(chan string, 256), exited: make(chan struct{}), audit: filepath.Join(dir, "audit.log")}
	p.cmd = exec.Command(exe, append([]string{"--config", cfg, "--no-discover", "--project", dir, "--state-dir", dir,
		"serve", "--http", "127.0.0.1:0", "--drain-timeout", "2m", "--audit-log", p.audit}, serveArgs...)...)
	p.cmd.Env = append(os.Environ(), asCLI+"=1", "HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	errs, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(errs)
		for sc.Scan() {
			select {
			case p.stderr <- sc.Text():
			default: // nobody is waiting for more
			}
		}
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		select {
		case <-p.exited:
		case <-time.After(watchBound):
		}
	})
	line := p.await(t, "serving on ")
	p.url = strings.TrimSuffix(strings.TrimPrefix(line, "serving on "), "/mcp")
	return p
}

// await returns serve's first stderr line from now that starts with prefix.
func (p *serveProc) await(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(watchBound)
	for {
		select {
		case line := <-p.stderr:
			if strings.HasPrefix(line, prefix) || strings.HasPrefix(line, "switchboard: "+prefix) {
				return line
			}
		case <-timeout:
			t.Fatalf("serve never said %q", prefix)
		}
	}
}

func (p *serveProc) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
		err := p.waitErr
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(watchBound):
		t.Fatal("serve did not exit")
		return -1
	}
}

// slowCall starts demo's sleep for ms through a new legacy session and
// returns once the demo server is sleeping (its progress came back).
func (p *serveProc) slowCall(t *testing.T, ms int) (*mcp.ClientSession, <-chan error) {
	t.Helper()
	started := make(chan struct{}, 1)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		select {
		case started <- struct{}{}:
		default:
		}
	}})
	// The drain ends the session's standalone stream once the slow call's
	// reply is written, on another connection than the reply's: a client
	// that takes the stream's end for the session's (go-sdk's with no
	// retries) could fail the call before reading its reply. One retry
	// is what a client does about a stream that ended (the TypeScript
	// SDK's reconnects), and lets the reply be read.
	sess, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: p.url + "/mcp", MaxRetries: 1}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"ms": ms}}
		params.SetProgressToken("slow")
		res, err := sess.CallTool(context.Background(), params)
		if err == nil && res.IsError {
			err = errors.New(res.Content[0].(*mcp.TextContent).Text)
		}
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the slow call ended at once: %v", err)
	}
	return sess, done
}

// TestServeDrainsOnSIGTERM: SIGTERM during a slow call turns /readyz to
// 503 and refuses a new call, lets the slow call finish, and serve exits
// 0; the audit log has both calls.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	p := startServeProc(t)
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Get(p.url + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/readyz before the drain: %v, %v", resp, err)
	}
	resp.Body.Close()
	// logrotate moved the audit log: SIGHUP opens a new one at its name.
	first := callEcho(t, p, "before the move")
	moved := p.audit + ".moved"
	if err := os.Rename(p.audit, moved); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	awaitFile(t, p.audit)
	first.Close()
	if data, _ := os.ReadFile(moved); strings.Count(string(data), "\n") != 1 {
		t.Errorf("the moved audit log: %q; want the one call before the move", data)
	}

	sess, slow := p.slowCall(t, 1500)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.await(t, "draining")
	resp, err = hc.Get(p.url + "/readyz")
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz while draining: %v, %v; want 503", resp, err)
	} else {
		var body struct {
			NotReady []string `json:"not_ready"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if len(body.NotReady) != 1 || body.NotReady[0] != "draining" {
			t.Errorf("/readyz while draining says %v", body.NotReady)
		}
	}
	if _, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "late"}}); err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("a call during the drain: %v, want it refused", err)
	}
	if err := <-slow; err != nil {
		t.Errorf("the slow call: %v, want it finished", err)
	}
	if code := p.exitCode(t); code != 0 {
		t.Errorf("serve exited %d after a clean drain, want 0", code)
	}
	data, err := os.ReadFile(p.audit)
	if err != nil {
		t.Fatal(err)
	}
	if text := string(data); strings.Count(text, "\n") != 2 || !strings.Contains(text, `"outcome":"ok"`) || !strings.Contains(text, `"outcome":"refused"`) {
		t.Errorf("audit log: %s; want the slow call ok and the late one refused", text)
	}
}

// TestServeSecondSIGTERM: a second SIGTERM during the drain ends serve
// at once, the slow call cut, with exit 1.
func TestServeSecondSIGTERM(t *testing.T) {
	p := startServeProc(t)
	_, slow := p.slowCall(t, 10*60*1000)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.await(t, "draining")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.exitCode(t); code != 1 {
		t.Errorf("serve exited %d after a second SIGTERM, want 1", code)
	}
	if err := <-slow; err == nil {
		t.Error("the slow call finished; want it cut")
	}
}

// callEcho calls demo's echo through a new legacy session.
func callEcho(t *testing.T, p *serveProc, text string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: p.url + "/mcp", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": text}}); err != nil {
		t.Fatal(err)
	}
	return sess
}

// awaitFile waits for path to exist: serve reopens its audit log on
// SIGHUP, which no output announces. Bounded by watchBound.
func awaitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(watchBound)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		<-time.After(filePoll)
	}
}

// filePoll is how often awaitFile looks.
const filePoll = 10 * time.Millisecond

// A server that drops, and one given up on, are each a line on serve's
// stderr with the reason: what the person sees in a client's log of it.
// (A crash-looping demo drops several times; each return to connected
// makes the next drop news again, until it is given up on.)
func TestServeSaysWhenAServerDropsAndFails(t *testing.T) {
	p := startServeProcWith(t, "--exit-after", "300ms")
	drop := p.await(t, `server "demo" dropped, reconnecting in `)
	if !strings.Contains(drop, "exited (status 3): ") {
		t.Errorf("drop line %q: want the exit status and what the server said", drop)
	}
	failed := p.await(t, `server "demo" failed: gave up after`)
	if !strings.Contains(failed, "crash loop") {
		t.Errorf("failure line %q", failed)
	}
}
