package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/cmd/internal/cli"
	"github.com/switchboard-mcp/switchboard/daemon"
	"github.com/switchboard-mcp/switchboard/internal/testkit/oauthtest"
)

// asCLI makes this test binary act as switchboard when a test's config
// launches it directly (testscript's own dispatch is by program name).
const asCLI = "SWITCHBOARD_TEST_AS_CLI"

// asTerminal, set to a number of columns, makes the switchboard of a
// script take stdout and stderr for a terminal that wide: colour (unless
// NO_COLOR), the notes and the progress line, as a person sees them.
const asTerminal = "SWITCHBOARD_TEST_TERMINAL"

func TestMain(m *testing.M) {
	os.Setenv("GORACE", "atexit_sleep_ms=0") // inherited by server children
	if os.Getenv(asCLI) == "1" {
		os.Exit(cli.Main(os.Args[1:], cli.StdIO()))
	}
	if os.Getenv(asAncestorProbe) == "1" {
		pid, ok := cli.ServingAncestor()
		fmt.Println(pid, ok)
		os.Exit(0)
	}
	testscript.Main(leakChecked{m}, map[string]func(){
		"switchboard": func() { os.Exit(cli.Main(os.Args[1:], scriptIO())) },
		"fakebrowser": fakeBrowser,
	})
}

// asAncestorProbe makes the test binary print what servingAncestor finds.
const asAncestorProbe = "SWITCHBOARD_TEST_ANCESTOR_PROBE"

// A switchboard serve among a process's parents is found however the
// environment was changed on the way (env -u, env -i): the guard that
// stops a serve that a serve started, when SWITCHBOARD_STARTED_BY is gone.
func TestServingAncestor(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		script string
		want   string
	}{
		// A parent named switchboard, serving: found, two levels up.
		{`exec -a switchboard bash -c 'env -i ` + asAncestorProbe + `=1 "$PROBE_EXE"; true' serve`, "true"},
		// The same parent listing: not a serve.
		{`exec -a switchboard bash -c 'env -i ` + asAncestorProbe + `=1 "$PROBE_EXE"; true' list`, "false"},
	} {
		cmd := exec.Command("bash", "-c", tc.script)
		cmd.Env = append(os.Environ(), "PROBE_EXE="+exe)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", tc.script, err)
		}
		if fields := strings.Fields(string(out)); len(fields) != 2 || fields[1] != tc.want {
			t.Errorf("%s: probe said %q, want found %s", tc.script, out, tc.want)
		}
	}
}

// scriptIO is the process's streams, taken for a terminal under asTerminal.
func scriptIO() cli.IO {
	stdio := cli.StdIO()
	if cols, err := strconv.Atoi(os.Getenv(asTerminal)); err == nil {
		os.Unsetenv(asTerminal) // not for the servers it starts
		stdio.OutTTY, stdio.ErrTTY = true, true
		stdio.Width = func() int { return cols }
	}
	return stdio
}

// leakChecked fails a passing run that left goroutines behind, as
// goleak.VerifyTestMain does. That one exits by itself, which testscript.Main
// (which also exits, after removing its temporary bin directory) must do.
type leakChecked struct{ m *testing.M }

func (l leakChecked) Run() int {
	code := l.m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			return 1
		}
	}
	return code
}

// TestScripts runs the end-to-end scripts in testdata/script: each one a
// fresh HOME with no config, the real binary, real demo server processes.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			env.Setenv("NO_COLOR", "1")
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			// A serve over stdio starts a daemon and leaves it running,
			// as it should for a person: the script's end stops it.
			env.Defer(func() { stopDaemons(filepath.Join(home, ".local", "state", "switchboard", "run")) })
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":   cmdExits,
			"mkfifo":  cmdMkfifo,
			"bigfile": cmdBigfile,
			"oauth":   cmdOAuth,
		},
	})
}

// stopDaemons stops every daemon listening in dir and waits until each
// has closed its servers.
func stopDaemons(dir string) {
	sockets, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
	for _, socket := range sockets {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if c, err := daemon.Dial(ctx, socket); err == nil {
			_ = c.Stop(ctx)
			c.Close()
		}
		cancel()
	}
}

// cmdExits runs a command and checks its exit code:
//
//	exits 2 switchboard call nosuchtool
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// cmdMkfifo makes a named pipe: mkfifo .mcp.json
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o600))
}

// cmdBigfile writes a valid config file of at least SIZE bytes, padded
// with a long string: bigfile .mcp.json 5000000
func cmdBigfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: bigfile PATH SIZE")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	data := `{"mcpServers": {}, "pad": "` + strings.Repeat("x", n) + `"}`
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(data), 0o600))
}

// TestInterruptEndsLoading: the command line's context reaches discovery,
// so an interrupt (here before anything is read) ends a command that
// loads configs with exit 130, having started nothing.
func TestInterruptEndsLoading(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"x": {"command": "/nonexistent"}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env := map[string]string{"HOME": dir, "SWITCHBOARD_POLICY": filepath.Join(dir, "no-policy.json")}
	for _, cmd := range []string{"list", "sources"} {
		var out, errs strings.Builder
		code := cli.Run(ctx, []string{"--project", dir, "--state-dir", dir, cmd}, cli.IO{
			In: strings.NewReader(""), Out: &out, Err: &errs,
			Getenv:    func(k string) string { return env[k] },
			LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		})
		if code != 130 || out.Len() > 0 {
			t.Errorf("%s after an interrupt: exit %d, stdout %q, stderr %q; want 130 and nothing listed", cmd, code, out.String(), errs.String())
		}
	}
}

// TestWatchJSON runs watch in-process until it has printed a server's
// whole start, then interrupts it: every line is one JSON object with the
// documented fields, and the interrupt ends it with exit 0.
func TestWatchJSON(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mcp.json")
	writeFile(t, cfg, `{"mcpServers": {"demo": {"command": "`+exe+`", "args": ["demo-server", "--stderr-lines"], "env": {"`+asCLI+`": "1"}}}}`)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))

	sc, stop := startWatch(t, cfg)
	seen := map[string]bool{}
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line is not JSON: %q", sc.Text())
		}
		for _, k := range []string{"time", "type", "server"} {
			if _, ok := e[k]; !ok {
				t.Errorf("event without %q: %s", k, sc.Text())
			}
		}
		if ts, _ := e["time"].(string); ts == "" {
			t.Errorf("no time: %s", sc.Text())
		} else if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("time: %v", err)
		}
		switch e["type"] {
		case "state":
			if _, ok := e["pid"]; !ok {
				t.Errorf("state event without pid: %s", sc.Text())
			}
			seen["state:"+e["state"].(string)] = true
			if e["state"] == "connected" && e["pid"].(float64) <= 0 {
				t.Errorf("connected without a pid: %s", sc.Text())
			}
		case "log":
			seen["log"] = true
		case "tools":
			seen["tools"] = true
		}
		if seen["state:connecting"] && seen["state:connected"] && seen["log"] && seen["tools"] {
			break
		}
	}
	stop() // the interrupt ends it with exit 0
	for _, want := range []string{"state:connecting", "state:connected", "log", "tools"} {
		if !seen[want] {
			t.Errorf("watch output ended without a %s event (saw %v)", want, seen)
		}
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestWatchShowsKillAndRecovery: a person kills a server by hand while
// watch runs, and watch --json tells the whole story: connected with a
// pid, connecting after the drop, connected again under a new pid.
func TestWatchShowsKillAndRecovery(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mcp.json")
	writeFile(t, cfg, `{"mcpServers": {
		"victim": {"command": "`+exe+`", "args": ["demo-server"], "env": {"`+asCLI+`": "1"}},
		"bystander": {"command": "`+exe+`", "args": ["demo-server"], "env": {"`+asCLI+`": "1"}}}}`)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))

	sc, stop := startWatch(t, cfg)
	defer stop()

	type event = watchEvent
	next := func(match func(event) bool) event {
		t.Helper()
		return nextEvent(t, sc, "an event", match)
	}
	state := func(server, st string) func(event) bool {
		return func(e event) bool { return e.Type == "state" && e.Server == server && e.State == st }
	}
	first := next(state("victim", "connected"))
	if first.PID == nil || *first.PID <= 0 {
		t.Fatalf("connected event without a pid: %+v", first)
	}
	if err := syscall.Kill(*first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	lost := next(func(e event) bool { return e.Type == "state" && e.Server != "bystander" && e.State == "connecting" })
	if lost.Server != "victim" || !strings.Contains(lost.Error, "connection lost") {
		t.Errorf("after the kill: %+v", lost)
	}
	back := next(func(e event) bool {
		if e.Type == "state" && e.Server == "bystander" && e.Error != "" {
			t.Errorf("the bystander was disturbed: %+v", e)
		}
		return e.Type == "state" && e.Server == "victim" && e.State == "connected"
	})
	if back.PID == nil || *back.PID == *first.PID || *back.PID <= 0 {
		t.Errorf("back under pid %v, was %d", back.PID, *first.PID)
	}
}

// nextEvent reads watch's output (watchEvent, watch_test.go) up to the
// first event that matches; the output ending first fails the test,
// naming what it waited for.
func nextEvent(t *testing.T, sc *bufio.Scanner, what string, match func(watchEvent) bool) watchEvent {
	t.Helper()
	for sc.Scan() {
		var e watchEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		if match(e) {
			return e
		}
	}
	t.Fatalf("watch output ended waiting for %s: %v", what, sc.Err())
	return watchEvent{}
}

// startWatch runs `switchboard --config cfg watch --json` in this process.
// stop interrupts it, as Ctrl-C would, and checks that it exited 0; it also
// runs when the test ends, however it ends. A watch still running after
// watchBound is interrupted too, so a missing event ends the output and
// fails the test instead of hanging it.
func startWatch(t *testing.T, cfg string) (lines *bufio.Scanner, stop func()) {
	t.Helper()
	return startWatchArgs(t, "--config", cfg, "watch", "--json")
}

// startWatchArgs is startWatch with the command line given whole.
func startWatchArgs(t *testing.T, args ...string) (lines *bufio.Scanner, stop func()) {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), watchBound)
	done := make(chan int, 1)
	go func() {
		defer pw.Close()
		done <- cli.Run(ctx, args, cli.IO{
			In: strings.NewReader(""), Out: pw, Err: io.Discard,
			Getenv: os.Getenv, LookupEnv: os.LookupEnv,
		})
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			go io.Copy(io.Discard, pr) // watch must never block writing
			if code := <-done; code != 0 {
				t.Errorf("watch exited %d after the interrupt, want 0", code)
			}
		})
	}
	t.Cleanup(stop)
	return bufio.NewScanner(pr), stop
}

// watchBound is far beyond what any watch test needs on a working host.
const watchBound = 2 * time.Minute

// fakeBrowser is $BROWSER in the auth scripts: what a person's browser
// does with an authorization page that approves at once. It loads the
// url given, takes the redirect it answers with, and loads that (the
// client's loopback callback).
func fakeBrowser() {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(u string) *http.Response {
		resp, err := client.Get(u)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakebrowser:", err)
			os.Exit(1)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := get(os.Args[1])
	if resp.StatusCode != http.StatusFound {
		fmt.Fprintln(os.Stderr, "fakebrowser: authorization page answered", resp.Status)
		os.Exit(1)
	}
	if cb := get(resp.Header.Get("Location")); cb.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "fakebrowser: callback answered", cb.Status)
		os.Exit(1)
	}
	os.Exit(0)
}

// oauthServers are the authorization servers of running scripts.
var oauthServers sync.Map // *testscript.TestScript → *oauthtest.Server

// cmdOAuth runs a real authorization server, and an MCP server that needs
// it, for the rest of the script (internal/oauthtest):
//
//	oauth start CONFIG   start them; write CONFIG naming the server "secure"
//	oauth revoke         refuse every refresh and access token issued so far
//	oauth nosecrets      fail if stdout or stderr holds a token it issued
//	oauth filemode PERM  check the mode of the token file
func cmdOAuth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: oauth start CONFIG | revoke | nosecrets | filemode PERM")
	}
	if args[0] == "start" {
		srv, err := oauthtest.Start(oauthtest.Options{})
		ts.Check(err)
		ts.Defer(srv.Close)
		oauthServers.Store(ts, srv)
		ts.Defer(func() { oauthServers.Delete(ts) })
		cfg := `{"mcpServers": {"secure": {"type": "http", "url": "` + srv.URL + `"}}}`
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(cfg), 0o600))
		return
	}
	v, ok := oauthServers.Load(ts)
	if !ok {
		ts.Fatalf("oauth: no server started")
	}
	srv := v.(*oauthtest.Server)
	switch args[0] {
	case "revoke":
		srv.RevokeRefreshTokens()
		srv.ExpireAccessTokens()
	case "nosecrets":
		for _, name := range []string{"stdout", "stderr"} {
			out := ts.ReadFile(name)
			for _, secret := range srv.Secrets() {
				if secret != "" && strings.Contains(out, secret) {
					ts.Fatalf("%s holds a token the authorization server issued", name)
				}
			}
		}
	case "filemode":
		fi, err := os.Stat(filepath.Join(ts.Getenv("XDG_STATE_HOME"), "switchboard", "oauth", "tokens.json"))
		ts.Check(err)
		if got := fmt.Sprintf("%o", fi.Mode().Perm()); got != args[1] {
			ts.Fatalf("token file mode %s, want %s", got, args[1])
		}
	default:
		ts.Fatalf("oauth: unknown %q", args[0])
	}
}
