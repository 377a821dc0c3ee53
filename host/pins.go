package host

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host/internal/pins"
)

// EventPin: a tool's definition differs from the one remembered for it
// (DESIGN.md F66), or came back to it; Pin says how, Tool is the
// server's own name of the tool.
const EventPin EventType = "pin"

// The changes a PinChange names.
const (
	// PinChanged: the server lists the tool with another title,
	// description, schema or annotations than were approved.
	PinChanged = pins.Changed
	// PinReadded: the server removed the tool and lists it again.
	PinReadded = pins.Readded
	// PinRemoved: the server no longer lists a tool it had.
	PinRemoved = pins.Removed
	// PinUnverified: the pin file cannot be read, so nothing of a pinned
	// server can be checked; its tools are withheld.
	PinUnverified = "unverified"
	// PinNone, on an EventPin: the tool is as approved again (approved,
	// or the server changed it back).
	PinNone = ""
)

// PinChange is how one tool of a server differs from what switchboard
// remembers of it (DESIGN.md F66).
type PinChange struct {
	// Tool is the server's own name of the tool.
	Tool string `json:"tool"`
	// Change is PinChanged, PinReadded, PinRemoved or PinUnverified.
	Change string `json:"change"`
	// What are the parts that differ from the approved definition:
	// title, description, inputSchema, outputSchema, annotations.
	What []string `json:"what,omitempty"`
	// Withheld says the tool is kept from agents and clients until it is
	// approved: its server has pinTools.
	Withheld bool `json:"withheld,omitempty"`
	// Description is the tool's description as the server lists it now,
	// masked, for a person deciding whether to approve it.
	Description string `json:"description,omitempty"`
}

// pinState is the host's copy of the pin file (Options.PinFile). It has a
// lock of its own, taken under Host.mu and never the other way round.
type pinState struct {
	path string
	mu   sync.Mutex
	// book is the file as last read, with the listings not yet written
	// applied; nil while err says why the file cannot be read.
	book *pins.Book
	err  error
	// pending are the latest listing of each server (by key) not yet
	// written; writing says a writer is on them.
	pending map[string]pinListing
	writing bool
	// digests are the tools' digests, by the listing's pointer: a
	// listing is never changed, and a rebuild looks at every tool.
	digests map[*mcp.Tool]string
}

type pinListing struct {
	name  string
	tools []*mcp.Tool
	at    time.Time
}

func newPinState(path string) *pinState {
	p := &pinState{path: path, pending: map[string]pinListing{}, digests: map[*mcp.Tool]string{}}
	if path != "" {
		p.book, p.err = pins.Read(path)
	}
	return p
}

// pinned reports whether a server's changed tools are withheld: its own
// pinTools, else the config's global one (config.ServerConfig.PinTools).
func (s *server) pinned() bool { return s.cfg.PinTools != nil && *s.cfg.PinTools }

// digest is t's, computed once per listing.
func (p *pinState) digest(t *mcp.Tool) string {
	d, ok := p.digests[t]
	if !ok {
		d = pins.Digest(t)
		p.digests[t] = d
	}
	return d
}

// checkLocked says how each of a server's tools differs from what is
// remembered, and which are withheld; removed lists what the server no
// longer lists. It is the catalog writer's (rebuildToolsLocked).
func (h *Host) pinCheckLocked(s *server, tools []*mcp.Tool, keep map[*mcp.Tool]string) (changes []PinChange, withheld map[*mcp.Tool]bool) {
	p := h.pins
	if p.path == "" || s.fingerprint == "" {
		return nil, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range tools {
		var c PinChange
		if p.err != nil {
			if !s.pinned() {
				continue // nothing to check against: shown as served
			}
			c = PinChange{Tool: t.Name, Change: PinUnverified}
		} else {
			d := p.digest(t)
			keep[t] = d
			change, what := p.book.Check(s.fingerprint, t, d)
			if change == "" {
				continue
			}
			c = PinChange{Tool: t.Name, Change: change, What: what}
		}
		c.Withheld = s.pinned()
		c.Description = h.redactor.String(t.Description)
		changes = append(changes, c)
		if c.Withheld {
			if withheld == nil {
				withheld = map[*mcp.Tool]bool{}
			}
			withheld[t] = true
		}
	}
	if p.err == nil && s.phase == phaseConnected {
		for _, name := range p.book.Removals(s.fingerprint) {
			changes = append(changes, PinChange{Tool: name, Change: PinRemoved})
		}
	}
	slices.SortFunc(changes, func(a, b PinChange) int { return strings.Compare(a.Tool, b.Tool) })
	return changes, withheld
}

// announcePinsLocked publishes an EventPin for each change of a server's
// that is new or other than it was: a person hears of each change once,
// and of its end.
func (h *Host) announcePinsLocked(server string, was, now []PinChange) {
	find := func(list []PinChange, tool string) *PinChange {
		for i := range list {
			if list[i].Tool == tool {
				return &list[i]
			}
		}
		return nil
	}
	for i := range now {
		c := now[i]
		if old := find(was, c.Tool); old != nil && old.Change == c.Change && slices.Equal(old.What, c.What) && old.Withheld == c.Withheld {
			continue
		}
		msg := "tool " + c.Tool + " " + pinText(c)
		if c.Withheld {
			msg += "; withheld until 'switchboard tools approve " + server + " " + c.Tool + "'"
			h.log.Warn("tool withheld: its definition is not the one approved", "server", server, "tool", c.Tool, "change", c.Change, "what", strings.Join(c.What, ","))
		}
		h.events.publish(Event{Type: EventPin, Server: server, Tool: c.Tool, Message: msg, Pin: &c})
	}
	for _, old := range was {
		if find(now, old.Tool) == nil && old.Change != PinRemoved {
			h.events.publish(Event{Type: EventPin, Server: server, Tool: old.Tool, Message: "tool " + old.Tool + " is as approved", Pin: &PinChange{Tool: old.Tool}})
		}
	}
}

// pinText says a change in words: "changed (description, inputSchema)".
func pinText(c PinChange) string {
	text := c.Change
	if c.Change == PinUnverified {
		text = "cannot be checked: the pin file cannot be read"
	}
	if len(c.What) > 0 {
		text += " (" + strings.Join(c.What, ", ") + ")"
	}
	return text
}

// pinListedLocked records a server's live listing: new tools are
// remembered, changed ones seen, missing ones removed (pins.Observe),
// here at once and in the file soon, by a writer of the host's. It is the
// catalog writer's (changeCatalogLocked).
func (h *Host) pinListedLocked(s *server, tools []*mcp.Tool) {
	p := h.pins
	if p.path == "" || s.fingerprint == "" || h.closed {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := pinListing{name: s.cfg.Name, tools: tools, at: time.Now()}
	if p.book != nil {
		p.book.Observe(s.fingerprint, l.name, l.tools, l.at)
	}
	p.pending[s.fingerprint] = l
	h.writePinsLocked()
}

// writePinsLocked starts the writer when there is something to write and
// none is on it; p.mu is held.
func (h *Host) writePinsLocked() {
	p := h.pins
	if p.writing || len(p.pending) == 0 || p.err != nil {
		return
	}
	p.writing = true
	h.goTracked(h.writePins)
}

// writePins merges the pending listings into the file until none is
// left. A file it cannot read is left as it is (pins.Update): the
// listings wait for it to be fixed.
func (h *Host) writePins() {
	p := h.pins
	for {
		p.mu.Lock()
		todo := p.pending
		if len(todo) == 0 {
			p.writing = false
			p.mu.Unlock()
			return
		}
		p.pending = map[string]pinListing{}
		p.mu.Unlock()
		err := pins.Update(p.path, func(b *pins.Book) error {
			for key, l := range todo {
				b.Observe(key, l.name, l.tools, l.at)
			}
			return nil
		})
		if err != nil {
			h.log.Error("cannot remember tool definitions", "error", err.Error())
			p.mu.Lock()
			for key, l := range todo {
				if _, newer := p.pending[key]; !newer {
					p.pending[key] = l
				}
			}
			p.writing = false
			p.mu.Unlock()
			return
		}
	}
}

// reloadPins reads the pin file again, after a change of it (an approval
// by another process, this host's own write), and republishes the tool
// set: an approved tool comes back, a tool the file no longer vouches for
// goes.
func (h *Host) reloadPins() {
	p := h.pins
	b, err := pins.Read(p.path)
	p.mu.Lock()
	if err != nil && (p.err == nil || p.err.Error() != err.Error()) {
		h.log.Error("tool pins", "error", err.Error())
	}
	p.book, p.err = b, err
	if b != nil {
		for key, l := range p.pending {
			b.Observe(key, l.name, l.tools, l.at)
		}
	}
	p.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	p.mu.Lock()
	h.writePinsLocked()
	p.mu.Unlock()
	h.changeCatalogLocked(nil, catalogChange{op: catalogPins})
}

// watchPins follows the pin file's directory until the host closes, and
// reads the file again on every change of it. Started once, by the first
// Start.
func (h *Host) watchPins() {
	p := h.pins
	if p.path == "" {
		return
	}
	dir := filepath.Dir(p.path)
	w, err := fsnotify.NewWatcher()
	if err == nil {
		err = w.Add(dir)
		if err != nil {
			w.Close()
		}
	}
	if err != nil {
		h.log.Warn("approvals made elsewhere are seen at the next start", "error", "watch "+dir+": "+err.Error())
		return
	}
	h.goTracked(func() {
		defer w.Close()
		for {
			select {
			case <-h.life.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Base(ev.Name) == pins.FileName {
					h.reloadPins()
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				// An overflow lost events: the file may have changed.
				h.reloadPins()
			}
		}
	})
}

// withheldLocked reports whether name is (or was) the exposed name of a
// withheld tool, and which: for the hint in the log when a client calls it.
func (h *Host) withheldLocked(name string) (server, tool string, ok bool) {
	k, departed := h.names[KindTool].departed[name]
	for _, s := range h.servers {
		for _, c := range s.pinChanges {
			if !c.Withheld {
				continue
			}
			if (departed && k == toolKey{s.cfg.Name, c.Tool}) || name == h.opts.ToolPrefix+s.cfg.Name+"__"+c.Tool ||
				(h.opts.PassThroughNames && name == c.Tool) {
				return s.cfg.Name, c.Tool, true
			}
		}
	}
	return "", "", false
}

// pruneLocked keeps the digests of the tools the last rebuild looked at.
func (p *pinState) prune(keep map[*mcp.Tool]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.digests = keep
	}
}
