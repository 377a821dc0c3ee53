//go:build !unix

package safefile

// openFlags are none where opening cannot block on a named pipe the way a
// Unix FIFO does; the checks before and after the open still refuse
// anything but a regular file.
const openFlags = 0
