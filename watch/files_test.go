package watch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

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

// awaitChange waits for the watcher's notice; the bound is only reached
// when the watcher missed the change.
func awaitChange(t *testing.T, w *fileWatcher, what string) {
	t.Helper()
	select {
	case <-w.changed:
	case <-time.After(10 * time.Second):
		t.Fatalf("no change noticed: %s", what)
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

	write(t, file, `{"mcpServers": {}}`)
	awaitChange(t, w, "write in place")

	// Truncate, then write: what many editors and shell redirects do.
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"mcpServers": {"a": {}}}`)
	f.Close()
	awaitChange(t, w, "truncate and write")

	// Atomic save: write a temp file, rename it over the config.
	tmp := filepath.Join(dir, ".mcp.json.swp")
	write(t, tmp, `{"mcpServers": {"b": {}}}`)
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	awaitChange(t, w, "rename over")

	// Deleted, then created again.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	awaitChange(t, w, "delete")
	write(t, file, "{}")
	awaitChange(t, w, "re-create")
}

// A config in a folder that does not exist yet is noticed when the folder
// and the file appear.
func TestFileWatcherSeesNewFolderAndFile(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, ".cursor", "mcp.json")
	w := newTestWatcher(t, file)
	if err := os.Mkdir(filepath.Join(home, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	awaitChange(t, w, "folder created")
	write(t, file, "{}")
	awaitChange(t, w, "file created in the new folder")
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
