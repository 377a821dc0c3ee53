package transport

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// TestNewStdioFindsAsThePolicyDoes: the program is the one execpath finds,
// the config's own PATH first, so the file the policy judged is the file
// that starts; a bare name found nowhere does not start at all.
func TestNewStdioFindsAsThePolicyDoes(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "srv")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tr := NewStdio(&config.ServerConfig{Name: "s", Command: "srv", Env: map[string]string{"PATH": dir}}, "", Hooks{})
	if tr.cmd.Path != prog || tr.cmd.Err != nil {
		t.Errorf("srv through the config's PATH: path %q, err %v; want %s", tr.cmd.Path, tr.cmd.Err, prog)
	}
	tr = NewStdio(&config.ServerConfig{Name: "s", Command: "./srv"}, dir, Hooks{})
	if tr.cmd.Path != prog || tr.cmd.Dir != dir {
		t.Errorf("./srv from %s: path %q, dir %q", dir, tr.cmd.Path, tr.cmd.Dir)
	}
	tr = NewStdio(&config.ServerConfig{Name: "s", Command: "no-such-program-anywhere", Env: map[string]string{"PATH": dir}}, "", Hooks{})
	if _, err := tr.Connect(context.Background()); err == nil || !strings.Contains(err.Error(), "executable file not found") {
		t.Errorf("a name found nowhere: Connect = %v", err)
	}
}
