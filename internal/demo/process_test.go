package demo_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// processTimeout bounds a demo subprocess; the test binary kills it then, so
// a server that wrongly hangs fails the test instead of stalling it.
const processTimeout = 60 * time.Second

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"v0"}}}`

// demoCommand returns a command that runs this test binary as the demo server.
func demoCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), demo.EnvServerMode+"=1")
	if os.Getenv("GORACE") == "" {
		// Under -race a process that exits 0 otherwise lingers a second.
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	}
	cmd.WaitDelay = eventTimeout
	return cmd
}

// demoProc is a demo subprocess driven line by line.
type demoProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr <-chan string // closed at EOF
}

func startDemo(t *testing.T, args ...string) *demoProc {
	t.Helper()
	cmd := demoCommand(t, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Logf("demo stderr: %s", sc.Text())
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		<-stderrDone
	})
	return &demoProc{cmd: cmd, stdin: stdin, stdout: bufio.NewReader(stdout), stderr: lines}
}

// awaitStderr returns the first stderr line starting with prefix.
func (p *demoProc) awaitStderr(t *testing.T, prefix string) string {
	t.Helper()
	deadline := time.After(eventTimeout)
	for {
		select {
		case line, ok := <-p.stderr:
			if !ok {
				t.Fatalf("stderr ended before a line starting %q", prefix)
			}
			if strings.HasPrefix(line, prefix) {
				return line
			}
		case <-deadline:
			t.Fatalf("timed out waiting for stderr line starting %q", prefix)
		}
	}
}

func (p *demoProc) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// response reads stdout lines up to the JSON-RPC response with the given id,
// returning it and the lines before it.
func (p *demoProc) response(t *testing.T, id int) (resp map[string]any, before []string) {
	t.Helper()
	for {
		line, err := p.stdout.ReadString('\n')
		if err != nil {
			t.Fatalf("reading stdout: %v (lines so far %q)", err, before)
		}
		line = strings.TrimSuffix(line, "\n")
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["id"] == float64(id) {
			return m, before
		}
		before = append(before, line)
	}
}

// wait closes stdin, drains stdout and waits for the process to exit.
func (p *demoProc) wait(t *testing.T) error {
	t.Helper()
	p.stdin.Close()
	if _, err := io.Copy(io.Discard, p.stdout); err != nil {
		t.Errorf("draining stdout: %v", err)
	}
	for range p.stderr {
	}
	return p.cmd.Wait()
}

func TestStdio(t *testing.T) {
	const delay = 50 * time.Millisecond
	cmd := demoCommand(t, "--name", "stdio-demo", "--init-delay", delay.String(), "--stderr-lines")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < delay {
		t.Errorf("initialize took %v, want at least --init-delay %v", elapsed, delay)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "stdio-demo" {
		t.Errorf("server name = %q, want stdio-demo", got)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "pid"})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != strconv.Itoa(cmd.Process.Pid) {
		t.Errorf("pid = %s, want %d", got, cmd.Process.Pid)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	want := "info: demo starting\nwarning: something mildly odd\nerror: something went wrong (demo)\n"
	if !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr = %q, want it to start with %q", stderr.String(), want)
	}
}

func TestGarbage(t *testing.T) {
	p := startDemo(t, "--garbage")
	p.send(t, initializeRequest)
	resp, before := p.response(t, 1)
	want := []string{"this is not json", "=== switchboard demo server (garbage mode) ===", "", "{not json either", demo.GarbageLine}
	if strings.Join(before, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines before the response = %q, want %q", before, want)
	}
	if resp["result"] == nil {
		t.Fatalf("initialize response has no result: %v", resp)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	resp, before = p.response(t, 2)
	if len(before) != 1 || before[0] != demo.GarbageLine {
		t.Errorf("lines before the tools/list response = %q, want one garbage line", before)
	}
	if tools, _ := resp["result"].(map[string]any)["tools"].([]any); len(tools) != 8 {
		t.Errorf("tools/list returned %d tools, want 8: %v", len(tools), resp)
	}
	if err := p.wait(t); err != nil {
		t.Errorf("exit: %v", err)
	}
}

func TestLogFlood(t *testing.T) {
	p := startDemo(t, "--log-flood", "3")
	p.send(t, initializeRequest)
	_, before := p.response(t, 1)
	if len(before) != 3 {
		t.Fatalf("%d lines before the initialize response, want 3: %q", len(before), before)
	}
	for i, line := range before {
		var n struct {
			Method string                   `json:"method"`
			Params mcp.LoggingMessageParams `json:"params"`
		}
		if err := json.Unmarshal([]byte(line), &n); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("flood line %d of 3", i+1)
		if n.Method != "notifications/message" || n.Params.Logger != demo.FloodLogger || n.Params.Data != want {
			t.Errorf("line %d = %s, want a log notification %q", i, line, want)
		}
	}
	if err := p.wait(t); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// deep_reply is answered below go-sdk, which cannot encode its reply; the
// other tools still go through go-sdk.
func TestDeepReply(t *testing.T) {
	p := startDemo(t, "--reply-tools")
	p.send(t, initializeRequest)
	p.response(t, 1)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	const depth = 20000
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deep_reply","arguments":{"depth":20000}}}`)
	p.send(t, `{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"big_reply","arguments":{"bytes":5}}}`)
	for range 2 {
		line, err := p.stdout.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(line, `{"jsonrpc":"2.0","id":2,`):
			if n := strings.Count(line, "["); n != depth+1 { // and the content list
				t.Errorf("deep reply has %d arrays, want %d", n, depth+1)
			}
		case strings.Contains(line, `"id":"three"`):
			if !strings.Contains(line, `"text":"xxxxx"`) {
				t.Errorf("big_reply: %s", line)
			}
		default:
			t.Errorf("unexpected line %.200s", line)
		}
	}
	if err := p.wait(t); err != nil {
		t.Errorf("exit: %v", err)
	}
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("want an exit error, got %v", err)
	}
	return ee.ExitCode()
}

func TestFailStart(t *testing.T) {
	cmd := demoCommand(t, "--fail-start")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(t, cmd.Run()); code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
	if stderr.String() != demo.FailStartMessage+"\n" || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q; want only %q on stderr", stdout.String(), stderr.String(), demo.FailStartMessage)
	}
}

// TestEscapesStderr: --escapes writes its line before --fail-start's, so
// the failure a host reports quotes it.
func TestEscapesStderr(t *testing.T) {
	cmd := demoCommand(t, "--escapes", "--fail-start")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if code := exitCode(t, cmd.Run()); code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
	if want := demo.EscapeStderrLine + "\n" + demo.FailStartMessage + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

func TestDumpEnv(t *testing.T) {
	cmd := demoCommand(t, "--dump-env")
	cmd.Env = append(cmd.Env, "DEMO_DUMP_TEST=visible-value")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(t, cmd.Run()); code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	if !slices.Contains(lines, "env: DEMO_DUMP_TEST=visible-value") ||
		!strings.HasPrefix(last, demo.DumpEnvError) || !strings.Contains(last, " DEMO_DUMP_TEST=visible-value") {
		t.Errorf("stderr: %q", stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout: %q", stdout.String())
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--no-such-flag"}, {"extra-arg"}, {"--tools-count", "-1"}} {
		cmd := demoCommand(t, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if code := exitCode(t, cmd.Run()); code != 2 {
			t.Errorf("%q: exit code = %d, want 2", args, code)
		}
		if stderr.Len() == 0 {
			t.Errorf("%q: nothing on stderr", args)
		}
	}
}

func TestHelp(t *testing.T) {
	cmd := demoCommand(t, "--help")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"-name", "-init-delay", "-fail-start", "-hang", "-garbage", "-ignore-sigterm",
		"-grandchild", "-grandchild-leaves", "-sleep-forever", "-stderr-lines", "-weird-names", "-tools-count", "-exit-after", "-escapes", "-dump-env",
		"-legacy", "-ignore-discover"} {
		if !strings.Contains(stderr.String(), flag) {
			t.Errorf("help does not mention %s", flag)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("help wrote to stdout: %q", stdout.String())
	}
}

func TestExitAfter(t *testing.T) {
	p := startDemo(t, "--exit-after", "10ms")
	p.awaitStderr(t, "error: demo server exiting with code 3")
	for range p.stderr {
	}
	if code := exitCode(t, p.cmd.Wait()); code != 3 {
		t.Errorf("exit code = %d, want 3", code)
	}
}

// signalled checks that err reports death by sig.
func signalled(t *testing.T, err error, sig syscall.Signal) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("want death by %v, got %v", sig, err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
		t.Errorf("process ended with %v, want death by %v", ee, sig)
	}
}

func TestHang(t *testing.T) {
	p := startDemo(t, "--hang")
	p.send(t, initializeRequest)
	p.stdin.Close()
	p.awaitStderr(t, "info: stdin closed; --hang")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(p.stdout)
	if err != nil || len(out) != 0 {
		t.Errorf("stdout = %q, %v; want nothing", out, err)
	}
	for range p.stderr {
	}
	signalled(t, p.cmd.Wait(), syscall.SIGTERM)
}

func TestIgnoreSigterm(t *testing.T) {
	p := startDemo(t, "--ignore-sigterm")
	p.send(t, initializeRequest)
	p.response(t, 1) // serving, so SIGTERM is already ignored
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	p.response(t, 2) // alive after SIGTERM

	p.stdin.Close()
	p.awaitStderr(t, "info: session ended; --ignore-sigterm")
	// A SIGTERM that was not ignored would be the recorded cause of death,
	// so a SIGKILL status proves it was ignored after the session ended too.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for range p.stderr {
	}
	signalled(t, p.cmd.Wait(), syscall.SIGKILL)
}

func TestGrandchild(t *testing.T) {
	p := startDemo(t, "--grandchild")
	line := p.awaitStderr(t, "grandchild pid ")
	pid, err := strconv.Atoi(strings.TrimPrefix(line, "grandchild pid "))
	if err != nil {
		t.Fatal(err)
	}
	gc, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := gc.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("grandchild %d is not running: %v", pid, err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = gc.Kill()
		}
	})

	// The demo server reaps its grandchild and says so, which tells us it is gone.
	if err := gc.Kill(); err != nil {
		t.Fatal(err)
	}
	killed = true
	p.awaitStderr(t, "grandchild "+strconv.Itoa(pid)+" exited: signal: killed")
	if err := p.wait(t); err != nil {
		t.Errorf("exit: %v", err)
	}
}
