//go:build unix

package host_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, user and system.
type processCPU struct {
	d  time.Duration
	ok bool
}

func cpuTime() processCPU {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return processCPU{}
	}
	return processCPU{d: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ok: true}
}

// sub is the CPU time used since earlier.
func (c processCPU) sub(earlier processCPU) (time.Duration, bool) {
	return c.d - earlier.d, c.ok && earlier.ok
}
