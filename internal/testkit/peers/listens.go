package peers

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// listens reports whether process pid holds a listening TCP socket on port, by
// matching the socket inodes of /proc/self/net/tcp{,6} (the children share our
// network namespace) against the process's descriptors. known is false where
// /proc cannot tell (not Linux), and the caller then trusts the ready line.
func listens(pid, port int) (owns, known bool) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		known = true
		for _, line := range strings.Split(string(data), "\n")[1:] {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			i := strings.LastIndexByte(f[1], ':')
			if p, err := strconv.ParseUint(f[1][i+1:], 16, 16); err == nil && int(p) == port {
				inodes["socket:["+f[9]+"]"] = true
			}
		}
	}
	if !known {
		return false, false
	}
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false, true // gone already
	}
	for _, fd := range fds {
		if link, err := os.Readlink(dir + "/" + fd.Name()); err == nil && inodes[link] {
			return true, true
		}
	}
	return false, true
}
