package oauth

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestStoreFileModeAndRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "oauth", "tokens.json")
	s := NewStore(path)
	g := Grant{Server: "https://mcp.example/mcp", ClientID: "c1", AccessToken: "at-secret-1", RefreshToken: "rt-secret-1",
		Expiry: time.Now().Add(time.Hour).Round(time.Second), Obtained: time.Now().Round(time.Second)}
	if err := s.Save(g); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("token file mode %o, want 600", m)
	}
	di, _ := os.Stat(filepath.Dir(path))
	if m := di.Mode().Perm(); m != 0o700 {
		t.Errorf("token folder mode %o, want 700", m)
	}
	// Another process's store sees it.
	got, err := NewStore(path).Lookup(g.Server, "")
	if err != nil || got == nil || got.AccessToken != g.AccessToken || !got.Expiry.Equal(g.Expiry) {
		t.Fatalf("Lookup = %+v, %v", got, err)
	}
	if got, _ := s.Lookup(g.Server, "other"); got != nil {
		t.Errorf("Lookup with another client id found %+v", got)
	}
	n, err := s.Delete(g.Server, "")
	if err != nil || n != 1 {
		t.Fatalf("Delete = %d, %v", n, err)
	}
	if got, _ := s.Lookup(g.Server, ""); got != nil {
		t.Errorf("after Delete, Lookup found %+v", got)
	}
}

// Two processes' stores saving at once lose neither change: each change
// is read, changed and written under the lock.
func TestStoreConcurrentSaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			s := NewStore(path) // a store of its own, as another process has
			if err := s.Save(Grant{Server: "https://s/" + string(rune('a'+i)), ClientID: "c", AccessToken: "tok"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i := range 20 {
		if g, err := NewStore(path).Lookup("https://s/"+string(rune('a'+i)), "c"); err != nil || g == nil {
			t.Errorf("grant %d lost: %v", i, err)
		}
	}
}

// A broken token file is an error that names it and quotes nothing of
// it; a FIFO in its place is never opened for reading (it would block).
func TestStoreBadFiles(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte(`{"grants": [{"accessToken": "leaked-token-value"`), 0o600)
	_, err := NewStore(broken).Lookup("https://x", "")
	if err == nil || !strings.Contains(err.Error(), broken) || strings.Contains(err.Error(), "leaked-token-value") {
		t.Errorf("broken file: %v", err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	_, err = NewStore(fifo).Lookup("https://x", "")
	if err == nil || !strings.Contains(err.Error(), "fifo.json") {
		t.Errorf("fifo: %v", err)
	}
	// A change is refused too, and nothing is written over the FIFO.
	if err := NewStore(fifo).Save(Grant{Server: "https://x"}); err == nil {
		t.Error("Save over a FIFO worked")
	}
}

func TestStoreUpdateFailureWritesNothing(t *testing.T) {
	s := NewStore(filepath.Join(t.TempDir(), "tokens.json"))
	s.Save(Grant{Server: "u", ClientID: "c", AccessToken: "one"})
	boom := errors.New("boom")
	err := s.Update("u", "c", func(cur *Grant) (*Grant, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v", err)
	}
	if g, _ := s.Lookup("u", "c"); g == nil || g.AccessToken != "one" {
		t.Errorf("after a failed update: %+v", g)
	}
}
