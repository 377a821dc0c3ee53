package redistest_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/switchboard-mcp/switchboard/internal/testkit/redistest"
)

const envOrphan = "REDISTEST_ORPHAN_CHILD"

// TestOrphanChild is TestNoOrphan's child: it starts a server, says its
// pid and exits at once, with no cleanup, as a test binary killed by its
// timeout does.
func TestOrphanChild(t *testing.T) {
	if os.Getenv(envOrphan) != "1" {
		t.Skip("the child of TestNoOrphan")
	}
	s := redistest.Start(t)
	os.Stdout.WriteString("pid " + strconv.Itoa(s.Pid()) + "\n")
	os.Exit(3)
}

// TestNoOrphan: a test binary that dies without its cleanup takes its
// redis-server with it (the parent-death signal).
func TestNoOrphan(t *testing.T) {
	redistest.Program(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestOrphanChild$")
	cmd.Env = append(os.Environ(), envOrphan+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "pid "); ok {
			pid, _ = strconv.Atoi(v)
		}
	}
	_ = cmd.Wait()
	if pid == 0 {
		t.Fatal("the child said no pid")
	}
	// The server's exit, awaited on a pidfd: gone already is ESRCH.
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return
	}
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 10_000)
	if err != nil || n != 1 {
		_ = unix.Kill(pid, unix.SIGKILL)
		t.Fatalf("redis-server %d outlived its test binary by 10 s (poll %d, %v)", pid, n, err)
	}
}
