//go:build unix

package execpath

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFind(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(rel string, mode os.FileMode) string {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	envTool := mk("env/tool", 0o755)
	hostTool := mk("host/tool", 0o755)
	hostOnly := mk("host/only", 0o755)
	mk("env/plain", 0o644) // not executable: skipped
	hostPlain := mk("host/plain", 0o755)
	rel := mk("proj/bin/srv", 0o755)

	tests := []struct {
		command, dir string
		paths        []string
		want         string
	}{
		{"tool", "", []string{root + "/env", root + "/host"}, envTool},
		{"tool", "", []string{root + "/host"}, hostTool},
		{"only", "", []string{root + "/env", root + "/host"}, hostOnly},
		{"plain", "", []string{root + "/env:" + root + "/host"}, hostPlain},
		// Relative and empty entries never find anything.
		{"tool", root, []string{"env::host", root + "/host"}, hostTool},
		{"./bin/srv", root + "/proj", nil, rel},
		{"bin/srv", root + "/proj", nil, rel},
		{rel, "/elsewhere", nil, rel},
	}
	for _, tt := range tests {
		got, err := Find(tt.command, tt.dir, tt.paths...)
		if err != nil || got != tt.want {
			t.Errorf("Find(%q, %q, %q) = %q, %v; want %q", tt.command, tt.dir, tt.paths, got, err, tt.want)
		}
	}
	if _, err := Find("tool", "", "env:host"); !errors.Is(err, ErrNotFound) {
		t.Errorf("only relative entries: %v, want ErrNotFound", err)
	}
	if _, err := Find("./nope", root, ""); err == nil {
		t.Error("a missing ./nope was found")
	}
}

func TestLinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(root, "lib", "docker-real")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{
		{"../lib/docker-real", "bin/docker"}, // relative, as /usr/bin links are
		{filepath.Join(root, "bin/docker"), "other/dockr"},
		{"bin", "binlink"}, // a linked folder: binlink/docker is bin/docker
	} {
		p := filepath.Join(root, l[1])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l[0], p); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{filepath.Join(root, "other/dockr"), filepath.Join(root, "bin/docker"), real}
	if got := Links(filepath.Join(root, "other/dockr")); !slices.Equal(got, want) {
		t.Errorf("Links(dockr) = %q, want %q", got, want)
	}
	want = []string{filepath.Join(root, "binlink/docker"), filepath.Join(root, "bin/docker"), real}
	if got := Links(filepath.Join(root, "binlink/docker")); !slices.Equal(got, want) {
		t.Errorf("Links(binlink/docker) = %q, want %q", got, want)
	}
	if got := Links(real); !slices.Equal(got, []string{real}) {
		t.Errorf("Links(real) = %q", got)
	}
}
