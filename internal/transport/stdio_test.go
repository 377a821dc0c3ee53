package transport

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
)

// A process that left the server's process group (setsid) and kept its
// stderr open must not hold up Close.
func TestCloseDoesNotWaitForEscapedStderr(t *testing.T) {
	escaped := make(chan int, 1)
	cfg := &config.ServerConfig{
		Name:    "escaper",
		Command: "/bin/sh",
		Args:    []string{"-c", `setsid sh -c 'echo $$ >&2; exec sleep 60' & exec sleep 60`},
	}
	tr := NewStdio(cfg, t.TempDir(), Hooks{Stderr: func(line string) {
		if pid, err := strconv.Atoi(line); err == nil {
			escaped <- pid
		}
	}})
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	select {
	case pid = <-escaped:
	case <-time.After(10 * time.Second):
		t.Fatal("the escaped process did not report its pid")
	}
	defer syscall.Kill(pid, syscall.SIGKILL)

	closed := make(chan error, 1)
	go func() { closed <- conn.Close() }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second): // far beyond stderrDrain; the escaped sleep lives 60 s
		t.Fatal("Close waited for a process outside the group")
	}
	if err := syscall.Kill(tr.PID(), 0); err == nil {
		t.Errorf("server process %d still running", tr.PID())
	}
}
