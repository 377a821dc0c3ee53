// Package proctest finds and ends the processes a test left behind. Tests
// that check that no descendant outlives its server start `sleep ARG`
// with an argument of their own (UniqueSleep) and look for it in /proc.
// Only tests import it.
package proctest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
)

// UniqueSleep is a sleep argument no other test's process has.
func UniqueSleep() string { return strconv.Itoa(1_000_000 + rand.IntN(9_000_000)) }

// Sleeping lists the running processes that are "sleep arg". A zombie's
// cmdline is empty, so only a running sleep matches; where there is no
// /proc, none is found.
func Sleeping(arg string) []int {
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

// KillSleeping kills, by pid, what a failed test left: the argument is
// that test's alone.
func KillSleeping(arg string) {
	for _, pid := range Sleeping(arg) {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
}
