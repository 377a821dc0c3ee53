//go:build unix

package policy

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// TestLoadHostileFile: a policy file that is a FIFO, a device, a dangling
// link or oversized fails closed at once, saying why.
func TestLoadHostileFile(t *testing.T) {
	tests := []struct {
		name string
		make func(string) error
		want string
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "not a regular file (a named pipe)"},
		{"zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file (a character device)"},
		{"dangling", func(p string) error { return os.Symlink("/nonexistent/policy.json", p) }, "a symbolic link to /nonexistent/policy.json, which leads to no file"},
		{"big", func(p string) error {
			return os.WriteFile(p, []byte(`{"description": "`+strings.Repeat("x", safefile.MaxConfigSize)+`"}`), 0o600)
		}, "larger than 4 MiB"},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "policy.json")
		if err := tt.make(path); err != nil {
			t.Fatal(err)
		}
		p := Load(path)
		if p == nil || p.Err == nil {
			t.Errorf("%s: Load = %+v, want a policy that fails closed", tt.name, p)
			continue
		}
		got := p.Check(&config.ServerConfig{Name: "x", URL: "https://x"}, Runtime{})
		if want := "policy file " + path + ": " + tt.want; !strings.HasPrefix(got, want) {
			t.Errorf("%s: Check = %q, want %q", tt.name, got, want)
		}
	}
	if p := Load(filepath.Join(t.TempDir(), "missing.json")); p != nil {
		t.Errorf("a missing file is %+v, want no policy", p)
	}
}
