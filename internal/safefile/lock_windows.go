//go:build windows

package safefile

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// lockDir locks a file named after dir in the user's cache directory:
// Windows cannot lock a directory handle, and the file must not live in
// dir itself (see Lock).
func lockDir(dir string) (func(), error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return nil, err
	}
	locks := filepath.Join(base, "switchboard", "locks")
	if err := os.MkdirAll(locks, 0o700); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(abs))
	f, err := os.OpenFile(filepath.Join(locks, hex.EncodeToString(sum[:8])+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "lock", Path: dir, Err: err}
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, ol)
		f.Close()
	}, nil
}
