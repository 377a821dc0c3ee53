package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuTime is the process's user and system time so far; -1 if unknown.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the process's peak resident memory in KiB (VmHWM), its
// children's not included; 0 if unknown.
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss // KiB on Linux
}

// processCPU is another process's CPU time so far, in nanoseconds from the
// scheduler's own count (/proc/PID/task/*/schedstat, the first field): the
// clock ticks of /proc/PID/stat are 10 ms, as long as a round of calls
// through a fast gateway. Threads that have exited are not counted; Go's
// and node's threads live as long as the process. -1 if unknown.
func processCPU(pid int) time.Duration {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return -1
	}
	var total int64
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		if err != nil {
			continue // the thread just ended
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return -1
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return -1
		}
		total += ns
	}
	return time.Duration(total)
}
