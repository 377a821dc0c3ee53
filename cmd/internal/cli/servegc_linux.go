package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// memoryLimitFor is limit, or less where the machine has less to spare:
// a quarter of its memory, half of what this process's cgroup (v2 or v1)
// may use; with why, for the operator. A container's limit is not Go's:
// without this, a heap let grow five times could meet the container's end
// before the collector ran.
func memoryLimitFor(limit int64) (int64, string) {
	why := "the default"
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		if total := int64(si.Totalram) * int64(si.Unit); total > 0 && total/4 < limit {
			limit, why = total/4, fmt.Sprintf("a quarter of the machine's %d MiB", total>>20)
		}
	}
	if cg := cgroupMemoryMax("/proc/self/cgroup", "/sys/fs/cgroup"); cg > 0 && cg/2 < limit {
		limit, why = cg/2, fmt.Sprintf("half the cgroup's %d MiB", cg>>20)
	}
	return limit, why
}

// cgroupMemoryMax is the least memory limit of this process's cgroup and
// the cgroups above it, as procCgroup (/proc/self/cgroup) names them under
// root (/sys/fs/cgroup); 0 when none sets one. Version 2's is memory.max
// ("max": none); version 1's is the memory controller's
// memory.limit_in_bytes (a page short of 2⁶³ when none). The cgroups
// above count: a limit is often set on a slice or pod, with the leaf's
// "max"; and in a container the path named may not exist under its own
// mount, whose root is then the container's cgroup.
func cgroupMemoryMax(procCgroup, root string) int64 {
	f, err := os.Open(procCgroup)
	if err != nil {
		return 0
	}
	defer f.Close()
	var least int64
	take := func(n int64) {
		if n > 0 && n < 1<<62 && (least == 0 || n < least) {
			least = n
		}
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		fields := strings.SplitN(sc.Text(), ":", 3)
		if len(fields) != 3 {
			continue
		}
		switch {
		case fields[0] == "0" && fields[1] == "":
			walkUp(root, fields[2], "memory.max", take)
		case hasController(fields[1], "memory"):
			walkUp(filepath.Join(root, "memory"), fields[2], "memory.limit_in_bytes", take)
		}
	}
	return least
}

// walkUp calls take with the number in file of the cgroup at path under
// dir and of each one above it, up to dir, where the file is there and
// holds one.
func walkUp(dir, path, file string, take func(int64)) {
	p := filepath.Clean("/" + path)
	for {
		if b, err := os.ReadFile(filepath.Join(dir, p, file)); err == nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
				take(n)
			}
		}
		if p == "/" {
			return
		}
		p = filepath.Dir(p)
	}
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}
