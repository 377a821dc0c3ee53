package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MaxConfigSize is the most ReadLimited callers read from a config-ish
// file: a discovery source, the policy file, the trust store, our own
// file, a tool cache entry. Real ones are a few KiB (a trust store with
// thousands of projects, or a server's tool schemas, a few hundred KiB).
// Turning a file into servers costs up to some seventy times its size in
// memory: a 4 MiB file of 82,000 servers peaked near 290 MB in `switchboard
// sources`, where a 53 MB one went past 2 GB. Four MiB is many times any
// real file and keeps a hostile one to that.
const MaxConfigSize = 4 << 20

// MaxDirEntries is the most entries ReadDirLimited lists. The folders
// switchboard lists (Continue's .continue/mcpServers) hold a handful of
// files; a link to /usr/lib or /proc must not become thousands of reads.
const MaxDirEntries = 1000

// NotRegularError is a path that is not a regular file once links are
// followed: a named pipe (which would block a read for ever), a device
// (/dev/zero never ends), a socket or a directory.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string { return e.Path + ": " + e.Reason() }

// Reason is the error without the path.
func (e *NotRegularError) Reason() string {
	return fmt.Sprintf("not a regular file (%s); switchboard reads only regular files", kindOf(e.Mode))
}

// TooLargeError is a file larger than the limit its reader set.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string { return e.Path + ": " + e.Reason() }

// Reason is the error without the path.
func (e *TooLargeError) Reason() string {
	return fmt.Sprintf("larger than %s, the most switchboard reads from a config file", size(e.Limit))
}

// DanglingLinkError is a path that does not exist because a symbolic link
// on the way to it points nowhere. It is not fs.ErrNotExist: a caller for
// whom a missing file is silence (or no policy) must not read a broken
// link as "nothing here".
type DanglingLinkError struct {
	Path string
	// Link is the link that points nowhere: Path itself or a folder above
	// it; Target is what it holds.
	Link, Target string
}

func (e *DanglingLinkError) Error() string { return e.Path + ": " + e.Reason() }

// Reason is the error without the path.
func (e *DanglingLinkError) Reason() string {
	if e.Link == filepath.Clean(e.Path) {
		return fmt.Sprintf("a symbolic link to %s, which leads to no file", e.Target)
	}
	return fmt.Sprintf("%s is a symbolic link to %s, which leads to no file", e.Link, e.Target)
}

// TooManyEntriesError is a folder with more entries than ReadDirLimited
// lists.
type TooManyEntriesError struct {
	Path  string
	Limit int
}

func (e *TooManyEntriesError) Error() string { return e.Path + ": " + e.Reason() }

// Reason is the error without the path.
func (e *TooManyEntriesError) Reason() string {
	return fmt.Sprintf("more than %d entries, the most switchboard lists in a config folder", e.Limit)
}

// Reason is err without the path it names, for a message that puts the
// path first: a *fs.PathError's "op: cause", or the Reason of this
// package's errors.
func Reason(err error) string {
	var r interface{ Reason() string }
	if errors.As(err, &r) {
		return r.Reason()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// ReadLimited reads the file at path, following symbolic links, when it
// is a regular file of at most max bytes. Anything else is an error:
//
//   - a missing file is the *fs.PathError of os.Open (fs.ErrNotExist),
//     unless a symbolic link on the way dangles: *DanglingLinkError;
//   - a named pipe, device, socket or directory: *NotRegularError, and a
//     pipe or device is never read, so it can neither block nor feed
//     bytes for ever;
//   - more than max bytes: *TooLargeError.
//
// The file is looked at before it is opened, so a device with effects on
// open (a tape, a watchdog) is not opened, and again on the open file, so
// swapping the path for a pipe between the two changes nothing. On Unix
// it is opened with O_NONBLOCK: a pipe that wins that race does not block
// the open either.
func ReadLimited(path string, max int64) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if fi.Size() > max {
		return nil, &TooLargeError{Path: path, Limit: max}
	}
	// The file may grow while it is read: read one byte past the limit
	// to tell.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Limit: max}
	}
	return data, nil
}

// ReadDirLimited lists the folder at path, following symbolic links, sorted
// by name, when it is a folder of at most max entries. A missing folder is
// the *fs.PathError of os.Open (fs.ErrNotExist), a dangling link a
// *DanglingLinkError, anything but a folder a *NotRegularError, and more
// entries a *TooManyEntriesError. It opens as ReadLimited does.
func ReadDirLimited(path string, max int) ([]fs.DirEntry, error) {
	fi, err := statFollowing(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	entries, err := f.ReadDir(max + 1)
	if err != nil && err != io.EOF {
		return nil, &fs.PathError{Op: "readdir", Path: path, Err: err}
	}
	if len(entries) > max {
		return nil, &TooManyEntriesError{Path: path, Limit: max}
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// openRegular opens path for reading once a stat says it is a regular
// file.
func openRegular(path string) (*os.File, error) {
	fi, err := statFollowing(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return os.OpenFile(path, os.O_RDONLY|openFlags, 0)
}

// statFollowing is os.Stat, with a missing path told apart from a
// dangling link.
func statFollowing(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if link, target, ok := danglingLink(path); ok {
			return nil, &DanglingLinkError{Path: path, Link: link, Target: target}
		}
	}
	return fi, err
}

// danglingLink finds why path does not exist: the nearest part of it that
// does exist is a symbolic link that points nowhere (ok), or it is there
// and only what lies below it is missing (not ok).
func danglingLink(path string) (link, target string, ok bool) {
	for p := filepath.Clean(path); ; {
		fi, err := os.Lstat(p)
		if err == nil {
			if fi.Mode()&fs.ModeSymlink == 0 {
				return "", "", false
			}
			if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
				return "", "", false
			}
			target, _ := os.Readlink(p)
			return p, target, true
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", "", false
		}
		p = parent
	}
}

// kindOf names a file type as a person would.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "of type " + m.Type().String()
}

// size renders a byte count as people write limits: 4 MiB.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
