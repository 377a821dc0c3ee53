//go:build unix

package benchcall

import (
	"syscall"
	"time"
)

// CPUMeasured says CPUTime measures anything here.
const CPUMeasured = true

// CPUTime is the CPU this process has used, user and system, its children
// excluded.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
