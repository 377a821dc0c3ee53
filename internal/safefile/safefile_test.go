package safefile

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestWriteAtomicReplacesAndLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new" {
		t.Fatalf("read %q, %v; want new", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only f.json: %v", len(entries), entries)
	}
}

// TestLockSerializes runs read-modify-write cycles from many goroutines
// under Lock; without mutual exclusion some increments are lost. flock
// locks are per open file description, so goroutines exclude each other
// as processes would.
func TestLockSerializes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "count")
	if err := os.WriteFile(path, []byte{0}, 0o600); err != nil {
		t.Fatal(err)
	}
	const n = 50
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			unlock, err := Lock(path)
			if err != nil {
				t.Error(err)
				return
			}
			defer unlock()
			b, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
				return
			}
			if err := WriteAtomic(path, []byte{b[0] + 1}, 0o600); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	b, _ := os.ReadFile(path)
	if b[0] != n {
		t.Errorf("count = %d, want %d: an update was lost", b[0], n)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the lock left files behind: %v", entries)
	}
}
