// Package reap ends what a child leaves behind outside its process group:
// descendants that called setsid or setpgid, or whose parent died. Each
// child carries a Mark in its environment, which its descendants inherit,
// so End finds them even after they moved; on Linux the process may also
// adopt orphans as a child subreaper (DESIGN.md F17, "Processes").
package reap

import (
	"crypto/rand"
	"encoding/hex"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// EnvVar is the environment variable that carries a Mark.
const EnvVar = "SWITCHBOARD_MARK"

// Bounded waits of End (DESIGN.md F17). Left-behind processes are orphans
// of a server that has already been given its own grace; they get a short
// one for SIGTERM, and SIGKILL is bounded by what the kernel needs (a
// process in uninterruptible sleep ends when its I/O does).
const (
	// LeftoverTermGrace is how long End waits after SIGTERM before SIGKILL:
	// shorter than a server's (transport.ServerTermGrace), because the
	// server they came from has had that already.
	LeftoverTermGrace = 500 * time.Millisecond
	// KillWait bounds the wait for killed processes to be gone.
	KillWait = 2 * time.Second
	// pollEvery is how often End looks whether signalled processes have
	// gone: an exit is seen within it, and a few hundred reads of /proc
	// per second cost nothing.
	pollEvery = 5 * time.Millisecond
)

// A Mark tells the processes of one child (a server, a secret helper) and
// everything they start from all others: a random id in EnvVar, which
// descendants inherit through setsid, setpgid and a parent's death.
type Mark string

// NewMark returns a fresh, random Mark.
func NewMark() Mark {
	var b [12]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return Mark(hex.EncodeToString(b[:]))
}

// Env is the environment entry that carries m.
func (m Mark) Env() string { return EnvVar + "=" + string(m) }

// Set returns env with m in it, dropping any EnvVar already there: a
// config's env cannot give a server another child's mark.
func (m Mark) Set(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, EnvVar+"=") {
			out = append(out, kv)
		}
	}
	return append(out, m.Env())
}

// started counts the processes started through Start and not yet waited
// for. The reaper never waits for one of them: its exit status is its
// exec.Cmd's. Start holds the lock across cmd.Start, and the reaper holds
// it from looking at a zombie until it has waited for it, so a child that
// exits at once is never taken for an orphan.
var started struct {
	mu   sync.Mutex
	pids map[int]int // a count: a pid's next process may start before Wait forgets the last
}

// Start starts cmd so that the reaper (Subreaper, End) leaves its exit
// status to cmd.Wait. Every process this module starts goes through Start
// and Wait.
func Start(cmd *exec.Cmd) error {
	started.mu.Lock()
	defer started.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	if started.pids == nil {
		started.pids = map[int]int{}
	}
	started.pids[cmd.Process.Pid]++
	return nil
}

// Wait waits for a command started with Start, as cmd.Wait does. On
// Linux it first waits on the runtime's poller until the process has
// exited, so a host with a hundred servers waiting for theirs does not
// hold a hundred threads blocked in waitid.
func Wait(cmd *exec.Cmd) error {
	awaitExit(cmd.Process.Pid)
	err := cmd.Wait()
	started.mu.Lock()
	defer started.mu.Unlock()
	pid := cmd.Process.Pid
	if started.pids[pid]--; started.pids[pid] <= 0 {
		delete(started.pids, pid)
	}
	return err
}

// Proc is one process, told apart from a later one with the same pid by
// when it started.
type Proc struct {
	PID   int
	start uint64 // clock ticks after boot (Linux; zero elsewhere)
}
