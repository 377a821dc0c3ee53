package reap

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

var self = os.Getpid()

// Tree returns pid and its descendants as they are now. Given to End, it
// finds them after their parent died, and even when they dropped the mark
// from their environment; take it while pid still runs.
func Tree(pid int) []Proc {
	var out []Proc
	for _, s := range descend(look().stats, func(s stat) bool { return s.pid == pid }) {
		out = append(out, s.proc())
	}
	return out
}

// End ends every process that carries m, every process in known that still
// runs, and every descendant of those: SIGTERM, up to LeftoverTermGrace for them to
// go, then SIGKILL until none is left, for at most KillWait. Those that
// were this process's children (adopted orphans, with Subreaper on) are
// reaped; with Subreaper on, so is every other orphan that has exited.
// The error names what survived SIGKILL.
func End(m Mark, known []Proc) error {
	roots := map[Proc]bool{}
	for _, p := range known {
		roots[p] = true
	}
	seen := map[Proc]stat{} // everything found, for reaping
	find := func() []stat {
		var live []stat
		snap := look()
		for _, s := range descend(snap.stats, func(s stat) bool { return roots[s.proc()] || m != "" && !s.exited() && snap.hasMark(s.pid, m) }) {
			seen[s.proc()] = s
			roots[s.proc()] = true // its children, forked after this scan, are found by the next
			if !s.exited() {
				live = append(live, s)
			}
		}
		return live
	}
	var err error
	if live := find(); len(live) > 0 {
		signalAll(live, unix.SIGTERM)
		waitGone(live, time.Now().Add(LeftoverTermGrace))
		deadline := time.Now().Add(KillWait)
		for live = find(); len(live) > 0; live = find() {
			signalAll(live, unix.SIGKILL)
			if !waitGone(live, deadline) {
				err = survivors(live)
				break
			}
		}
	}
	var zombies []stat
	for _, s := range seen {
		zombies = append(zombies, s)
	}
	reapZombies(zombies)
	if sub.on.Load() {
		sweep()
	}
	return err
}

// descend returns the processes root picks and all their descendants,
// never this process itself.
func descend(all []stat, root func(stat) bool) []stat {
	children := map[int][]stat{}
	var queue []stat
	in := map[int]bool{self: true}
	for _, s := range all {
		children[s.ppid] = append(children[s.ppid], s)
		if !in[s.pid] && root(s) {
			in[s.pid] = true
			queue = append(queue, s)
		}
	}
	for i := 0; i < len(queue); i++ {
		for _, c := range children[queue[i].pid] {
			if !in[c.pid] {
				in[c.pid] = true
				queue = append(queue, c)
			}
		}
	}
	return queue
}

// signalAll sends sig to each process that is still the one found. With a
// pidfd the signal reaches exactly that process; without one (before Linux
// 5.3) a pid that was reused between the scan and the signal would be hit,
// which a few microseconds make as unlikely as it is for pkill.
func signalAll(procs []stat, sig unix.Signal) {
	for _, s := range procs {
		fd, err := unix.PidfdOpen(s.pid, 0)
		if err != nil {
			if errors.Is(err, unix.ESRCH) {
				continue
			}
			_ = unix.Kill(s.pid, sig)
			continue
		}
		if cur, ok := readStat(s.pid); ok && cur.start == s.start {
			_ = unix.PidfdSendSignal(fd, sig, nil, 0)
		}
		unix.Close(fd)
	}
}

// waitGone waits until every process has exited or deadline passes, and
// reports whether they all did.
func waitGone(procs []stat, deadline time.Time) bool {
	for {
		procs = stillRunning(procs)
		if len(procs) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
}

func stillRunning(procs []stat) []stat {
	var out []stat
	for _, s := range procs {
		if cur, ok := readStat(s.pid); ok && cur.start == s.start && !cur.exited() {
			out = append(out, s)
		}
	}
	return out
}

func survivors(procs []stat) error {
	procs = stillRunning(procs)
	pids := make([]int, 0, len(procs))
	for _, s := range procs {
		pids = append(pids, s.pid)
	}
	sort.Ints(pids)
	return fmt.Errorf("processes %v did not exit after SIGKILL", pids)
}

// reapZombies collects the exit status of each candidate that is a zombie
// child of this process and nobody else's to collect: not started through
// Start, and not held by a pidfd of this process (an os/exec child of the
// embedding program). It never waits for "any child", which would take
// an exec.Cmd's status from its Wait.
func reapZombies(candidates []stat) {
	started.mu.Lock()
	defer started.mu.Unlock()
	var held map[int]bool
	for _, c := range candidates {
		cur, ok := readStat(c.pid)
		if !ok || cur.start != c.start || cur.ppid != self || cur.state != 'Z' || started.pids[c.pid] > 0 {
			continue
		}
		if held == nil {
			held = pidfdTargets()
		}
		if !held[c.pid] {
			reapZombie(cur)
		}
	}
}

// reapZombie waits for the zombie z, a child of this process. Through a
// pidfd it is exactly z; without one it is z's pid, which the kernel does
// not hand out again before its parent (this process) has reaped it.
func reapZombie(z stat) {
	fd, err := unix.PidfdOpen(z.pid, 0)
	if err != nil {
		_, _ = unix.Wait4(z.pid, nil, unix.WNOHANG, nil)
		return
	}
	defer unix.Close(fd)
	if cur, ok := readStat(z.pid); !ok || cur.start != z.start || cur.state != 'Z' {
		return
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PIDFD, fd, &info, unix.WEXITED|unix.WNOHANG, nil); errors.Is(err, unix.EINVAL) {
		_, _ = unix.Wait4(z.pid, nil, unix.WNOHANG, nil) // Linux 5.3 has pidfds but no P_PIDFD
	}
}

// adopted returns the running children of this process that are nobody
// else's: orphans it adopted as a subreaper. Only where Go holds a pidfd
// for each of its own children (Linux 5.4 and later) can those be told
// from the program's other children; elsewhere it returns none.
func adopted() []Proc {
	if !pidfdsHeld() {
		return nil
	}
	started.mu.Lock()
	defer started.mu.Unlock()
	held := pidfdTargets()
	var out []Proc
	for _, s := range allStats() {
		if s.ppid == self && !s.exited() && started.pids[s.pid] == 0 && !held[s.pid] {
			out = append(out, s.proc())
		}
	}
	return out
}

// pidfdsHeld reports whether Go holds a pidfd for the children it starts.
var pidfdsHeld = sync.OnceValue(func() bool {
	cmd := exec.Command("/bin/true")
	if err := cmd.Start(); err != nil {
		return false
	}
	defer cmd.Wait()
	return pidfdTargets()[cmd.Process.Pid]
})

// sweep reaps every zombie child of this process that is nobody else's.
func sweep() {
	var zombies []stat
	for _, s := range look().stats {
		if s.ppid == self && s.state == 'Z' {
			zombies = append(zombies, s)
		}
	}
	if len(zombies) > 0 {
		reapZombies(zombies)
	}
}

// sub is the subreaper's state: one per process, as the setting is.
var sub struct {
	mu      sync.Mutex
	users   int
	restore bool // the process was no subreaper before the first user
	stop    chan struct{}
	done    chan struct{}
	on      atomic.Bool
}

// Subreaper makes this process a child subreaper (prctl
// PR_SET_CHILD_SUBREAPER): an orphan among its descendants — a process
// whose parent died, one that left by setsid included — is re-parented to
// it instead of to init, so End still finds it by its ancestry, and its
// exit status comes here. Until release, a goroutine reaps those orphans
// as they exit (on SIGCHLD), never a child started through Start or held
// by a pidfd of this process (any os/exec child of the program, on Linux
// 5.4 and later; an older kernel, or syscall.ForkExec, gives Go no pidfd,
// and such a child of the program's may be reaped).
//
// The setting is the whole process's, and calls nest: the first turns it
// on, the last release reaps what has exited and turns it off again if it
// was off before. An orphan adopted meanwhile that still runs then stays a
// child, and becomes a zombie nobody reaps when it exits.
func Subreaper() (release func(), err error) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.users == 0 {
		// Heap-allocated, so the pointer the kernel writes through stays
		// valid whatever the stack does meanwhile.
		was := new(int32)
		if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(was)), 0, 0, 0); err != nil {
			return nil, fmt.Errorf("child subreaper: %w", err)
		}
		on := *was != 0
		runtime.KeepAlive(was)
		if !on {
			if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
				return nil, fmt.Errorf("child subreaper: %w", err)
			}
		}
		sub.restore = !on
		sub.stop, sub.done = make(chan struct{}), make(chan struct{})
		sub.on.Store(true)
		go watch(sub.stop, sub.done)
	}
	sub.users++
	var once sync.Once
	return func() { once.Do(releaseSubreaper) }, nil
}

func releaseSubreaper() {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.users--; sub.users > 0 {
		return
	}
	// An orphan that dropped its mark (double fork, setsid, an empty
	// environment) is found by nothing but its parent, which is this
	// process now: it ends here, or it would outlive the host as init's.
	if orphans := adopted(); len(orphans) > 0 {
		_ = End("", orphans)
	}
	close(sub.stop)
	<-sub.done
	sub.on.Store(false)
	if sub.restore {
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	}
}

// watch reaps exited orphans whenever a child's state changes, until stop.
func watch(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	ch := make(chan os.Signal, 1) // one pending signal stands for any number: each sweep takes them all
	signal.Notify(ch, unix.SIGCHLD)
	defer signal.Stop(ch)
	sweep() // an orphan adopted by an earlier user may have exited unseen
	for {
		select {
		case <-ch:
			sweep()
		case <-stop:
			sweep()
			return
		}
	}
}

// awaitExit returns once the process pid, a child not yet waited for, has
// exited: its pidfd turns readable then, and the runtime's poller waits
// for that on no thread of its own, where waitid would block one for the
// whole life of the child. Without pidfds (Linux before 5.3) it returns
// at once, and the caller's Wait blocks as before. The pid cannot be
// another process's meanwhile: a child that has not been waited for keeps
// its pid, and the reaper never takes one of Start's.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Read(func(fd uintptr) bool {
		// Read calls this, and again each time the poller says the fd
		// is readable; a pidfd is readable once its process exited.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		return err != nil || n > 0
	})
}
