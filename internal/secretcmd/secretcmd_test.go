package secretcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunCachesSuccessOnly(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	var r Runner
	cmd := "echo run >> " + count + "; printf ' tok-42 \n'"
	for range 2 {
		out, err := r.Run(context.Background(), cmd, "")
		if err != nil || out != "tok-42" {
			t.Fatalf("Run = %q, %v; want tok-42", out, err)
		}
	}
	if data, _ := os.ReadFile(count); string(data) != "run\n" {
		t.Errorf("command ran %q times, want once", data)
	}

	fail := "echo run >> " + count + ".fail; echo SECRET-OUT; echo 'vault is locked' >&2; exit 3"
	for range 2 {
		_, err := r.Run(context.Background(), fail, "")
		if err == nil || !strings.Contains(err.Error(), "exit status 3: vault is locked") {
			t.Fatalf("err = %v", err)
		}
		if _, after, _ := strings.Cut(err.Error(), "failed:"); strings.Contains(after, "SECRET-OUT") {
			t.Errorf("stdout leaked into %v", err)
		}
	}
	if data, _ := os.ReadFile(count + ".fail"); string(data) != "run\nrun\n" {
		t.Errorf("failed command ran %q, want twice (failures are not cached)", data)
	}
}

func TestRunEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var r Runner
	if _, err := r.Run(ctx, "sleep 600", ""); err == nil {
		t.Fatal("a cancelled run succeeded")
	}
}

// A caller's own deadline is reported as the caller's, not as Timeout.
func TestRunReportsTheCallersDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var r Runner
	_, err := r.Run(ctx, "sleep 600", "")
	if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") || strings.Contains(err.Error(), Timeout.String()) {
		t.Fatalf("err = %v, want the caller's deadline", err)
	}
}

// A helper runs where it is told: discovery keeps it out of an untrusted
// project, where a script of the repository's could stand in for it.
func TestRunInDir(t *testing.T) {
	dir := t.TempDir()
	var r Runner
	out, err := r.Run(context.Background(), "pwd", dir)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(dir); out != want && out != dir {
		t.Errorf("pwd = %q, want %q", out, dir)
	}
}
