//go:build unix

package trust

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHostileStore: a trust store that is a FIFO or a link to /dev/zero is
// an error at once (nothing trusted), not a read that blocks or never ends.
func TestHostileStore(t *testing.T) {
	files := []ProjectFile{{Path: "/p/.mcp.json", Data: []byte("{}")}}
	for name, make := range map[string]func(string) error{
		"fifo":     func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"zero":     func(p string) error { return os.Symlink("/dev/zero", p) },
		"dangling": func(p string) error { return os.Symlink("/nonexistent", p) },
	} {
		state := t.TempDir()
		if err := make(filepath.Join(state, FileName)); err != nil {
			t.Fatal(err)
		}
		ok, err := IsTrusted(state, "/p", files)
		if ok || err == nil || !strings.Contains(err.Error(), filepath.Join(state, FileName)) {
			t.Errorf("%s: IsTrusted = %v, %v; want false and an error naming the store", name, ok, err)
		}
	}
}
