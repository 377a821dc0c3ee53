//go:build unix

package daemon

import (
	"io/fs"
	"syscall"
)

// fileUID is the uid that owns a file.
func fileUID(info fs.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
