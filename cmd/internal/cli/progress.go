package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/host"
)

// progress shows servers settling while a command waits for them, on a
// terminal only (DESIGN.md F47): one status line on stderr, redrawn in
// place as each server's state changes and wiped when the command has its
// answer. Piped output gets nothing.
type progress struct {
	sub  *host.Subscription
	done chan struct{}
	once sync.Once
}

// defaultColumns is the width assumed of a terminal that does not say.
const defaultColumns = 80

// progress starts the display for h, which is about to start. quiet turns
// it off: with -v the log is the progress, and a line redrawn under it
// would be torn.
func (ios IO) progress(h *host.Host, quiet bool) *progress {
	p := &progress{done: make(chan struct{})}
	if !ios.ErrTTY || quiet {
		close(p.done)
		return p
	}
	p.sub = h.Subscribe()
	width := defaultColumns
	if ios.Width != nil {
		if w := ios.Width(); w > 0 {
			width = w
		}
	}
	line := statusLine{w: ios.Err, width: width, color: ios.color(true)}
	go func() {
		defer close(p.done)
		var servers settling
		for e := range p.sub.C {
			if e.Type == host.EventState {
				servers.set(e.Server, e.State)
				line.draw(servers.summary())
			}
		}
		line.draw("")
	}()
	return p
}

// stop ends the display, wiping its line, and waits for its goroutine.
func (p *progress) stop() {
	p.once.Do(func() {
		if p.sub != nil {
			p.sub.Close()
		}
	})
	<-p.done
}

// settling is the servers' states as their events told them, in the order
// they first appeared.
type settling struct {
	names  []string
	states map[string]host.State
}

func (s *settling) set(name string, st host.State) {
	switch st {
	case host.StateDisabled, host.StateBlocked, host.StateUntrusted, host.StateDuplicate, host.StateIdle:
		return // placed, not connecting: nothing to wait for
	}
	if s.states == nil {
		s.states = map[string]host.State{}
	}
	if _, ok := s.states[name]; !ok {
		s.names = append(s.names, name)
	}
	s.states[name] = st
}

// summary is the status line: "connecting to 3 servers: 1 connected,
// 1 failed; waiting for slow".
func (s *settling) summary() string {
	var connected, failed int
	var waiting []string
	for _, name := range s.names {
		switch s.states[name] {
		case host.StateConnected:
			connected++
		case host.StateFailed, host.StateDisconnected:
			failed++
		case host.StateConnecting:
			waiting = append(waiting, termsafe.Line(name))
		}
	}
	servers := "servers"
	if len(s.names) == 1 {
		servers = "server"
	}
	out := fmt.Sprintf("connecting to %d %s: %d connected", len(s.names), servers, connected)
	if failed > 0 {
		out += fmt.Sprintf(", %d failed", failed)
	}
	if len(waiting) > 0 {
		out += "; waiting for " + strings.Join(waiting, ", ")
	}
	return out
}

// statusLine is one line of a terminal that is redrawn in place: a
// carriage return, the new text, and spaces over what is left of the old.
// No escape sequence is needed (clear-to-end-of-line is not one every
// terminal knows), so with NO_COLOR nothing written is one.
type statusLine struct {
	w     io.Writer
	width int
	color bool
	shown int // characters on the line now
}

// draw replaces the line with text; "" wipes it and leaves the cursor at
// its start. Text longer than the terminal is cut short: a line that
// wrapped could not be redrawn.
func (l *statusLine) draw(text string) {
	if text == "" && l.shown == 0 {
		return
	}
	if limit := max(l.width-1, 10); utf8.RuneCountInString(text) > limit {
		text = string([]rune(text)[:limit-1]) + "…"
	}
	n := utf8.RuneCountInString(text)
	out := "\r" + paint(l.color, ansiDim, text) + strings.Repeat(" ", max(0, l.shown-n))
	if text == "" {
		out += "\r"
	}
	l.shown = n
	fmt.Fprint(l.w, out)
}
