package transport

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

// A stdio connection round-trips through a real process (cat, which sends
// back what it reads), and closing it ends the process.
func TestStdioConnectionToAProcess(t *testing.T) {
	tr := NewStdio(&config.ServerConfig{Name: "cat", Command: "cat"}, t.TempDir(), Hooks{})
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tr.MarkReady() // cat exits when its stdin closes: the first grace is enough
	req := &jsonrpc.Request{ID: id(float64(1)), Method: "tools/call", Params: json.RawMessage(`{"name":"echo"}`)}
	if err := conn.Write(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	msg, err := conn.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wires(t, []jsonrpc.Message{req}), wires(t, []jsonrpc.Message{msg})); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	read := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		read <- err
	}()
	if err := conn.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case <-tr.Exited():
	default:
		t.Error("the process still runs after Close")
	}
	if err := <-read; err != io.EOF {
		t.Errorf("Read after Close: %v, want io.EOF", err)
	}
}
