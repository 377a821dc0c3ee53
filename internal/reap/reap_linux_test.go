package reap

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

// The test binary doubles as a helper that starts a sleep which leaves its
// process group (REAP_TEST_HELPER names how), prints the sleep's pid, and
// then waits for stdin to close — or exits at once with REAP_TEST_EXIT, so
// the sleep is orphaned.
func TestMain(m *testing.M) {
	if mode := os.Getenv("REAP_TEST_HELPER"); mode != "" {
		os.Exit(helper(mode, os.Getenv("REAP_TEST_ARG"), os.Getenv("REAP_TEST_EXIT") == "1"))
	}
	os.Setenv("GORACE", "atexit_sleep_ms=0") // a race-built helper would pause a second at exit
	goleak.VerifyTestMain(m)
}

func helper(mode, arg string, exit bool) int {
	cmd := exec.Command("sleep", arg)
	switch mode {
	case "setsid":
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	case "setpgid":
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	case "unmarked": // leaves, and drops the mark from its environment
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(cmd.Process.Pid)
	if !exit {
		_, _ = io.Copy(io.Discard, os.Stdin)
	}
	return 0
}

// escapee is a sleep that left its parent's process group.
type escapee struct {
	parent *exec.Cmd
	stdin  io.WriteCloser
	mark   Mark
	arg    string // the sleep's unique argument
	pid    int
	start  uint64
}

// startEscapee runs the helper with a fresh mark, in a process group of
// its own as the transport starts servers, and returns once the sleep it
// started is running. Whatever the test leaves is killed, by pid.
func startEscapee(t *testing.T, mode string, exit bool) *escapee {
	t.Helper()
	e := &escapee{mark: NewMark(), arg: strconv.Itoa(1_000_000 + rand.IntN(9_000_000))}
	env := append(os.Environ(), "REAP_TEST_HELPER="+mode, "REAP_TEST_ARG="+e.arg)
	if exit {
		env = append(env, "REAP_TEST_EXIT=1")
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = e.mark.Set(env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	e.parent, e.stdin = cmd, stdin
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	if e.pid, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
		t.Fatalf("helper said %q", line)
	}
	s, ok := readStat(e.pid)
	if !ok {
		t.Fatalf("sleep %d is not running", e.pid)
	}
	e.start = s.start
	t.Cleanup(func() {
		if s, ok := readStat(e.pid); ok && s.start == e.start && !s.exited() {
			_ = unix.Kill(e.pid, unix.SIGKILL)
		}
		e.endParent()
	})
	return e
}

// endParent kills the helper and waits for it, if that was not done yet.
func (e *escapee) endParent() {
	if e.parent == nil {
		return
	}
	_ = e.parent.Process.Kill()
	e.stdin.Close()
	_ = Wait(e.parent)
	e.parent = nil
}

// running reports whether a process with the sleep's unique argument runs.
func (e *escapee) running(t *testing.T) []int {
	t.Helper()
	var pids []int
	for _, s := range allStats() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.pid))
		if string(cmdline) == "sleep\x00"+e.arg+"\x00" && !s.exited() {
			pids = append(pids, s.pid)
		}
	}
	return pids
}

// gone reports whether the sleep has been reaped, not just killed.
func (e *escapee) reaped() bool {
	s, ok := readStat(e.pid)
	return !ok || s.start != e.start
}

// End finds a process that left the group, by its mark, whether its
// parent still runs or has died.
func TestEndFindsWhatLeftTheGroup(t *testing.T) {
	for _, mode := range []string{"setsid", "setpgid"} {
		for _, parentDied := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/parent-died=%v", mode, parentDied), func(t *testing.T) {
				e := startEscapee(t, mode, false)
				if parentDied {
					e.endParent()
				}
				if err := End(e.mark, nil); err != nil {
					t.Fatal(err)
				}
				if pids := e.running(t); len(pids) > 0 {
					t.Errorf("sleep %s still running as %v", e.arg, pids)
				}
				e.endParent()
			})
		}
	}
}

// A descendant that dropped the mark is found through the tree taken while
// its parent lived.
func TestEndFollowsTheTree(t *testing.T) {
	e := startEscapee(t, "unmarked", false)
	tree := Tree(e.parent.Process.Pid)
	e.endParent()
	if err := End(e.mark, nil); err != nil {
		t.Fatal(err)
	}
	if len(e.running(t)) == 0 {
		t.Fatal("End found an unmarked orphan without the tree; this test shows nothing")
	}
	if err := End(e.mark, tree); err != nil {
		t.Fatal(err)
	}
	if pids := e.running(t); len(pids) > 0 {
		t.Errorf("sleep %s still running as %v", e.arg, pids)
	}
}

// With the subreaper on, an orphan is this process's child: End kills it
// and reaps it, leaving no zombie.
func TestEndReapsAdoptedOrphans(t *testing.T) {
	release := subreaper(t)
	defer release()
	e := startEscapee(t, "setsid", true)
	if err := Wait(e.parent); err != nil {
		t.Fatal(err)
	}
	e.parent = nil
	if s, ok := readStat(e.pid); !ok || s.ppid != self {
		t.Fatalf("the orphan %d was not adopted: %+v", e.pid, s)
	}
	if err := End(e.mark, nil); err != nil {
		t.Fatal(err)
	}
	if !e.reaped() {
		s, _ := readStat(e.pid)
		t.Errorf("orphan %d not reaped: %+v", e.pid, s)
	}
}

// An adopted orphan that exits by itself is reaped on SIGCHLD; children
// of this process that os/exec owns keep their status for their Wait,
// whether they were started through Start or not.
func TestSubreaperReapsOrphansAsTheyExit(t *testing.T) {
	plain := exec.Command("true")
	if err := plain.Start(); err != nil {
		t.Fatal(err)
	}
	if !pidfdTargets()[plain.Process.Pid] {
		_ = plain.Wait()
		t.Skip("Go holds no pidfd for its children here: a plain exec.Cmd cannot be told from an orphan")
	}
	release := subreaper(t)
	defer release()
	ours := exec.Command("true")
	if err := Start(ours); err != nil {
		t.Fatal(err)
	}
	awaitCond(t, "both children exited", func() bool {
		return isZombie(plain.Process.Pid) && isZombie(ours.Process.Pid)
	})

	e := startEscapee(t, "setsid", true)
	if err := Wait(e.parent); err != nil {
		t.Fatal(err)
	}
	e.parent = nil
	if err := unix.Kill(e.pid, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The sweep that reaps the orphan ran after both children were zombies.
	awaitCond(t, "the orphan reaped", e.reaped)
	if err := plain.Wait(); err != nil {
		t.Errorf("a plain exec.Cmd lost its status: %v", err)
	}
	if err := Wait(ours); err != nil {
		t.Errorf("an exec.Cmd started through Start lost its status: %v", err)
	}
}

// Subreaper calls nest; the last release puts the setting back.
func TestSubreaperNestsAndRestores(t *testing.T) {
	before := subreaperSetting(t)
	r1, err := Subreaper()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Subreaper()
	if err != nil {
		t.Fatal(err)
	}
	if !subreaperSetting(t) {
		t.Fatal("not a subreaper after Subreaper")
	}
	r1()
	r1()
	if !subreaperSetting(t) {
		t.Error("the first release (twice) ended what the second user still holds")
	}
	r2()
	if got := subreaperSetting(t); got != before {
		t.Errorf("after the last release: subreaper %v, before %v", got, before)
	}
}

func subreaper(t *testing.T) func() {
	t.Helper()
	release, err := Subreaper()
	if err != nil {
		t.Fatal(err)
	}
	return release
}

func subreaperSetting(t *testing.T) bool {
	t.Helper()
	v := new(int32)
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(v)), 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	defer runtime.KeepAlive(v)
	return *v != 0
}

func isZombie(pid int) bool {
	s, ok := readStat(pid)
	return ok && s.state == 'Z'
}

// awaitCond waits for cond, failing after a bound only a broken reaper
// reaches.
func awaitCond(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(pollEvery)
	}
}

// TestWaitOnThePoller: Wait gives the exit status of a child still
// running, of one that exited before Wait was called, and of one killed,
// as cmd.Wait does.
func TestWaitOnThePoller(t *testing.T) {
	run := func(script string, stdin io.Reader) *exec.Cmd {
		cmd := exec.Command("sh", "-c", script)
		cmd.Stdin = stdin
		if err := Start(cmd); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	exitCode := func(err error) int {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("Wait: %v, want an exit error", err)
		}
		return ee.ExitCode()
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	running := run("read line; exit 3", r)
	r.Close()
	done := make(chan error, 1)
	go func() { done <- Wait(running) }()
	select {
	case err := <-done:
		t.Fatalf("Wait returned before the child exited: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	w.WriteString("go\n")
	w.Close()
	if code := exitCode(<-done); code != 3 {
		t.Errorf("running child: exit %d, want 3", code)
	}

	exited := run("exit 4", nil)
	awaitCond(t, "the child to exit", func() bool { return isZombie(exited.Process.Pid) })
	if code := exitCode(Wait(exited)); code != 4 {
		t.Errorf("exited child: exit %d, want 4", code)
	}

	killed := run("sleep 60", nil)
	go killed.Process.Kill()
	if err := Wait(killed); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("killed child: %v", err)
	}
}

// An adopted orphan that left its group and dropped its mark (a double
// fork, setsid, exec with an empty environment) is found by nothing but
// its parent, this process: the last release of the subreaper ends it, so
// it does not outlive the host as init's child.
func TestReleaseEndsUnmarkedOrphans(t *testing.T) {
	if !pidfdsHeld() {
		t.Skip("Go holds no pidfd for its children here: an orphan cannot be told from the program's own child")
	}
	release := subreaper(t)
	e := startEscapee(t, "unmarked", true)
	if err := Wait(e.parent); err != nil {
		t.Fatal(err)
	}
	e.parent = nil
	if s, ok := readStat(e.pid); !ok || s.ppid != self {
		t.Fatalf("the orphan %d was not adopted: %+v", e.pid, s)
	}
	if err := End(e.mark, nil); err != nil {
		t.Fatal(err)
	}
	if len(e.running(t)) == 0 {
		t.Fatal("End found the unmarked orphan by its mark; this test shows nothing")
	}
	// A child the program started itself is not an orphan.
	own := exec.Command("sleep", "300")
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = own.Process.Kill(); _ = own.Wait() }()
	release()
	if pids := e.running(t); len(pids) > 0 {
		t.Errorf("sleep %s outlived the subreaper as %v", e.arg, pids)
	}
	if !e.reaped() {
		t.Errorf("orphan %d not reaped", e.pid)
	}
	if s, ok := readStat(own.Process.Pid); !ok || s.exited() {
		t.Errorf("the program's own child was ended: %+v", s)
	}
}

// Callers that look at once share snapshots, and each sees what ran when
// it asked: a snapshot is never one begun before.
func TestLookIsNeverOlderThanTheAsk(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5 {
				cmd := exec.Command("sleep", "60")
				if err := Start(cmd); err != nil {
					t.Error(err)
					return
				}
				pid := cmd.Process.Pid
				if !slices.ContainsFunc(look().stats, func(s stat) bool { return s.pid == pid }) {
					t.Errorf("a snapshot asked for after process %d started does not have it", pid)
				}
				_ = cmd.Process.Kill()
				_ = Wait(cmd)
			}
		})
	}
	wg.Wait()
}

// A snapshot reads each process's mark from its environment.
func TestSnapshotMarks(t *testing.T) {
	m := NewMark()
	cmd := exec.Command("sleep", "60")
	cmd.Env = m.Set(nil)
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = Wait(cmd)
	}()
	s := look()
	pid := cmd.Process.Pid
	if !s.hasMark(pid, m) || s.hasMark(pid, NewMark()) || s.hasMark(os.Getpid(), m) {
		t.Errorf("marks of %d: %v; want %s", pid, s.marks[pid], m)
	}
}
