package cli

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// trimResident gives back the pages of this binary's code and read-only
// data that start-up touched: a bridge (serve over stdio, DESIGN.md F57)
// lives as long as its client app and needs few of them, and every app a
// person connects runs one. The kernel reads a page back from the file
// when it is used again, so nothing changes but the resident size. The
// writable mappings (data, heap) are left alone.
func trimResident() {
	// A collection first (it reads much of what it would give back), its
	// freed memory returned too.
	debug.FreeOSMemory()
	exe, err := os.Executable()
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || (fields[1] != "r-xp" && fields[1] != "r--p") {
			continue
		}
		from, to, _ := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(from, 16, 64)
		end, err2 := strconv.ParseUint(to, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
	}
}
