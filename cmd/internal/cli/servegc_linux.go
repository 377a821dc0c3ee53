package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// memoryLimitFor is limit, or less where the machine has less to spare:
// a quarter of its memory, half of what this process's cgroup (v2) may
// use. A container's limit is not Go's: without this, a heap let grow
// five times could meet the container's end before the collector ran.
func memoryLimitFor(limit int64) int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		if total := int64(si.Totalram) * int64(si.Unit); total > 0 {
			limit = min(limit, total/4)
		}
	}
	if cg := cgroupMemoryMax(); cg > 0 {
		limit = min(limit, cg/2)
	}
	return limit
}

// cgroupMemoryMax is the memory.max of this process's cgroup (v2); 0 when
// there is none or it is "max".
func cgroupMemoryMax() int64 {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		path, ok := strings.CutPrefix(sc.Text(), "0::")
		if !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", filepath.Clean("/"+path), "memory.max"))
		if err != nil {
			return 0
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return 0 // "max": no limit
		}
		return n
	}
	return 0
}
