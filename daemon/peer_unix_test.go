//go:build unix

package daemon_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
