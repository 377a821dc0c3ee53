// Package watch keeps a running host in step with its config files (DESIGN.md
// F36): it watches every file discovery read and the folders where absent
// ones would appear, reloads the host when they change, and keeps the last
// good config running while a file does not parse.
package watch

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// DefaultDebounce is how long the files must be quiet before a reload: an
// editor's save is a burst of events, and a person saving twice in a row
// wants one reload.
const DefaultDebounce = 200 * time.Millisecond

// Loaded is what one reading of the configs gives.
type Loaded struct {
	// Servers are the configs to run.
	Servers []config.ServerConfig
	// Files are every file the reading looked at, found or not, and the
	// other files whose change should cause a reading (trust, policy).
	Files []string
	// Errors are sources that could not be read. While there are any, the
	// host keeps its last good config: a half-written file must not stop
	// the servers it defines.
	Errors []error
}

// EventType says what an Event reports.
type EventType string

const (
	// EventReload: the configs changed and the host was reloaded.
	EventReload EventType = "reload"
	// EventConfigError: a config file could not be read; nothing changed.
	EventConfigError EventType = "config-error"
)

// Event is one thing the watcher did.
type Event struct {
	Time  time.Time   `json:"time"`
	Type  EventType   `json:"type"`
	Diff  config.Diff `json:"diff,omitzero"`
	Error string      `json:"error,omitempty"`
}

// Options configure Run. Nil means defaults.
type Options struct {
	// Debounce is the quiet time before a reload; zero means
	// DefaultDebounce.
	Debounce time.Duration
	// Logger gets the watcher's own diagnostics; nil discards them.
	Logger *slog.Logger
	// Notify gets every Event; nil ignores them. It is called from Run's
	// goroutine and should not block for long.
	Notify func(Event)
	// TokenFile, when set, is the host's OAuth token file: a change to it
	// (a login in another process) connects the servers waiting in
	// needs-auth.
	TokenFile string
	// Reread, when a value arrives on it, reads the configs again as a
	// change of a file would: another replica saw a change this one's
	// files may not show (DESIGN.md F64). Nil: the files alone.
	Reread <-chan struct{}
}

// Run watches first.Files and reloads h with load's result whenever they
// change, until ctx ends. first is the reading the host was started with.
// A reading with errors changes nothing and is reported; the next good
// reading reloads. Identical configs are a no-op.
func Run(ctx context.Context, h *host.Host, first *Loaded, load func() (*Loaded, error), opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	notify := func(e Event) {
		e.Time = time.Now()
		if o.Notify != nil {
			o.Notify(e)
		}
	}
	fw, err := newFileWatcher(o.Debounce)
	if err != nil {
		return err
	}
	defer fw.close()
	withTokens := func(files []string) []string {
		if o.TokenFile == "" {
			return files
		}
		return append(slices.Clone(files), o.TokenFile)
	}
	files := first.Files
	fw.setFiles(withTokens(files))
	// A file may have changed between the first reading and now, before
	// anything watched it: read once more (a no-op when nothing changed).
	select {
	case fw.changed <- struct{}{}:
	default: // a change is already pending
	}

	// reread reads and applies the configs once; false when ctx ended.
	reread := func() bool {
		l, err := load()
		if err != nil {
			notify(Event{Type: EventConfigError, Error: err.Error()})
			return true
		}
		if !slices.Equal(l.Files, files) {
			files = l.Files
			fw.setFiles(withTokens(files))
		}
		h.RetryAuth()
		if len(l.Errors) > 0 {
			for _, e := range l.Errors {
				notify(Event{Type: EventConfigError, Error: e.Error()})
			}
			return true
		}
		diff, err := h.Reload(ctx, l.Servers)
		if err != nil {
			if ctx.Err() != nil {
				return false
			}
			notify(Event{Type: EventConfigError, Error: err.Error()})
			return true
		}
		if !diff.Empty() {
			notify(Event{Type: EventReload, Diff: diff})
		}
		return true
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-fw.errs:
			o.Logger.Warn("watching config files", "error", err)
		case <-fw.changed:
			if !reread() {
				return nil
			}
		case <-o.Reread:
			if !reread() {
				return nil
			}
		}
	}
}
