//go:build unix

package toolsearch

import (
	"syscall"
	"time"
)

// cpuTime is the process's CPU time so far: a benchmark on a shared
// machine waits for a core as long as others hold it, and its wall-clock
// figures say more about them than about the code.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
