package watch

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// fileWatcher reports, debounced, when any of a set of files may have
// changed: written in place, truncated and rewritten, replaced by a rename
// (editors' atomic save), deleted, or created where none was. It watches
// each file's folder rather than the file, since a rename or a delete ends
// a watch on the file itself; a folder that does not exist yet is covered
// by watching its nearest existing ancestor, so a new project's .cursor/
// and the mcp.json inside it are both noticed.
type fileWatcher struct {
	fs       *fsnotify.Watcher
	debounce time.Duration
	changed  chan struct{} // one pending notice, never blocks the loop
	errs     chan error
	done     chan struct{}
	wg       sync.WaitGroup

	mu      sync.Mutex
	files   map[string]bool // the files that matter
	watched map[string]bool // folders under watch
	// seen counts the events that may have changed a file, and noticed is
	// what seen was when the last notice went out: a test tells the notice
	// for its change from a late one for an earlier change by them.
	seen, noticed uint64
	// observe, when set (by tests), sees every event the loop reads,
	// relevant or not, in order.
	observe func(fsnotify.Event)
}

func newFileWatcher(debounce time.Duration) (*fileWatcher, error) {
	fs, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &fileWatcher{
		fs: fs, debounce: debounce,
		changed: make(chan struct{}, 1), errs: make(chan error, 1), done: make(chan struct{}),
		files: map[string]bool{}, watched: map[string]bool{},
	}
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// setFiles replaces the set of files to watch.
func (w *fileWatcher) setFiles(paths []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files = map[string]bool{}
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			w.files[filepath.Clean(abs)] = true
		}
	}
	w.rearmLocked()
}

// rearmLocked watches, for every file, its folder or the nearest ancestor
// that exists, and stops watching folders no file needs any more.
func (w *fileWatcher) rearmLocked() {
	want := map[string]bool{}
	for f := range w.files {
		dir := filepath.Dir(f)
		for {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				want[dir] = true
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	for dir := range w.watched {
		if !want[dir] {
			_ = w.fs.Remove(dir)
			delete(w.watched, dir)
		}
	}
	for dir := range want {
		if w.watched[dir] {
			continue
		}
		if err := w.fs.Add(dir); err == nil {
			w.watched[dir] = true
		}
	}
}

// relevantLocked reports whether an event on path can change a file: the
// file itself, or a folder on the way to one (created, renamed, removed).
func (w *fileWatcher) relevantLocked(path string) bool {
	path = filepath.Clean(path)
	if w.files[path] {
		return true
	}
	prefix := path + string(filepath.Separator)
	for f := range w.files {
		if len(f) > len(prefix) && f[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}

func (w *fileWatcher) loop() {
	defer w.wg.Done()
	var timer *time.Timer
	var fire <-chan time.Time
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.mu.Lock()
			if w.observe != nil {
				w.observe(ev)
			}
			relevant := w.relevantLocked(ev.Name)
			if relevant && ev.Op&(fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0 {
				w.rearmLocked() // a folder appeared or went: watch the right ones
			}
			relevant = relevant && ev.Op != fsnotify.Chmod
			if relevant {
				w.seen++
			}
			w.mu.Unlock()
			if !relevant {
				continue
			}
			// Debounce: a save is often several events (truncate, write,
			// write; or create temp, write, rename).
			if timer == nil {
				timer = time.NewTimer(w.debounce)
			} else {
				timer.Reset(w.debounce)
			}
			fire = timer.C
		case <-fire:
			fire = nil
			w.mu.Lock()
			w.noticed = w.seen
			w.mu.Unlock()
			select {
			case w.changed <- struct{}{}:
			default: // a notice is already pending
			}
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			select {
			case w.errs <- err:
			default:
			}
		case <-w.done:
			if timer != nil {
				timer.Stop()
			}
			return
		}
	}
}

func (w *fileWatcher) close() error {
	close(w.done)
	err := w.fs.Close()
	w.wg.Wait()
	if errors.Is(err, fsnotify.ErrClosed) {
		return nil
	}
	return err
}
