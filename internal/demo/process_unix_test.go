//go:build unix

package demo_test

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// --grandchild-leaves starts the grandchild as the leader of a process
// group of its own, out of reach of a kill of the server's group.
func TestGrandchildLeaves(t *testing.T) {
	for _, how := range []string{"setsid", "setpgid"} {
		t.Run(how, func(t *testing.T) {
			p := startDemo(t, "--grandchild-leaves", how)
			line := p.awaitStderr(t, "grandchild pid ")
			pid, err := strconv.Atoi(strings.TrimPrefix(line, "grandchild pid "))
			if err != nil {
				t.Fatal(err)
			}
			killed := false
			t.Cleanup(func() {
				if !killed {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			pgid, err := syscall.Getpgid(pid)
			if err != nil {
				t.Fatal(err)
			}
			if pgid != pid {
				t.Errorf("grandchild %d is in group %d, want its own", pid, pgid)
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
			p.awaitStderr(t, "grandchild "+strconv.Itoa(pid)+" exited: signal: killed")
			if err := p.wait(t); err != nil {
				t.Errorf("exit: %v", err)
			}
		})
	}
}
