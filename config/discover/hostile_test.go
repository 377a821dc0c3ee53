//go:build unix

package discover

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// TestHostileSourceFiles: a config file that is not a regular file of
// reasonable size is one error naming the file and why, and every other
// source is still read. Git stores symlinks, so each of these arrives
// with a clone. Before safefile.ReadLimited, /dev/zero and the big file
// ate memory and the FIFO and the pipe blocked discovery for ever.
func TestHostileSourceFiles(t *testing.T) {
	// A pipe whose writer stays open, as /dev/stdin is under a shell
	// pipeline: /dev/fd/N names its read end on Linux and macOS.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()

	tests := []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{
		{"symlink to /dev/zero", symlinkTo("/dev/zero"), "not a regular file (a character device)"},
		{"FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (a named pipe)"},
		{"symlink to a pipe", symlinkTo(fmt.Sprintf("/dev/fd/%d", r.Fd())), "not a regular file (a named pipe)"},
		{"symlink to /dev/stdin", symlinkTo("/dev/stdin"), "not a regular file"},
		{"over the limit", func(t *testing.T, path string) {
			// Valid JSON, so only the size can refuse it.
			big := `{"mcpServers": {}, "pad": "` + strings.Repeat("x", safefile.MaxConfigSize) + `"}`
			if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "larger than 4 MiB, the most switchboard reads from a config file"},
		{"dangling symlink", symlinkTo("/nonexistent/mcp.json"), "a symbolic link to /nonexistent/mcp.json, which leads to no file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "symlink to /dev/stdin" {
				if fi, err := os.Stdin.Stat(); err == nil && fi.Mode().IsRegular() {
					t.Skip("the test's stdin is a regular file")
				}
			}
			m := newMachine(t)
			m.write("~/.cursor/mcp.json", `{"mcpServers": {"user-good": {"command": "u"}}}`)
			m.write("./.cursor/mcp.json", `{"mcpServers": {"project-good": {"command": "p"}}}`)
			bad := filepath.Join(m.project, ".mcp.json")
			tt.make(t, bad)

			d := m.discover(func(o *Options) { o.TrustProject = true })
			if len(d.Errors) != 1 {
				t.Fatalf("errors = %v, want one, for %s", d.Errors, bad)
			}
			var diag *config.Diagnostic
			if !errors.As(d.Errors[0], &diag) || diag.Path != bad || !strings.Contains(diag.Message, tt.want) {
				t.Errorf("error = %v, want a Diagnostic for %s saying %q", d.Errors[0], bad, tt.want)
			}
			if strings.Contains(diag.Error(), "\n") {
				t.Errorf("error %q is more than one line", diag.Error())
			}
			got := summary(d.Servers)
			for _, want := range []string{"project-good:Cursor:project", "user-good:Cursor:user"} {
				if !slices.Contains(got, want) {
					t.Errorf("servers = %v, missing %s: the other sources must still be read", got, want)
				}
			}
			for _, rep := range d.Sources {
				if rep.Path == bad && (!rep.Found || rep.Error == "") {
					t.Errorf("report for %s = %+v, want found with its error", bad, rep)
				}
			}
		})
	}
}

func symlinkTo(target string) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHostileContinueFolder: Continue's folder of block files is listed,
// not named, so it is listed as carefully as files are read: a FIFO in
// its place is one error, and Continue's user file is still read.
func TestHostileContinueFolder(t *testing.T) {
	m := newMachine(t)
	m.write("~/.continue/config.yaml", "mcpServers:\n  - name: cont-user\n    command: c\n")
	dir := filepath.Join(m.project, ".continue", "mcpServers")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(dir, 0o600); err != nil {
		t.Fatal(err)
	}
	d := m.discover()
	if len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Error(), dir+": not a regular file (a named pipe)") {
		t.Errorf("errors = %v, want one for the FIFO %s", d.Errors, dir)
	}
	if got := summary(d.Servers); !slices.Contains(got, "cont-user:Continue:user") {
		t.Errorf("servers = %v, want Continue's user server", got)
	}

	// A folder of thousands (a link to /usr/lib, say) is refused whole.
	m2 := newMachine(t)
	dir2 := filepath.Join(m2.project, ".continue", "mcpServers")
	for i := range safefile.MaxDirEntries + 1 {
		m2.write(filepath.Join(dir2, fmt.Sprintf("b%04d.txt", i)), "")
	}
	d = m2.discover()
	if len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Error(), "more than 1000 entries") {
		t.Errorf("errors = %v, want one for the folder of %d entries", d.Errors, safefile.MaxDirEntries+1)
	}
}

// TestClaudeUserFileMayBeLarge: ~/.claude.json holds Claude Code's history
// and is often many MiB; it is read past the default limit.
func TestClaudeUserFileMayBeLarge(t *testing.T) {
	m := newMachine(t)
	m.write("~/.claude.json", `{"mcpServers": {"big": {"command": "b"}}, "history": "`+strings.Repeat("x", 2*safefile.MaxConfigSize)+`"}`)
	d := m.discover()
	if len(d.Errors) != 0 || !slices.Contains(summary(d.Servers), "big:Claude Code:user") {
		t.Errorf("servers %v, errors %v; want big from a large ~/.claude.json", summary(d.Servers), d.Errors)
	}
}

// TestCancelledDiscovery: a done context ends discovery before the next
// file, with an InterruptedError and no servers to start.
func TestCancelledDiscovery(t *testing.T) {
	m := newMachine(t)
	m.write("~/.cursor/mcp.json", `{"mcpServers": {"a": {"command": "a"}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, d := range []*Discovery{
		Discover(ctx, m.opts()),
		LoadFiles(ctx, []string{filepath.Join(m.home, ".cursor", "mcp.json")}, m.opts()),
	} {
		var ie *InterruptedError
		if len(d.Errors) != 1 || !errors.As(d.Errors[0], &ie) || !errors.Is(d.Errors[0], context.Canceled) {
			t.Errorf("errors = %v, want one InterruptedError", d.Errors)
		}
		if len(d.Servers) != 0 || len(d.Sources) != 0 {
			t.Errorf("servers %v, sources %v: nothing should be read once ctx is done", d.Servers, d.Sources)
		}
	}
	if files := ScanProject(ctx, m.opts()); len(files) != 0 {
		t.Errorf("ScanProject read %v after ctx was done", files)
	}
}
