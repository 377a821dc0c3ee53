//go:build unix

package edit

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestEditRefusesHostileFile: our own file as a FIFO, a link to /dev/zero
// or a dangling link is refused with its cause, and left as it is: an
// edit neither blocks, nor reads for ever, nor replaces a broken link with
// a new file.
func TestEditRefusesHostileFile(t *testing.T) {
	entry := EntryFields{Command: "x"}
	tests := []struct {
		name string
		make func(string) error
		want string
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "not a regular file (a named pipe)"},
		{"zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file (a character device)"},
		{"dangling", func(p string) error { return os.Symlink("/nonexistent/mcp.json", p) }, "a symbolic link to /nonexistent/mcp.json, which leads to no file"},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "mcp.json")
		if err := tt.make(path); err != nil {
			t.Fatal(err)
		}
		before, _ := os.Lstat(path)
		err := AddServer(path, "s", entry)
		if err == nil || !strings.Contains(err.Error(), path+": "+tt.want) {
			t.Errorf("%s: AddServer = %v, want %q", tt.name, err, tt.want)
		}
		if _, err := IsClaim(path, "s"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: IsClaim = %v, want %q", tt.name, err, tt.want)
		}
		if after, err := os.Lstat(path); err != nil || after.Mode() != before.Mode() {
			t.Errorf("%s: the file was replaced", tt.name)
		}
	}
}
