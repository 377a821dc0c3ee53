// Package safefile reads and changes the small files switchboard keeps and
// finds: config sources, the policy, the trust store, our own config file,
// the tool cache (DESIGN.md, "Files"). A read takes only a regular file of
// bounded size and never blocks; a reader never sees half a file, and two
// writers in different processes do not lose each other's change.
package safefile

import (
	"os"
	"path/filepath"
)

// WriteAtomic writes data to a temporary file beside path, syncs it, and
// renames it over path, so a reader (or a watching switchboard) sees the
// old file or the new one, never a mix. perm is the new file's mode.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing left to remove
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Lock takes an exclusive advisory lock that every Lock of a file in the
// same directory as path shares, waiting for it as long as another process
// holds it, and returns the function that releases it. The directory must
// exist.
//
// It locks the directory rather than a lock file beside path: a lock file
// would be left behind in a project's .switchboard folder, and locking
// path itself does not work across WriteAtomic's rename. Edits are short,
// so sharing one lock per directory costs nothing.
func Lock(path string) (unlock func(), err error) { return lockDir(filepath.Dir(path)) }
