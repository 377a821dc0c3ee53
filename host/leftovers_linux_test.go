package host_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/proctest"
)

// What a server started outside its process group — by setsid in a shell,
// by setsid or setpgid in the demo's grandchild — ends with the server:
// when the server dies by itself and when the host closes, with the
// subreaper on or off; with it on, nothing is left as a zombie either
// (DESIGN.md F17).
func TestLeftoversEndWithTheirServer(t *testing.T) {
	for _, subreaper := range []bool{false, true} {
		t.Run(fmt.Sprintf("subreaper=%v", subreaper), func(t *testing.T) {
			arg := proctest.UniqueSleep() // this test's sleep alone
			t.Cleanup(func() { proctest.KillSleeping(arg) })
			shell := demoServer(t, "shell")
			shell.Args = []string{"-c", `setsid sleep ` + arg + ` & exec "$0" --name shell`, shell.Command}
			shell.Command = "/bin/sh"
			configs := []config.ServerConfig{
				shell,
				demoServer(t, "setsid", "--grandchild-leaves", "setsid"),
				demoServer(t, "setpgid", "--grandchild-leaves", "setpgid"),
			}
			h := host.New(&host.Options{Subreaper: subreaper})
			defer h.Close()
			sub := h.Subscribe()
			defer sub.Close()
			if err := h.Start(context.Background(), configs); err != nil {
				t.Fatal(err)
			}
			names := []string{"shell", "setsid", "setpgid"}
			w := newWatcher(t, sub)
			w.until("connected", func() bool {
				return w.reached(host.StateConnected, names...) && w.grandchildren("setsid", "setpgid")
			})
			left := w.take(arg)

			// Each server dies by itself; the host notices and reconnects.
			for _, name := range names {
				if err := syscall.Kill(status(t, h, name).PID, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
			w.until("reconnecting", func() bool { return w.reached(host.StateConnecting, names...) })
			checkEnded(t, "after the servers died", left, subreaper)

			w.until("reconnected", func() bool {
				return w.reached(host.StateConnected, names...) && w.grandchildren("setsid", "setpgid")
			})
			left = w.take(arg)
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			checkEnded(t, "after Close", left, subreaper)
			if pids := proctest.Sleeping(arg); len(pids) > 0 {
				t.Errorf("sleep %s still running as %v", arg, pids)
			}
		})
	}
}

// watcher follows a host's events: the grandchild pids servers report and
// the states they reach.
type watcher struct {
	t      *testing.T
	sub    *host.Subscription
	pids   map[string]int
	states map[string]host.State
}

var grandchildLine = regexp.MustCompile(`grandchild pid (\d+)`)

func newWatcher(t *testing.T, sub *host.Subscription) *watcher {
	return &watcher{t: t, sub: sub, pids: map[string]int{}, states: map[string]host.State{}}
}

// until reads events until done says so.
func (w *watcher) until(what string, done func() bool) {
	w.t.Helper()
	for !done() {
		e := await(w.t, w.sub, what, func(host.Event) bool { return true })
		switch e.Type {
		case host.EventLog:
			if m := grandchildLine.FindStringSubmatch(e.Message); m != nil {
				w.pids[e.Server], _ = strconv.Atoi(m[1])
			}
		case host.EventState:
			w.states[e.Server] = e.State
		}
	}
}

func (w *watcher) grandchildren(names ...string) bool {
	for _, n := range names {
		if w.pids[n] == 0 {
			return false
		}
	}
	return true
}

func (w *watcher) reached(state host.State, names ...string) bool {
	for _, n := range names {
		if w.states[n] != state {
			return false
		}
	}
	return true
}

// take returns the processes the servers left outside their groups, and
// forgets them and the states so that the next until sees only what comes
// next: each demo server's grandchild, and the shell server's sleep once it
// runs.
func (w *watcher) take(arg string) map[string]int {
	w.t.Helper()
	left := w.pids
	w.pids, w.states = map[string]int{}, map[string]host.State{}
	killAfter(w.t, left)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if pids := proctest.Sleeping(arg); len(pids) == 1 {
			left["shell"] = pids[0]
			return left
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("sleep %s: %v, want one", arg, proctest.Sleeping(arg))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func checkEnded(t *testing.T, when string, left map[string]int, subreaper bool) {
	t.Helper()
	for name, pid := range left {
		if alive(pid) {
			t.Errorf("%s: %s's leftover %d still running", when, name, pid)
		}
		// A leftover killed as its server ended may die a moment later
		// and be reaped on the SIGCHLD that follows: a zombie is a bug
		// only if it stays one.
		if subreaper && !eventually(func() bool { return !zombieOfOurs(pid) }) {
			t.Errorf("%s: %s's leftover %d is a zombie nobody reaped", when, name, pid)
		}
	}
}

// killAfter kills, when the test ends, whichever leftover a failed test
// left running.
func killAfter(t *testing.T, left map[string]int) {
	t.Cleanup(func() {
		for _, pid := range left {
			if alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// eventually reports whether cond holds within faultBound, looking every
// few milliseconds: for a process's state, which no event announces.
func eventually(cond func() bool) bool {
	deadline := time.Now().Add(faultBound)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// zombieOfOurs reports whether pid is an unreaped zombie child of the test.
func zombieOfOurs(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(f) > 1 && f[0] == "Z" && f[1] == strconv.Itoa(os.Getpid())
}
