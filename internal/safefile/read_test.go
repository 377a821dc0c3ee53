//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadLimitedRefuses: every file that is not a regular file within
// the limit is refused with its typed error, at once. Before ReadLimited,
// os.ReadFile read /dev/zero until memory ran out and blocked for ever on
// a FIFO or a pipe behind /dev/stdin.
func TestReadLimitedRefuses(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	symlink := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, at(name)); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name string, n int) {
		t.Helper()
		if err := os.WriteFile(at(name), []byte(strings.Repeat("x", n)), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	symlink("/dev/zero", "zero")
	if err := syscall.Mkfifo(at("fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(at("fifo"), "to-fifo")
	// A pipe whose writer stays open: what /dev/stdin is under a shell
	// pipeline. Its read end is /dev/fd/N on Linux and macOS.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	symlink(fmt.Sprintf("/dev/fd/%d", r.Fd()), "pipe")
	write("big", 1025)
	symlink(at("nowhere"), "dangling")
	symlink(at("nowhere"), "dangling-dir")
	symlink(at("big"), "to-big")
	if err := os.Mkdir(at("dir"), 0o700); err != nil {
		t.Fatal(err)
	}

	var notRegular *NotRegularError
	var tooLarge *TooLargeError
	var dangling *DanglingLinkError
	tests := []struct {
		name   string
		target any
		want   string
	}{
		{"zero", &notRegular, "zero: not a regular file (a character device); switchboard reads only regular files"},
		{"fifo", &notRegular, "fifo: not a regular file (a named pipe); switchboard reads only regular files"},
		{"to-fifo", &notRegular, "to-fifo: not a regular file (a named pipe)"},
		{"pipe", &notRegular, "pipe: not a regular file (a named pipe)"},
		{"dir", &notRegular, "dir: not a regular file (a directory)"},
		{"big", &tooLarge, "big: larger than 1 KiB, the most switchboard reads from a config file"},
		{"to-big", &tooLarge, "to-big: larger than 1 KiB"},
		{"dangling", &dangling, "dangling: a symbolic link to " + at("nowhere") + ", which leads to no file"},
		{"dangling-dir/mcp.json", &dangling, "dangling-dir/mcp.json: " + at("dangling-dir") + " is a symbolic link to " + at("nowhere") + ", which leads to no file"},
	}
	// A path that is not clean names the link itself all the same.
	unclean := filepath.Join(dir, "dir") + "/../dangling"
	if _, err := ReadLimited(unclean, 1024); err == nil || err.Error() != unclean+": a symbolic link to "+at("nowhere")+", which leads to no file" {
		t.Errorf("ReadLimited(%s) = %v", unclean, err)
	}
	for _, tt := range tests {
		data, err := ReadLimited(at(tt.name), 1024)
		if err == nil {
			t.Errorf("%s: read %d bytes, want an error", tt.name, len(data))
			continue
		}
		if !errors.As(err, tt.target) {
			t.Errorf("%s: error %T %v is not a %T", tt.name, err, err, tt.target)
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), at(tt.name)) {
			t.Errorf("%s: error %q, want it to start with the path and hold %q", tt.name, err, tt.want)
		}
		if errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v is fs.ErrNotExist: a caller would take it for no file", tt.name, err)
		}
	}
}

func TestReadLimitedReads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 1024)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(path, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, filepath.Join(dir, "link")} {
		if data, err := ReadLimited(p, 1024); err != nil || len(data) != 1024 {
			t.Errorf("ReadLimited(%s) = %d bytes, %v; want the 1024 bytes at the limit", p, len(data), err)
		}
	}
	// Missing is fs.ErrNotExist, also below a link to a folder that exists.
	if err := os.Symlink(dir, filepath.Join(dir, "self")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing"), filepath.Join(dir, "self", "missing"), filepath.Join(dir, "no", "such", "file")} {
		if _, err := ReadLimited(p, 1024); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ReadLimited(%s) = %v, want fs.ErrNotExist", p, err)
		}
	}
}

// TestReadLimitedStdin: a link to /dev/stdin, the case a cloned repository
// can plant, is refused whatever the test's stdin is, unless go test was
// given a regular file as stdin.
func TestReadLimitedStdin(t *testing.T) {
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode().IsRegular() {
		t.Skip("stdin is a regular file")
	}
	link := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.Symlink("/dev/stdin", link); err != nil {
		t.Fatal(err)
	}
	var notRegular *NotRegularError
	if _, err := ReadLimited(link, MaxConfigSize); !errors.As(err, &notRegular) {
		t.Errorf("ReadLimited(link to /dev/stdin) = %v, want a *NotRegularError", err)
	}
}

func TestReadDirLimited(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.yaml", "a.yaml", "c.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := ReadDirLimited(dir, 3)
	if err != nil || len(entries) != 3 || entries[0].Name() != "a.yaml" || entries[2].Name() != "c.json" {
		t.Fatalf("ReadDirLimited = %v, %v; want a.yaml, b.yaml, c.json", entries, err)
	}
	var tooMany *TooManyEntriesError
	if _, err := ReadDirLimited(dir, 2); !errors.As(err, &tooMany) || !strings.Contains(err.Error(), "more than 2 entries") {
		t.Errorf("ReadDirLimited(3 entries, max 2) = %v, want a *TooManyEntriesError", err)
	}
	fifo := filepath.Join(t.TempDir(), "mcpServers")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var notRegular *NotRegularError
	if _, err := ReadDirLimited(fifo, 10); !errors.As(err, &notRegular) || !strings.Contains(err.Error(), "a named pipe") {
		t.Errorf("ReadDirLimited(FIFO) = %v, want a *NotRegularError", err)
	}
	if _, err := ReadDirLimited(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDirLimited(missing) = %v, want fs.ErrNotExist", err)
	}
}
