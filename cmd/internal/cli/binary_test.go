package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A binary go run built (in $GOCACHE since Go 1.24, or a go-build work
// folder before) is refused; an installed one is not.
func TestBuildCacheBinary(t *testing.T) {
	for path, want := range map[string]bool{
		"/home/ada/.cache/go-build/3f/3f9a-d/switchboard":      true,
		"/tmp/go-build2861/b001/exe/switchboard":               true,
		"/home/ada/go/bin/switchboard":                         false,
		"/usr/local/bin/switchboard":                           false,
		"/home/ada/src/go-builder/switchboard":                 true, // a false alarm --command avoids
		"/home/ada/src/switchboard/switchboard":                false,
		"/Users/ada/Library/Caches/go-build/ab/ab12-d/switchb": true,
	} {
		if got := inBuildCache(path); got != want {
			t.Errorf("inBuildCache(%s) = %v, want %v", path, got, want)
		}
	}
}

// go run's binary itself, where the machine has go: the path it reports
// is in the build cache.
func TestGoRunBinaryIsInBuildCache(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	dir := t.TempDir()
	src := "package main\nimport (\"fmt\"; \"os\")\nfunc main() { p, _ := os.Executable(); fmt.Print(p) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, "run", "main.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GO111MODULE=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v", err)
	}
	if p := strings.TrimSpace(string(out)); !inBuildCache(p) {
		t.Errorf("go run's binary %s is not seen as in the build cache", p)
	}
}
