package main

import (
	"bytes"
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

// treeRSS is the resident memory in KiB of pid and every process below
// it, all of it (VmRSS) and the anonymous part alone (RssAnon: what a
// process does not share with others running the same binary, whose
// pages the kernel maps once); 0 if unknown.
func treeRSS(pid int) (rss, anon int64) {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		rest := string(b[bytes.LastIndexByte(b, ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 {
			continue
		}
		ppid, err1 := strconv.Atoi(f[1])
		child, err2 := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err1 == nil && err2 == nil {
			children[ppid] = append(children[ppid], child)
		}
	}
	for todo := []int{pid}; len(todo) > 0; {
		p := todo[0]
		todo = append(todo[1:], children[p]...)
		r, a := memOf(p)
		rss, anon = rss+r, anon+a
	}
	return rss, anon
}

// memOf is one process's VmRSS and RssAnon in KiB; 0 if unknown.
func memOf(pid int) (rss, anon int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	field := func(line, name string) (int64, bool) {
		rest, ok := strings.CutPrefix(line, name)
		f := strings.Fields(rest)
		if !ok || len(f) == 0 {
			return 0, false
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		return n, true
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if n, ok := field(line, "VmRSS:"); ok {
			rss = n
		} else if n, ok := field(line, "RssAnon:"); ok {
			anon = n
		}
	}
	return rss, anon
}

// processPeakRSS is a process's peak resident memory (VmHWM) in KiB; 0 if
// unknown.
func processPeakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}
