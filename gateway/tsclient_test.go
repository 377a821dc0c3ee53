package gateway_test

// End-to-end: `switchboard serve`, as a real process over stdio and over
// streamable HTTP, with the demo server and server-everything behind it,
// driven by the TypeScript SDK's client (test/peers/gateway-client.mjs),
// the client most agents use. Everything here is a real process on
// loopback; every wait is for an event (a line, an exit, a connection)
// under a bound.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/procgroup"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// tsMarkEnv is set, to a value of each test's own, in the environment of
// switchboard serve and of every server its config starts, so that the
// processes a test leaves behind can be found in /proc.
const tsMarkEnv = "SWITCHBOARD_TSCLIENT_MARK"

// tsRunBound bounds one scripted session: a cold server-everything takes
// about a second, the steps under two more; a 2-core CI machine running
// the race tests of every other package is many times slower.
const tsRunBound = 2 * time.Minute

// tsExitBound is how long the processes get to end once their client or
// their signal told them to.
const tsExitBound = 15 * time.Second

func TestTSClientThroughServe(t *testing.T) {
	node := peers.Node(t)
	script := tsClientScript(t)
	everything, everythingArgs := peers.EverythingStdio(t)
	sb := tsBuildSwitchboard(t)

	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			e := newTSServe(t, sb, everything, everythingArgs)
			args := []string{script,
				"--sampling", "fixed reply from the TS client",
				"--elicit", `{"name":"Ada"}`,
				"--list",
				"--call", "demo__echo", "--args", `{"text":"hello through serve"}`,
				"--progress", "everything__trigger-long-running-operation", "--args", `{"duration":0.3,"steps":3}`,
				"--cancel", "demo__sleep", "--args", `{"ms":600000}`, "--after", "progress",
				"--call", "everything__trigger-sampling-request", "--args", `{"prompt":"sample this","maxTokens":5}`,
				"--call", "everything__trigger-elicitation-request",
				"--pause",
				"--wait-for-tool", "extra__echo", "--within", "60000",
				"--call", "extra__echo", "--args", `{"text":"from the new server"}`,
			}
			if transport == "stdio" {
				spec, _ := json.Marshal(map[string]any{
					"command": sb,
					"args":    append(e.globalArgs(), "serve", "--standalone"),
					"env":     e.env(),
				})
				args = append(args, "--stdio", string(spec))
			} else {
				args = append(args, "--url", e.startHTTP(t))
			}

			steps := runTSClient(t, node, args, func() { e.addServer(t, "extra") })

			list := steps.one(t, "list")
			for _, want := range []string{"demo__echo", "demo__sleep", "everything__echo", "everything__trigger-sampling-request"} {
				if !slices.Contains(list.strings("tools"), want) {
					t.Errorf("tools/list has no %s: %v", want, list.strings("tools"))
				}
			}
			if call := steps.call(t, "demo__echo"); call.str("text") != "hello through serve" || call.bool("isError") {
				t.Errorf("demo__echo: %v", call)
			}
			tsCheckProgress(t, steps.one(t, "progress"), 3)
			if c := steps.one(t, "cancel"); c.str("outcome") != "aborted" || !c.bool("pingOk") || c.num("progressCount") < 1 {
				t.Errorf("cancel: want the call aborted at its progress and the session going on, got %v", c)
			}
			s := steps.call(t, "everything__trigger-sampling-request")
			if s.bool("isError") || !strings.Contains(s.str("text"), "fixed reply from the TS client") ||
				!slices.Contains(s.methods(), "sampling/createMessage") {
				t.Errorf("sampling: want the server's request answered by the client, got %v", s)
			}
			if el := steps.call(t, "everything__trigger-elicitation-request"); el.bool("isError") ||
				!strings.Contains(el.str("text"), "Ada") || !slices.Contains(el.methods(), "elicitation/create") {
				t.Errorf("elicitation: want the server's request answered by the client, got %v", el)
			}
			if w := steps.one(t, "wait-for-tool"); !w.bool("ok") || w.num("notifications") < 1 {
				t.Errorf("after the config edit: want a tools/list_changed and extra__echo, got %v", w)
			}
			if call := steps.call(t, "extra__echo"); call.str("text") != "from the new server" {
				t.Errorf("extra__echo: %v", call)
			}
			for _, s := range steps {
				if !s.bool("ok") {
					t.Errorf("step %s failed: %v", s.str("step"), s)
				}
			}
		})
	}
}

// tsCheckProgress checks a progress step of a call that sent steps
// notifications, the last one just before its result
// (trigger-long-running-operation sleeps before each): all in order, with
// the call's total, and none lost but perhaps the last. That one races the
// result through serve and is sometimes missing (a notification the
// upstream sent before its response reaches the gateway after it), over
// stdio and HTTP alike; straight from server-everything all arrive.
func tsCheckProgress(t *testing.T, p tsStep, steps int) {
	t.Helper()
	if p.bool("isError") || p.str("text") == "" {
		t.Errorf("progress: want the call's result, got %v", p)
	}
	list, _ := p["progress"].([]any)
	for i, v := range list {
		n, _ := v.(map[string]any)
		if n["progress"] != float64(i+1) || n["total"] != float64(steps) {
			t.Errorf("progress notification %d: want %d of %d, got %v", i, i+1, steps, v)
		}
	}
	switch {
	case len(list) == steps:
	case len(list) == steps-1:
		t.Logf("progress: the last of %d notifications came after the result and was dropped", steps)
	default:
		t.Errorf("progress: want %d notifications (the last may be lost), got %d", steps, len(list))
	}
}

// tsClientScript returns test/peers/gateway-client.mjs, beside the
// node_modules folder the peers live in (whose SDK it imports).
func tsClientScript(t *testing.T) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(peers.Dir(t)), "gateway-client.mjs")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the TypeScript client: %v", err)
	}
	return p
}

// tsBuildSwitchboard builds cmd/switchboard into the test's folder: serve
// is tested as the program people run.
func tsBuildSwitchboard(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("switchboard is built with the go command, which is not on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "switchboard")
	cmd := exec.Command(goCmd, "build", "-o", bin, "./cmd/switchboard")
	cmd.Dir = ".." // the module root: this package is gateway/
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/switchboard: %v\n%s", err, out)
	}
	return bin
}

// tsServe is one switchboard serve setup: a config, state and cache
// folders of its own, and the mark its processes carry.
type tsServe struct {
	sb, dir, config, mark string
	everything            string
	everythingArgs        []string
	servers               map[string]any
}

func newTSServe(t *testing.T, sb, everything string, everythingArgs []string) *tsServe {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"state", "cache", "project", "config"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e := &tsServe{
		sb: sb, dir: dir, config: filepath.Join(dir, "config", "mcp.json"),
		mark:       strconv.FormatUint(rand.Uint64(), 36),
		everything: everything, everythingArgs: everythingArgs,
	}
	e.servers = map[string]any{
		"demo":       e.demo("demo"),
		"everything": map[string]any{"command": everything, "args": everythingArgs, "env": map[string]string{tsMarkEnv: e.mark}},
	}
	e.writeConfig(t)
	t.Cleanup(func() { tsReapMarked(t, e.mark) })
	return e
}

func (e *tsServe) demo(name string) map[string]any {
	return map[string]any{
		"command": e.sb,
		"args":    []string{"demo-server", "--name", name, "--test-tools"},
		"env":     map[string]string{tsMarkEnv: e.mark},
	}
}

// writeConfig replaces the config file in one rename, as an editor that
// saves atomically does, so serve never reads half of it.
func (e *tsServe) writeConfig(t *testing.T) {
	t.Helper()
	data, err := json.MarshalIndent(map[string]any{"mcpServers": e.servers}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	tmp := e.config + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, e.config); err != nil {
		t.Fatal(err)
	}
}

// addServer adds a demo server named name to the config while serve runs.
func (e *tsServe) addServer(t *testing.T, name string) {
	t.Helper()
	e.servers[name] = e.demo(name)
	e.writeConfig(t)
}

// globalArgs are switchboard's flags before the command: this config
// only, and nothing of the user's read or written.
func (e *tsServe) globalArgs() []string {
	return []string{
		"--config", e.config, "--no-discover",
		"--state-dir", filepath.Join(e.dir, "state"), "--cache-dir", filepath.Join(e.dir, "cache"),
		"--project", filepath.Join(e.dir, "project"), "--trust-project",
	}
}

// env is what serve's environment adds to the inherited one.
func (e *tsServe) env() map[string]string {
	return map[string]string{
		tsMarkEnv:         e.mark,
		"XDG_CONFIG_HOME": filepath.Join(e.dir, "xdg-config"),
		"XDG_STATE_HOME":  filepath.Join(e.dir, "state"),
		"XDG_CACHE_HOME":  filepath.Join(e.dir, "cache"),
	}
}

// startHTTP starts switchboard serve --http on a port the kernel picks,
// waits for its "serving on URL" line and returns the URL. t.Cleanup
// sends SIGTERM and waits, under a bound, for it to exit.
func (e *tsServe) startHTTP(t *testing.T, extra ...string) string {
	t.Helper()
	cmd := exec.Command(e.sb, append(append(e.globalArgs(), "serve", "--http", "127.0.0.1:0"), extra...)...)
	cmd.Env = os.Environ()
	for k, v := range e.env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	procgroup.Set(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	var log tsLog
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			log.add(line)
			if rest, ok := strings.CutPrefix(line, "serving on "); ok {
				select {
				case urls <- strings.TrimSpace(rest):
				default:
				}
			}
		}
	}()
	exited := make(chan error, 1)
	go func() {
		<-drained // Wait closes the pipe: read it to the end first
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Errorf("switchboard serve: %v", err)
			}
		case <-time.After(tsExitBound):
			t.Errorf("switchboard serve did not exit %v after SIGTERM; killing its group", tsExitBound)
			_ = procgroup.Kill(cmd.Process.Pid)
			<-exited
		}
		if t.Failed() {
			t.Logf("switchboard serve's stderr:\n%s", log.String())
		}
	})
	select {
	case url := <-urls:
		return url
	case err := <-exited:
		exited <- err // for the cleanup
		t.Fatalf("switchboard serve exited before serving: %v\n%s", err, log.String())
	case <-time.After(tsRunBound):
		t.Fatalf("switchboard serve printed no \"serving on\" line in %v\n%s", tsRunBound, log.String())
	}
	return ""
}

// tsStep is one line of the client's output.
type tsStep map[string]any

func (s tsStep) str(k string) string  { v, _ := s[k].(string); return v }
func (s tsStep) bool(k string) bool   { v, _ := s[k].(bool); return v }
func (s tsStep) num(k string) float64 { v, _ := s[k].(float64); return v }
func (s tsStep) strings(k string) []string {
	var out []string
	l, _ := s[k].([]any)
	for _, v := range l {
		if str, ok := v.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

// methods are those of the server's requests the client answered during the step.
func (s tsStep) methods() []string {
	var out []string
	l, _ := s["requests"].([]any)
	for _, r := range l {
		if m, ok := r.(map[string]any); ok {
			if method, ok := m["method"].(string); ok {
				out = append(out, method)
			}
		}
	}
	return out
}

func (s tsStep) String() string { b, _ := json.Marshal(map[string]any(s)); return string(b) }

type tsSteps []tsStep

// one returns the only step of that kind.
func (ss tsSteps) one(t *testing.T, kind string) tsStep {
	t.Helper()
	var found []tsStep
	for _, s := range ss {
		if s.str("step") == kind {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s step, got %d", kind, len(found))
	}
	return found[0]
}

// call returns the call step of tool name.
func (ss tsSteps) call(t *testing.T, name string) tsStep {
	t.Helper()
	for _, s := range ss {
		if s.str("step") == "call" && s.str("name") == name {
			return s
		}
	}
	t.Fatalf("no call of %s", name)
	return nil
}

// runTSClient runs the client under tsRunBound, calls atPause when it
// pauses and then lets it go on, and returns its steps. The client, and
// for stdio the switchboard it starts, run in a process group of their
// own, which is killed if the run outlives its bound.
func runTSClient(t *testing.T, node string, args []string, atPause func()) tsSteps {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), tsRunBound)
	defer cancel()
	cmd := exec.Command(node, args...)
	procgroup.Set(cmd)
	var stderr tsLog
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := context.AfterFunc(ctx, func() { _ = procgroup.Kill(cmd.Process.Pid) })
	defer stop()

	var steps tsSteps
	var out bytes.Buffer
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Bytes()
		out.Write(line)
		out.WriteByte('\n')
		var s tsStep
		if err := json.Unmarshal(line, &s); err != nil {
			t.Errorf("not a JSON line: %q", line)
			continue
		}
		if s["event"] == "pause" {
			atPause()
			if _, err := io.WriteString(stdin, "go\n"); err != nil {
				t.Errorf("resuming the client: %v", err)
			}
			continue
		}
		steps = append(steps, s)
	}
	stdin.Close()
	err = cmd.Wait()
	t.Logf("TS client run: %v", time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Errorf("the TS client did not finish in %v", tsRunBound)
	}
	if err != nil {
		t.Errorf("the TS client: %v", err)
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("TS client stdout:\n%s\nstderr:\n%s", out.String(), stderr.String())
	}
	if len(steps) == 0 || steps[0].str("step") != "connect" || !steps[0].bool("ok") {
		t.Fatalf("the TS client did not connect")
	}
	if last := steps[len(steps)-1]; last.str("step") != "close" {
		t.Fatalf("the TS client did not close: its last line is %v", last)
	}
	return steps
}

// tsReapMarked fails the test if a process carrying mark outlives the
// bound, and kills it.
func tsReapMarked(t *testing.T, mark string) {
	t.Helper()
	deadline := time.Now().Add(tsExitBound)
	for {
		pids := tsMarked(mark)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				t.Errorf("left behind: pid %d, %s", pid, bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte{' '}))
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
			}
			return
		}
		time.Sleep(50 * time.Millisecond) // polling /proc: there is no event for another process's exit
	}
}

// tsMarked lists the live processes whose environment has tsMarkEnv=mark.
// Zombies have no environment to read; where there is no /proc, none is
// found.
func tsMarked(mark string) []int {
	want := []byte(tsMarkEnv + "=" + mark + "\x00")
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid)); err == nil && bytes.Contains(env, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// tsLog collects a process's output lines for failure messages.
type tsLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *tsLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *tsLog) add(line string) { _, _ = l.Write([]byte(line + "\n")) }

func (l *tsLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
