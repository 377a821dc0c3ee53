package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testDebounce keeps the tests quick; the behaviour does not depend on it.
const testDebounce = 20 * time.Millisecond

func newTestWatcher(t *testing.T, files ...string) *fileWatcher {
	t.Helper()
	w, err := newFileWatcher(testDebounce)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.close(); err != nil {
			t.Error(err)
		}
	})
	w.setFiles(files)
	return w
}

// changeBound is how long a test waits for something that takes
// milliseconds when the watcher works; reaching it means the watcher
// missed the change, not that the machine is slow.
const changeBound = 10 * time.Second

// change makes a change with do and waits for the watcher's notice of it.
// An earlier change may still be on its way when this one is made, its
// events not read yet or its notice not sent yet, so the wait is keyed on
// this change: a fence in fenceDir (a folder under watch) first shows that
// the watcher has read every event of earlier changes, and then only a
// notice sent after an event of this change counts.
func change(t *testing.T, w *fileWatcher, fenceDir, what string, do func()) {
	t.Helper()
	fence(t, w, fenceDir)
	w.mu.Lock()
	before := w.seen
	w.mu.Unlock()
	do()
	timeout := time.After(changeBound)
	for {
		select {
		case <-w.changed:
			w.mu.Lock()
			noticed := w.noticed
			w.mu.Unlock()
			if noticed > before {
				return
			}
			// the late notice of an earlier change
		case <-timeout:
			t.Fatalf("no change noticed: %s", what)
		}
	}
}

var fences atomic.Int64

// fence creates a file in dir, a folder under watch, and waits until the
// watcher has read its event. inotify delivers a watcher's events in the
// order they happened, so by then it has read every earlier one.
func fence(t *testing.T, w *fileWatcher, dir string) {
	t.Helper()
	name := filepath.Join(dir, fmt.Sprintf(".fence-%d", fences.Add(1)))
	seen := make(chan struct{})
	var once sync.Once
	w.mu.Lock()
	w.observe = func(ev fsnotify.Event) {
		if ev.Name == name && ev.Has(fsnotify.Create) {
			once.Do(func() { close(seen) })
		}
	}
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.observe = nil
		w.mu.Unlock()
	}()
	write(t, name, "")
	select {
	case <-seen:
	case <-time.After(changeBound):
		t.Fatalf("fence %s never seen: is %s under watch?", name, dir)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestFileWatcherSeesEveryKindOfSave(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	write(t, file, "{}")
	w := newTestWatcher(t, file)

	change(t, w, dir, "write in place", func() { write(t, file, `{"mcpServers": {}}`) })

	// Truncate, then write: what many editors and shell redirects do.
	change(t, w, dir, "truncate and write", func() {
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"mcpServers": {"a": {}}}`)
		f.Close()
	})

	// Atomic save: write a temp file, rename it over the config.
	change(t, w, dir, "rename over", func() {
		tmp := filepath.Join(dir, ".mcp.json.swp")
		write(t, tmp, `{"mcpServers": {"b": {}}}`)
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
	})

	// Deleted, then created again.
	change(t, w, dir, "delete", func() {
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
	})
	change(t, w, dir, "re-create", func() { write(t, file, "{}") })
}

// A config in a folder that does not exist yet is noticed when the folder
// and the file appear.
func TestFileWatcherSeesNewFolderAndFile(t *testing.T) {
	home := t.TempDir()
	folder := filepath.Join(home, ".cursor")
	file := filepath.Join(folder, "mcp.json")
	w := newTestWatcher(t, file)
	// Until the folder exists its parent is under watch; then the folder.
	change(t, w, home, "folder created", func() {
		if err := os.Mkdir(folder, 0o755); err != nil {
			t.Fatal(err)
		}
	})
	change(t, w, folder, "file created in the new folder", func() { write(t, file, "{}") })
}

// Only the files and the folders on the way to them matter.
func TestRelevant(t *testing.T) {
	w := &fileWatcher{files: map[string]bool{"/home/u/.cursor/mcp.json": true, "/p/.mcp.json": true}}
	for path, want := range map[string]bool{
		"/home/u/.cursor/mcp.json":  true,
		"/home/u/.cursor":           true,
		"/home/u":                   true,
		"/p/.mcp.json":              true,
		"/home/u/.bash_history":     false,
		"/home/u/.cursor/other":     false,
		"/home/u/.cursor/mcp.json~": false,
		"/p/.mcp.json.swp":          false,
		"/home/u2":                  false,
	} {
		if got := w.relevantLocked(path); got != want {
			t.Errorf("relevant(%s) = %v, want %v", path, got, want)
		}
	}
}
