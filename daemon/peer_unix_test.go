//go:build unix

package daemon_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/switchboard-mcp/switchboard/daemon"
)

// runAs runs this test binary as uid, dialling socket, and returns what
// it said.
func runAs(t *testing.T, bin, socket string, uid uint32) string {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = []string{envDial + "=" + socket}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("dialling as uid %d: %v: %s", uid, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestOtherUserRefused: a process of another uid that reaches the socket
// (its folder and mode deliberately opened here) is closed on, and the
// daemon says so in its log, once; this uid is still answered. It needs
// root to run the other user's process.
func TestOtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("running a process as another user needs root")
	}
	dir := socketDir(t)
	socket := filepath.Join(dir, "d.sock")
	r := serve(t, socket, "demo", nil)
	// What another user needs to reach the socket and run this binary.
	for _, p := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(socket, 0o666); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(filepath.Dir(dir), "dialer")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // twice: logged once
		out := runAs(t, bin, socket, 65534)
		if !strings.HasPrefix(out, "refused:") {
			t.Fatalf("uid 65534 got %q", out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if _, err := dial(t, socket).Info(ctx); err != nil {
		t.Errorf("this uid after the refusals: %v", err)
	}
	r.end(t)
	if n := strings.Count(r.logs.String(), "refused a connection from another user"); n != 1 || !strings.Contains(r.logs.String(), "uid=65534") {
		t.Errorf("daemon log, want one refusal of uid 65534:\n%s", r.logs)
	}
}

// TestClientRefusesOtherUser: a socket another user put where the client
// looks (a folder others can write to) is not talked to: the client
// would hand it the calls' arguments, the roots, the answers to sampling.
// It needs root to run the other user's process.
func TestClientRefusesOtherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("running a process as another user needs root")
	}
	dir := t.TempDir()
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "stand-in")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "d.sock")
	cmd := exec.Command(bin)
	cmd.Env = []string{envListen + "=" + socket}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "listening\n" {
		t.Fatalf("the stand-in said %q", line)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	c, err := daemon.Dial(ctx, socket)
	if err == nil {
		c.Close()
		t.Fatal("Dial talked to a socket of uid 65534")
	}
	if !strings.Contains(err.Error(), "uid 65534, not yours") {
		t.Errorf("Dial: %v; want it to name the other uid", err)
	}
}

// TestListenTakesTurns: several daemons starting at once on a stale
// socket (apps launching serve together at login): exactly one claims
// it, and the others find it live; none removes another's socket.
func TestListenTakesTurns(t *testing.T) {
	dir := socketDir(t)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "d.sock")
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close() // a daemon that died: its socket is left
	const n = 4
	type claim struct {
		ln  net.Listener
		err error
	}
	claims := make(chan claim, n)
	var servers sync.WaitGroup
	for range n {
		go func() {
			ln, err := daemon.Listen(socket)
			if err == nil {
				// Answer as a daemon does, so that the others' probe
				// finds this one live at once.
				servers.Add(1)
				go func() {
					defer servers.Done()
					http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
						fmt.Fprintf(w, `{"pid": %d}`, os.Getpid())
					}))
				}()
			}
			claims <- claim{ln, err}
		}()
	}
	var won []net.Listener
	for range n {
		c := <-claims
		if c.err == nil {
			won = append(won, c.ln)
		} else if !strings.Contains(c.err.Error(), "already runs") {
			t.Errorf("a loser: %v; want 'already runs'", c.err)
		}
	}
	for _, ln := range won {
		ln.Close()
	}
	servers.Wait()
	if len(won) != 1 {
		t.Fatalf("%d of %d claimed the socket, want 1", len(won), n)
	}
}
