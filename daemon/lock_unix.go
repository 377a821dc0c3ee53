//go:build unix

package daemon

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockSocket holds an exclusive lock on path's lock file (beside it, in
// the folder only this user may enter) until unlock: two daemons starting
// at once (several apps launching serve at login) take turns to clear a
// stale socket and bind theirs, so that neither removes the other's.
func lockSocket(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon socket %s: its lock: %w", path, err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("daemon socket %s: its lock: %w", path, err)
	}
	return func() { f.Close() }, nil // closing releases the lock
}
