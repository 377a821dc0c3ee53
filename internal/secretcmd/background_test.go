//go:build unix

package secretcmd

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// A helper that leaves a process running — in its group, or by setsid out
// of it — still answers at once with what it printed, and what it left is
// ended (DESIGN.md, "Secrets").
func TestRunEndsWhatAHelperLeft(t *testing.T) {
	for _, tc := range []struct{ name, form string }{
		{"in the group", "sleep %[1]s & echo tok-bg"},
		{"setsid", "setsid sleep %[1]s & echo tok-bg"},
		// It answers once the left process ignores SIGTERM (the file says so).
		{"setsid, ignoring SIGTERM", `setsid sh -c "trap '' TERM; touch %[2]s; exec sleep %[1]s" & while [ ! -e %[2]s ]; do :; done; echo tok-bg`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg := strconv.Itoa(1_000_000 + rand.IntN(9_000_000))
			t.Cleanup(func() { killSleeping(arg) })
			var r Runner
			begin := time.Now()
			out, err := r.Run(context.Background(), fmt.Sprintf(tc.form, arg, filepath.Join(t.TempDir(), "ready")), "")
			took := time.Since(begin)
			if err != nil || out != "tok-bg" {
				t.Fatalf("Run = %q, %v; want tok-bg", out, err)
			}
			// Far below Timeout; the bound is the left process's grace.
			if took > 5*time.Second {
				t.Errorf("Run took %s", took)
			}
			if runtime.GOOS != "linux" && tc.name != "in the group" {
				return // only the group is ended there
			}
			if pids := sleeping(arg); len(pids) > 0 {
				t.Errorf("sleep %s still running as %v", arg, pids)
			}
		})
	}
}

// sleeping lists the running processes that are "sleep arg" (Linux; none
// found elsewhere).
func sleeping(arg string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); string(cmdline) == "sleep\x00"+arg+"\x00" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killSleeping kills, by pid, what a failed test left: the argument is
// this test's alone.
func killSleeping(arg string) {
	for _, pid := range sleeping(arg) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
