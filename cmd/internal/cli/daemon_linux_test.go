package cli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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
	socket := filepath.Join(m.runtime, "switchboard", "daemon.sock")

	out, _, code := m.run(t, "daemon", "status")
	if code != 1 || !strings.Contains(out, "not running") {
		t.Errorf("status before start: %d %q", code, out)
	}
	out, errOut, code := m.run(t, "daemon", "start")
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
