package cli_test

// One switchboard per person, tried as a new user would (issue 24's
// "done when"): `client connect` writes the entries of two apps; the
// TypeScript SDK's client, standing in for each app, launches what its
// entry says; the command line attaches too; they share one set of
// servers; a server's failure reaches both clients and `logs` shows what
// it said; the daemon killed under them comes back. Every process is
// real and every wait is for an event under a bound.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/procgroup"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// appRunBound bounds a scripted app session's step: a 2-core CI machine
// running every package's race tests is many times slower than a laptop.
// appExitBound is how long a process gets to end once told.
const (
	appRunBound  = 2 * time.Minute
	appExitBound = 15 * time.Second
)

// oneBox is a person's machine: a home with switchboard's own config, a
// runtime folder for the daemon's socket, and a file every server start
// is written to.
type oneBox struct {
	exe, home, runtime, spawns, broken string
	env                                []string
}

func newOneBox(t *testing.T) *oneBox {
	dir, err := os.MkdirTemp("", "sbbox")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The binary people run is called switchboard: a link of this test
	// binary by that name, which is how discovery knows an app's entry
	// for what it is (switchboard itself, not one of its servers).
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(exe, filepath.Join(bin, "switchboard")); err != nil {
		t.Skipf("cannot link the test binary as switchboard: %v", err)
	}
	exe = filepath.Join(bin, "switchboard")
	b := &oneBox{exe: exe, home: filepath.Join(dir, "home"), runtime: filepath.Join(dir, "run"),
		spawns: filepath.Join(dir, "spawns"), broken: filepath.Join(dir, "broken")}
	for _, d := range []string{b.home, b.runtime, filepath.Join(b.home, ".config", "switchboard")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	b.env = append(os.Environ(), asCLI+"=1", "HOME="+b.home, "XDG_RUNTIME_DIR="+b.runtime,
		"XDG_CONFIG_HOME="+filepath.Join(b.home, ".config"), "XDG_STATE_HOME="+filepath.Join(b.home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(b.home, ".cache"))
	// Each server notes its start, then runs the demo server; db, once
	// the demo server is gone, says what a server with a broken database
	// says, and exits 1.
	server := func(name, after string) map[string]any {
		script := fmt.Sprintf(`echo %s >> %q; %q demo-server --name %s; %s`, name, b.spawns, exe, name, after)
		return map[string]any{"command": "/bin/sh", "args": []string{"-c", script}, "env": map[string]string{asCLI: "1"}}
	}
	cfg := map[string]any{"mcpServers": map[string]any{
		"notes": server("notes", "exit 0"),
		"db":    server("db", `echo "cannot open database `+filepath.Join(dir, "db.sqlite")+`" >&2; exit 1`),
	}}
	data, _ := json.Marshal(cfg)
	writeFile(t, filepath.Join(b.home, ".config", "switchboard", "mcp.json"), string(data))
	return b
}

// switchboard runs a command to its end: stdout, stderr, exit code.
func (b *oneBox) switchboard(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(b.exe, args...)
	cmd.Env, cmd.Dir = b.env, b.home
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return stdout.String(), stderr.String(), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), 0
}

// starts counts the server starts so far, by name.
func (b *oneBox) starts() map[string]int {
	data, _ := os.ReadFile(b.spawns)
	n := map[string]int{}
	for _, name := range strings.Fields(string(data)) {
		n[name]++
	}
	return n
}

// appClient is the TypeScript client launched as an app launches its
// entry: each step's line awaited on its stdout.
type appClient struct {
	name  string
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan map[string]any
}

func (b *oneBox) launchApp(t *testing.T, app string, entry map[string]any, steps ...string) *appClient {
	t.Helper()
	node := peers.Node(t)
	script := filepath.Join(filepath.Dir(peers.Dir(t)), "gateway-client.mjs")
	spec, _ := json.Marshal(map[string]any{"command": entry["command"], "args": entry["args"], "env": map[string]string{
		asCLI: "1", "HOME": b.home, "XDG_RUNTIME_DIR": b.runtime,
		"XDG_CONFIG_HOME": filepath.Join(b.home, ".config"), "XDG_STATE_HOME": filepath.Join(b.home, ".local", "state"),
		"XDG_CACHE_HOME": filepath.Join(b.home, ".cache")}, "cwd": b.home})
	args := append([]string{script, "--name", app, "--timeout", "120000"}, steps...)
	cmd := exec.Command(node, append(args, "--stdio", string(spec))...)
	cmd.Env = b.env
	procgroup.Set(cmd)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &appClient{name: app, cmd: cmd, in: in, lines: make(chan map[string]any, 64)}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) == nil {
				c.lines <- line
			}
		}
	}()
	t.Cleanup(func() {
		in.Close()
		if cmd.ProcessState != nil {
			return // waited for by the test
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(appExitBound):
			procgroup.Kill(cmd.Process.Pid)
			<-done
		}
		if t.Failed() {
			t.Logf("%s's stderr:\n%s", app, stderr.String())
		}
	})
	return c
}

// next is the client's next line, which must be ok.
func (c *appClient) next(t *testing.T, want string) map[string]any {
	t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			t.Fatalf("%s ended before %s", c.name, want)
		}
		got, _ := line["step"].(string)
		if ev, _ := line["event"].(string); ev != "" {
			got = ev
		}
		if got != want || (line["ok"] != nil && line["ok"] != true) {
			t.Fatalf("%s: want %s, got %v", c.name, want, line)
		}
		return line
	case <-time.After(appRunBound):
		t.Fatalf("%s: no %s within %v", c.name, want, appRunBound)
	}
	return nil
}

// resume lets a paused client go on: its pause's event line was read,
// the step's own line follows.
func (c *appClient) resume(t *testing.T) {
	if _, err := io.WriteString(c.in, "go\n"); err != nil {
		t.Fatal(err)
	}
}

// entryOf reads the switchboard entry `client connect` wrote in an app's
// config file.
func entryOf(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	e := cfg.MCPServers["switchboard"]
	if e == nil {
		t.Fatalf("%s has no switchboard entry:\n%s", path, data)
	}
	return e
}

func TestOneSwitchboardForEveryClient(t *testing.T) {
	b := newOneBox(t)
	t.Cleanup(func() { b.switchboard(t, "daemon", "stop") })
	for _, app := range []string{"claude-desktop", "cursor"} {
		if out, errOut, code := b.switchboard(t, "client", "connect", app, "--command", b.exe); code != 0 {
			t.Fatalf("client connect %s: exit %d\n%s%s", app, code, out, errOut)
		}
	}
	desktop := entryOf(t, filepath.Join(b.home, ".config", "Claude", "claude_desktop_config.json"))
	cursor := entryOf(t, filepath.Join(b.home, ".cursor", "mcp.json"))
	if desktop["command"] != b.exe || fmt.Sprint(desktop["args"]) != "[serve]" {
		t.Fatalf("claude-desktop's entry: %v", desktop)
	}

	steps := []string{"--log-level", "warning", "--list", "--call", "notes__echo", "--args", `{"text":"hi"}`,
		"--pause", "--wait-log", "cannot open database", "--within", "60000",
		"--pause", "--wait-for-tool", "notes__echo", "--within", "60000", "--call", "notes__echo", "--args", `{"text":"back"}`}
	apps := []*appClient{b.launchApp(t, "claude-desktop", desktop, steps...)}
	apps[0].next(t, "connect") // the first bridge started the daemon
	apps = append(apps, b.launchApp(t, "cursor", cursor, steps...))
	apps[1].next(t, "connect")
	for _, c := range apps {
		if list := c.next(t, "list"); !strings.Contains(fmt.Sprint(list["tools"]), "db__echo") {
			t.Fatalf("%s lists %v", c.name, list["tools"])
		}
		c.next(t, "call")
		c.next(t, "pause")
	}

	// The command line attaches: it starts no server.
	before := b.starts()
	out, errOut, code := b.switchboard(t, "list", "--json")
	if code != 0 {
		t.Fatalf("list: exit %d\n%s%s", code, out, errOut)
	}
	if out, _, _ := b.switchboard(t, "call", "notes/echo", "text=from the terminal"); strings.TrimSpace(out) != "from the terminal" {
		t.Fatalf("call through the daemon: %q", out)
	}
	if got := b.starts(); fmt.Sprint(got) != fmt.Sprint(before) || got["notes"] != 1 || got["db"] != 1 {
		t.Fatalf("server starts %v after two apps and the command line, want one each (before the command line: %v)", got, before)
	}

	// db's demo server dies: its wrapper says why and exits 1.
	var statuses []struct {
		Name string
		PID  int
	}
	if err := json.Unmarshal([]byte(out), &statuses); err != nil {
		t.Fatal(err)
	}
	for _, st := range statuses {
		if st.Name == "db" {
			for _, child := range childrenRunning(st.PID, "demo-server") {
				syscall.Kill(child, syscall.SIGKILL)
			}
		}
	}
	for _, c := range apps {
		c.resume(t)
		c.next(t, "pause") // the step's own line, once resumed
		if log := c.next(t, "wait-log"); log["level"] != "warning" && log["level"] != "error" {
			t.Errorf("%s was told at level %v", c.name, log["level"])
		}
		c.next(t, "pause")
	}
	if out, _, _ := b.switchboard(t, "logs", "db"); !strings.Contains(out, "cannot open database") {
		t.Errorf("logs db does not show what the server said:\n%s", out)
	}

	// The daemon killed under the apps: their bridges start it again and
	// restore their sessions.
	out, _, _ = b.switchboard(t, "daemon", "status", "--json")
	var st struct{ PID int }
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.PID == 0 {
		t.Fatalf("daemon status: %v\n%s", err, out)
	}
	syscall.Kill(st.PID, syscall.SIGKILL)
	awaitExit(t, st.PID)
	for _, c := range apps {
		c.resume(t)
		c.next(t, "pause")
		c.next(t, "wait-for-tool")
		if call := c.next(t, "call"); call["text"] != "back" {
			t.Errorf("%s after the daemon came back: %v", c.name, call)
		}
	}
	out, _, _ = b.switchboard(t, "daemon", "status", "--json")
	var again struct{ PID int }
	if json.Unmarshal([]byte(out), &again) != nil || again.PID == 0 || again.PID == st.PID {
		t.Fatalf("no new daemon after the kill: %s", out)
	}
	for _, c := range apps {
		c.next(t, "close")
		c.in.Close()
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if out, errOut, code := b.switchboard(t, "daemon", "stop"); code != 0 {
		t.Fatalf("daemon stop: exit %d\n%s%s", code, out, errOut)
	}
	// Nothing of this machine's is left: no bridge, daemon or server.
	for _, pid := range b.processes() {
		awaitExit(t, pid)
	}
}

// processes are the live processes of this machine's: their environment
// names its runtime folder.
func (b *oneBox) processes() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && strings.Contains("\x00"+string(env), "\x00XDG_RUNTIME_DIR="+b.runtime+"\x00") {
			pids = append(pids, pid)
		}
	}
	return pids
}
