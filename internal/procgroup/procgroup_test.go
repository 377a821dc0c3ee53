//go:build unix

package procgroup

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestKillEndsTheGroup starts sh with a grandchild in the same group and
// checks that Kill ends the grandchild too.
func TestKillEndsTheGroup(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 600 & echo $!; wait")
	Set(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	for _, c := range buf[:n] {
		if c >= '0' && c <= '9' {
			pid = pid*10 + int(c-'0')
		}
	}
	if pid == 0 {
		t.Fatalf("no grandchild pid in %q", buf[:n])
	}
	if err := Kill(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// The grandchild is re-parented and reaped by init; wait for it to go.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still alive after Kill of its group", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
