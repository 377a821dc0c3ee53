package host

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Trouble is a server's drop or failure as a person is told of it where
// they are: a client of serve, as a log notification; serve's stderr, as a
// line (DESIGN.md F16).
type Trouble struct {
	Server string
	// Level is LevelWarn for a drop that will be retried, LevelError for
	// a server given up on or that failed to start.
	Level LogLevel
	// Text is one line: `server "db" failed: exited (status 1): …`.
	Text string
	// Stderr is the process's last stderr lines, masked; none for a
	// remote server, or when only the status was seen.
	Stderr []string
}

// Detail is Text with the last stderr lines under it.
func (t Trouble) Detail() string {
	if len(t.Stderr) == 0 {
		return t.Text
	}
	return t.Text + "\nlast stderr lines:\n  " + strings.Join(t.Stderr, "\n  ")
}

// Troubles picks out of a host's state events the drops and failures a
// person is told of: once per change of state, not once per retry or per
// stderr line. A drop is told when the server leaves connected, a failure
// when it is given up on; a server that connects again, or is restarted
// after failing, may be told of anew. Its methods are safe to call from
// several goroutines.
type Troubles struct {
	mu   sync.Mutex
	told map[string]Trouble
	// seeded is when Seed read the states: events from before then are
	// in what it read already.
	seeded time.Time
}

// Note is e's trouble, if e is one not told of yet.
func (t *Troubles) Note(e Event) (Trouble, bool) {
	if e.Type != EventState {
		return Trouble{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.told == nil {
		t.told = map[string]Trouble{}
	}
	if e.Time.Before(t.seeded) {
		return Trouble{}, false
	}
	prev, told := t.told[e.Server]
	var tr Trouble
	switch {
	case e.State == StateFailed && e.Error != "":
		if told && prev.Level == LevelError {
			return Trouble{}, false
		}
		tr = Trouble{Server: e.Server, Level: LevelError, Text: fmt.Sprintf("server %q failed: %s", e.Server, e.Error)}
	case e.State == StateConnecting && e.Error != "" && !e.Retry.IsZero():
		if told {
			return Trouble{}, false // still down: each retry is not news
		}
		in := max(e.Retry.Sub(e.Time), 0).Round(100 * time.Millisecond)
		tr = Trouble{Server: e.Server, Level: LevelWarn, Text: fmt.Sprintf("server %q dropped, reconnecting in %s: %s", e.Server, in, e.Error)}
	case e.State == StateConnecting:
		// An attempt: after a drop, the same story; after a failure, a
		// restart, whose failure is news again.
		if told && prev.Level == LevelError {
			delete(t.told, e.Server)
		}
		return Trouble{}, false
	default:
		delete(t.told, e.Server) // connected again, disabled, removed, …
		return Trouble{}, false
	}
	tr.Stderr = e.Stderr
	t.told[e.Server] = tr
	return tr, true
}

// Seed takes in h's servers as they are, for a watcher that subscribed
// to h after it started (subscribe first, then seed): a server already
// failed or reconnecting is told of, without its stderr, which only the
// event carried (its error quotes what it said).
func (t *Troubles) Seed(h *Host) []Trouble {
	now := time.Now()
	statuses := h.Status()
	var out []Trouble
	for _, st := range statuses {
		if st.State != StateFailed && st.State != StateConnecting {
			continue
		}
		e := Event{Time: now, Type: EventState, Server: st.Name, State: st.State, Error: st.Error, Retry: st.Retry}
		if tr, ok := t.Note(e); ok {
			out = append(out, tr)
		}
	}
	t.mu.Lock()
	t.seeded = now
	t.mu.Unlock()
	return out
}

// Current is the troubles still standing, in no order: a client that
// asks for logs late is told of them.
func (t *Troubles) Current() []Trouble {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Trouble, 0, len(t.told))
	for _, tr := range t.told {
		out = append(out, tr)
	}
	return out
}
