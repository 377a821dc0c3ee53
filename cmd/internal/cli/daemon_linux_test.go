package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/switchboard-mcp/switchboard/daemon"
	"github.com/switchboard-mcp/switchboard/host"
)

// daemonMachine runs this test binary as switchboard against a config of
// one demo server, with a home, a runtime and a state folder of its own.
type daemonMachine struct {
	exe, dir, cfg, state, runtime string
}

func newDaemonMachine(t *testing.T) *daemonMachine {
	t.Helper()
	dir, err := os.MkdirTemp("", "sbcli")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := &daemonMachine{exe: exe, dir: dir, cfg: filepath.Join(dir, "mcp.json"), state: filepath.Join(dir, "state"), runtime: filepath.Join(dir, "run")}
	if err := os.Mkdir(m.runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, m.cfg, `{"mcpServers": {"demo": {"command": "`+exe+`", "args": ["demo-server"], "env": {"`+asCLI+`": "1"}}}}`)
	return m
}

// socket is the socket of the daemon the machine's flags name
// (daemon-HASH.sock: they are not the person's own), once one started.
func (m *daemonMachine) socket(t *testing.T) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(m.runtime, "switchboard", "daemon-*.sock"))
	if len(found) != 1 {
		t.Fatalf("daemon sockets %q, want one", found)
	}
	return found[0]
}

// run runs switchboard with args and returns its stdout, stderr and exit
// code.
func (m *daemonMachine) run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(m.exe, append([]string{"--config", m.cfg, "--no-discover", "--project", m.dir, "--state-dir", m.state}, args...)...)
	cmd.Env = append(os.Environ(), asCLI+"=1", "HOME="+m.dir, "XDG_RUNTIME_DIR="+m.runtime, "XDG_CACHE_HOME="+filepath.Join(m.dir, "cache"))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// childrenRunning are pid's children whose command line holds arg.
func childrenRunning(pid int, arg string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", child))
		_, rest, _ := strings.Cut(string(stat), ") ")
		f := strings.Fields(rest)
		if len(f) < 2 || f[1] != strconv.Itoa(pid) || f[0] == "Z" {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", child))
		if strings.Contains(string(cmdline), "\x00"+arg) {
			pids = append(pids, child)
		}
	}
	return pids
}

// awaitExit waits for a process that is not this one's child to exit:
// its pidfd becomes readable then (an event, not a poll of /proc).
func awaitExit(t *testing.T, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return // gone already
	}
	if err != nil {
		t.Skipf("pidfd_open: %v", err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(time.Minute/time.Millisecond))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			t.Fatalf("process %d did not exit: %v", pid, err)
		}
		return
	}
}

// TestDaemonStartStatusStop: `daemon start` leaves a daemon running in
// the background with the server started once, `status` reports it,
// `stop` ends it and its server, and nothing is left.
func TestDaemonStartStatusStop(t *testing.T) {
	m := newDaemonMachine(t)

	out, _, code := m.run(t, "daemon", "status")
	if code != 1 || !strings.Contains(out, "not running") {
		t.Errorf("status before start: %d %q", code, out)
	}
	out, errOut, code := m.run(t, "daemon", "start")
	socket := m.socket(t)
	var pid int
	if _, err := fmt.Sscanf(out, "daemon started (pid %d) on "+socket+"\n", &pid); err != nil || code != 0 {
		t.Fatalf("start: %d %q %q", code, out, errOut)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			unix.Kill(pid, unix.SIGKILL)
		}
	})
	out, _, code = m.run(t, "daemon", "start")
	if code != 0 || out != fmt.Sprintf("a daemon already runs (pid %d) on %s\n", pid, socket) {
		t.Errorf("second start: %d %q", code, out)
	}
	out, errOut, code = m.run(t, "daemon", "status", "--json")
	var st struct {
		Running bool
		PID     int
		Socket  string
		Servers []struct{ Name, State string }
		States  map[string]int
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("status --json: %d %q %q: %v", code, out, errOut, err)
	}
	if !st.Running || st.PID != pid || st.Socket != socket || len(st.Servers) != 1 || st.Servers[0].Name != "demo" {
		t.Errorf("status --json: %+v", st)
	}
	servers := childrenRunning(pid, "demo-server")
	if len(servers) != 1 {
		t.Errorf("the daemon runs servers %v, want one", servers)
	}
	// A client of the daemon: discovery as sources --json shows it, and
	// the tools under serve's names.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := daemon.Dial(ctx, socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, err := c.Sources(ctx)
	var sources struct {
		Servers []struct{ Name string }
	}
	if err != nil || json.Unmarshal(raw, &sources) != nil || len(sources.Servers) != 1 || sources.Servers[0].Name != "demo" {
		t.Errorf("Sources = %s, %v", raw, err)
	}
	if _, err := c.Find(ctx, host.KindTool, "demo__echo"); err != nil {
		t.Errorf("Find(demo__echo): %v", err)
	}
	res, err := c.CallTool(ctx, "demo__echo", map[string]any{"text": "via the daemon"})
	if err != nil || host.ResultText(res) != "via the daemon" {
		t.Errorf("echo through the daemon: %q, %v", host.ResultText(res), err)
	}
	for path, want := range map[string]os.FileMode{socket: 0o600 | os.ModeSocket, filepath.Dir(socket): 0o700 | os.ModeDir, filepath.Join(m.state, "daemon.log"): 0o600} {
		if info, err := os.Lstat(path); err != nil || info.Mode() != want {
			t.Errorf("%s: %v, %v; want %v", path, info.Mode(), err, want)
		}
	}

	out, _, code = m.run(t, "daemon", "stop")
	if code != 0 || out != fmt.Sprintf("daemon stopped (pid %d)\n", pid) {
		t.Errorf("stop: %d %q", code, out)
	}
	stopped = true
	// Stop returns once the daemon closed its servers; the process exits
	// right after.
	if left := childrenRunning(pid, "demo-server"); len(left) > 0 {
		t.Errorf("servers %v still run after stop", left)
	}
	awaitExit(t, pid)
	if _, err := os.Lstat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is left: %v", err)
	}
	out, _, code = m.run(t, "daemon", "status")
	if code != 1 || !strings.Contains(out, "not running") {
		t.Errorf("status after stop: %d %q", code, out)
	}
	out, _, code = m.run(t, "daemon", "stop")
	if code != 0 || !strings.Contains(out, "not running") {
		t.Errorf("stop with none running: %d %q", code, out)
	}
}

// TestDaemonKilledAndStartedAgain: a daemon killed outright leaves its
// socket; status says it is not running, and start replaces the stale
// socket with a new daemon.
func TestDaemonKilledAndStartedAgain(t *testing.T) {
	m := newDaemonMachine(t)
	out, errOut, code := m.run(t, "daemon", "start", "--idle", "0")
	socket := m.socket(t)
	var pid int
	if _, err := fmt.Sscanf(out, "daemon started (pid %d)", &pid); err != nil || code != 0 {
		t.Fatalf("start: %d %q %q", code, out, errOut)
	}
	servers := childrenRunning(pid, "demo-server")
	if err := unix.Kill(pid, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	awaitExit(t, pid)
	for _, s := range servers { // their input closed with the daemon
		awaitExit(t, s)
	}
	if _, err := os.Lstat(socket); err != nil {
		t.Fatalf("a killed daemon's socket should be left behind: %v", err)
	}
	out, _, code = m.run(t, "daemon", "status")
	if code != 1 || !strings.Contains(out, "not running") {
		t.Errorf("status of a killed daemon: %d %q", code, out)
	}
	out, errOut, code = m.run(t, "daemon", "start")
	var again int
	if _, err := fmt.Sscanf(out, "daemon started (pid %d)", &again); err != nil || code != 0 || again == pid {
		t.Fatalf("start after the kill: %d %q %q", code, out, errOut)
	}
	defer awaitExit(t, again)
	if out, _, code := m.run(t, "daemon", "stop"); code != 0 {
		t.Errorf("stop: %d %q", code, out)
	}
}

// TestDaemonRunSIGTERM: `daemon run` in the foreground drains on SIGTERM
// and exits 0, its socket gone.
func TestDaemonRunSIGTERM(t *testing.T) {
	m := newDaemonMachine(t)
	cmd := exec.Command(m.exe, "--config", m.cfg, "--no-discover", "--project", m.dir, "--state-dir", m.state, "daemon", "run")
	cmd.Env = append(os.Environ(), asCLI+"=1", "HOME="+m.dir, "XDG_RUNTIME_DIR="+m.runtime, "XDG_CACHE_HOME="+filepath.Join(m.dir, "cache"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "daemon: serving") {
			break
		}
	}
	socket := m.socket(t)
	if out, _, code := m.run(t, "daemon", "status"); code != 0 || !strings.Contains(out, fmt.Sprintf("running (pid %d) on %s", cmd.Process.Pid, socket)) {
		t.Errorf("status of the foreground daemon: %d %q", code, out)
	}
	if err := cmd.Process.Signal(unix.SIGTERM); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, stderr)
	if err := cmd.Wait(); err != nil {
		t.Errorf("daemon run after SIGTERM: %v (want exit 0)", err)
	}
	if _, err := os.Lstat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is left: %v", err)
	}
}

// TestDaemonProblemsFollowReloads: a config file the daemon cannot read
// is a problem status reports until the file is fixed.
func TestDaemonProblemsFollowReloads(t *testing.T) {
	m := newDaemonMachine(t)
	broken := filepath.Join(m.dir, "more.json")
	writeFile(t, broken, `{"mcpServers": {`)
	out, errOut, code := m.run(t, "--config", broken, "daemon", "start")
	var pid int
	if _, err := fmt.Sscanf(out, "daemon started (pid %d)", &pid); err != nil || code != 0 {
		t.Fatalf("start: %d %q %q", code, out, errOut)
	}
	defer awaitExit(t, pid)
	defer m.run(t, "--config", broken, "daemon", "stop")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := daemon.Dial(ctx, m.socket(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	in, err := c.Info(ctx)
	if err != nil || len(in.Problems) != 1 || !strings.Contains(in.Problems[0], broken) {
		t.Fatalf("Info.Problems = %q, %v; want one naming %s", in.Problems, err, broken)
	}
	events, err := c.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	writeFile(t, broken, `{"mcpServers": {"more": {"command": "`+exe+`", "args": ["demo-server"], "env": {"`+asCLI+`": "1"}}}}`)
	for e := range events { // the fixed file's server starts: the reload is done
		if e.Server == "more" {
			break
		}
	}
	if in, err := c.Info(ctx); err != nil || len(in.Problems) != 0 {
		t.Errorf("Info.Problems after the fix = %q, %v", in.Problems, err)
	}
}
