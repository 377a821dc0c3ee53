//go:build unix

// Package replicatest runs real `switchboard serve --http` replicas behind
// a real HAProxy, configured by docs/deploy/haproxy.cfg, on loopback; its
// own tests are the replica tests of SPEC F64. Only tests import it.
package replicatest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
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
)

// MarkEnv is set in the environment of every process a Cluster starts
// (and so of their children): the cleanup finds what is left by it.
const MarkEnv = "SWITCHBOARD_REPLICATEST_MARK"

// StartBound bounds a replica's start, from exec to its "serving on"
// line: a cold start connects its servers first, under -race on a busy
// two-core machine.
const StartBound = 60 * time.Second

// ExitBound is how long a process gets to exit once told to: the drain
// of a replica with no call in flight is immediate, and its servers get
// a few seconds to close.
const ExitBound = 20 * time.Second

// Cluster is a set of replicas serving one shared config file, each
// with state and cache folders of its own, and the HAProxy in front.
type Cluster struct {
	Bin    string // the switchboard binary
	Dir    string // the test's folder: config, replicas' state
	Config string // the shared config file
	Mark   string // MarkEnv's value for this cluster

	// Top is more of the config file beside mcpServers ("profiles",
	// "access", "limits", "pinTools"), written by WriteConfig.
	Top map[string]any

	servers  map[string]any
	Replicas []*Replica
}

// New is a cluster of switchboard bin whose config has servers (name →
// entry, as in mcpServers); no process runs until Start.
func New(t testing.TB, bin string, servers map[string]any) *Cluster {
	t.Helper()
	dir := t.TempDir()
	c := &Cluster{
		Bin: bin, Dir: dir, Config: filepath.Join(dir, "mcp.json"),
		Mark:    strconv.FormatUint(rand.Uint64(), 36),
		servers: map[string]any{},
	}
	for k, v := range servers {
		c.servers[k] = v
	}
	c.WriteConfig(t)
	t.Cleanup(func() { c.reap(t) })
	return c
}

// Demo is a config entry for the bundled demo server with its test
// tools, marked as this cluster's.
func (c *Cluster) Demo(name string) map[string]any {
	return map[string]any{
		"command": c.Bin,
		"args":    []string{"demo-server", "--name", name, "--test-tools"},
		"env":     map[string]string{MarkEnv: c.Mark},
	}
}

// SetServer adds or replaces a server in the shared config and writes
// it, as an operator's edit would reach every replica's watcher.
func (c *Cluster) SetServer(t testing.TB, name string, entry map[string]any) {
	t.Helper()
	c.servers[name] = entry
	c.WriteConfig(t)
}

// WriteConfig replaces the config file in one rename, as an editor that
// saves atomically does, so no replica reads half of it.
func (c *Cluster) WriteConfig(t testing.TB) {
	t.Helper()
	doc := map[string]any{"mcpServers": c.servers}
	for k, v := range c.Top {
		doc[k] = v
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	tmp := c.Config + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, c.Config); err != nil {
		t.Fatal(err)
	}
}

// ReplicaDir, in a flag of Start's extra, is each replica's own folder:
// "--audit-log", ReplicaDir+"/audit.jsonl" gives each its own file.
const ReplicaDir = "{replica}"

// Start starts n replicas, each on a loopback port the kernel picks,
// with serve's flags extra (ReplicaDir in them replaced), and waits for
// each to serve.
func (c *Cluster) Start(t testing.TB, n int, extra ...string) {
	t.Helper()
	for i := range n {
		name := fmt.Sprintf("r%d", i+1)
		dir := filepath.Join(c.Dir, name)
		for _, sub := range []string{"state", "cache", "project", "xdg-config"} {
			if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		own := make([]string, len(extra))
		for j, a := range extra {
			own[j] = strings.ReplaceAll(a, ReplicaDir, dir)
		}
		r := &Replica{Name: name, Addr: "127.0.0.1:0", c: c, dir: dir, extra: own}
		c.Replicas = append(c.Replicas, r)
		r.Start(t)
	}
}

// Replica is one `switchboard serve --http` process, started again on
// the same address after it stops.
type Replica struct {
	Name string
	Addr string // host:port, fixed once the first start chose the port
	URL  string // http://Addr/mcp

	c     *Cluster
	dir   string
	extra []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // cmd.Wait's, once exited is closed
	log    logLines
}

// Dir is the replica's own folder: its state ("state", where the pin
// file is), cache and project folders.
func (r *Replica) Dir() string { return r.dir }

// Command is switchboard args run as this replica's operator would: the
// replica's config, state and folders (its pin file, for `tools
// approve`), under StartBound. It returns the output, both streams.
func (r *Replica) Command(t testing.TB, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), StartBound)
	defer cancel()
	global := r.args()
	global = global[:slices.Index(global, "serve")]
	cmd := exec.CommandContext(ctx, r.c.Bin, append(global, args...)...)
	cmd.Env = r.env()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Pid is the running process's id.
func (r *Replica) Pid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cmd.Process.Pid
}

// args are the flags that keep a replica to the shared config and its
// own folders: nothing of the user's is read or written.
func (r *Replica) args() []string {
	a := []string{
		"--config", r.c.Config, "--no-discover",
		"--state-dir", filepath.Join(r.dir, "state"), "--cache-dir", filepath.Join(r.dir, "cache"),
		"--project", filepath.Join(r.dir, "project"), "--trust-project",
		"serve", "--http", r.Addr,
	}
	return append(a, r.extra...)
}

// env is a replica's environment: its own XDG folders and the mark.
func (r *Replica) env() []string {
	return append(os.Environ(),
		MarkEnv+"="+r.c.Mark,
		"XDG_CONFIG_HOME="+filepath.Join(r.dir, "xdg-config"),
		"XDG_STATE_HOME="+filepath.Join(r.dir, "state"),
		"XDG_CACHE_HOME="+filepath.Join(r.dir, "cache"),
	)
}

// Start starts the replica and waits, under StartBound, for its
// "serving on URL" line; the first start learns the port.
func (r *Replica) Start(t testing.TB) {
	t.Helper()
	cmd := exec.Command(r.c.Bin, r.args()...)
	cmd.Env = r.env()
	procgroup.Set(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	urls := make(chan string, 1)
	r.mu.Lock()
	r.cmd, r.exited = cmd, exited
	r.mu.Unlock()
	go func() { // owned by the process: ends when Wait has reaped it
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			r.log.add(r.Name, line)
			if rest, ok := strings.CutPrefix(line, "serving on "); ok {
				select {
				case urls <- strings.TrimSpace(rest):
				default:
				}
			}
		}
		err := cmd.Wait() // after the pipe is read to its end
		r.mu.Lock()
		r.err = err
		r.mu.Unlock()
		close(exited)
	}()
	select {
	case u := <-urls:
		r.URL = u
		r.Addr = strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp")
	case <-exited:
		t.Fatalf("replica %s exited before serving: %v\n%s", r.Name, r.exitErr(), r.log.String())
	case <-time.After(StartBound):
		t.Fatalf("replica %s printed no \"serving on\" line in %v\n%s", r.Name, StartBound, r.log.String())
	}
}

func (r *Replica) exitErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Signal sends sig to the replica's process (not its servers: a replica
// ends those itself).
func (r *Replica) Signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	r.mu.Lock()
	p := r.cmd.Process
	r.mu.Unlock()
	if err := p.Signal(sig); err != nil {
		t.Fatalf("replica %s: %v: %v", r.Name, sig, err)
	}
}

// Wait waits, under ExitBound, for the replica to exit and returns how:
// nil for exit 0.
func (r *Replica) Wait(t testing.TB) error {
	t.Helper()
	r.mu.Lock()
	exited := r.exited
	r.mu.Unlock()
	select {
	case <-exited:
		return r.exitErr()
	case <-time.After(ExitBound):
		t.Fatalf("replica %s did not exit within %v\n%s", r.Name, ExitBound, r.log.String())
		return nil
	}
}

// Running says whether the process has not exited.
func (r *Replica) Running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exited == nil {
		return false
	}
	select {
	case <-r.exited:
		return false
	default:
		return true
	}
}

// Log is what the replica wrote on stderr, every start's.
func (r *Replica) Log() string { return r.log.String() }

// stop ends a replica still running: SIGCONT (a test may have stopped
// it), SIGTERM, and its process group killed if it outlives ExitBound.
func (r *Replica) stop(t testing.TB) {
	if !r.Running() {
		return
	}
	r.mu.Lock()
	p, exited := r.cmd.Process, r.exited
	r.mu.Unlock()
	_ = p.Signal(syscall.SIGCONT)
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(ExitBound):
		t.Errorf("replica %s did not exit %v after SIGTERM; killing its group", r.Name, ExitBound)
		_ = procgroup.Kill(p.Pid)
		<-exited
	}
}

// reap stops every replica and then checks that no process of the
// cluster is left, killing (by pid) any that is.
func (c *Cluster) reap(t testing.TB) {
	for _, r := range c.Replicas {
		r.stop(t)
	}
	if t.Failed() {
		for _, r := range c.Replicas {
			t.Logf("replica %s's stderr:\n%s", r.Name, r.Log())
		}
	}
	if left := awaitGone(c.Mark, ExitBound); len(left) > 0 {
		for _, l := range left {
			t.Errorf("left behind: %s", l)
		}
	}
}

// logLines keeps a process's stderr lines for a failing test's log.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(who, line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, who+": "+line)
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// awaitGone polls /proc, under bound, until no live process carries
// MarkEnv=mark, and kills and describes those that still do: there is no
// event for another process's exit.
func awaitGone(mark string, bound time.Duration) []string {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	for {
		pids := marked(mark)
		if len(pids) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			var left []string
			for _, pid := range pids {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				left = append(left, fmt.Sprintf("pid %d, %s", pid, strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " ")))
				_ = syscall.Kill(pid, syscall.SIGCONT)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return left
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// marked lists the live processes whose environment has MarkEnv=mark.
// Zombies have no environment to read; where there is no /proc, none is
// found.
func marked(mark string) []int {
	want := MarkEnv + "=" + mark + "\x00"
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err == nil && strings.Contains(string(env), want) {
			pids = append(pids, pid)
		}
	}
	return pids
}
