package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/internal/pins"
	"github.com/switchboard-mcp/switchboard/host/internal/toolcache"
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
	// PinUnverified: the pins (the file, or the store's) cannot be
	// read, so nothing of a pinned server can be checked; its tools are
	// withheld.
	PinUnverified = "unverified"
	// PinNone, on an EventPin: the tool is as approved again (approved,
	// or the server changed it back).
	PinNone = ""
)

// PinChange is how one tool of a server differs from what switchboard
// remembers of it (DESIGN.md F66).
type PinChange struct {
	// Tool is the server's own name of the tool; Name, the exposed name
	// it has or would have (a withheld tool has none in the tool set).
	Tool string `json:"tool"`
	Name string `json:"name,omitempty"`
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
	// shared, when set, keeps the pins instead of the file at path
	// (Options.Pins, pinstore.go).
	shared PinStore
	mu     sync.Mutex
	// book is the file as last read, with this host's listings since
	// applied (recordPins); nil while err says why the file cannot be
	// read.
	book *pins.Book
	err  error
	// logged is the last error logged, so that each is logged once.
	logged string
	// digests are the tools' digests, by the listing's pointer: a
	// listing is never changed, and a rebuild looks at every tool.
	digests map[*mcp.Tool]string
}

func newPinState(path string, shared PinStore) *pinState {
	p := &pinState{path: path, shared: shared, digests: map[*mcp.Tool]string{}}
	if p.on() {
		p.book, p.err = p.read(context.Background())
	}
	return p
}

// on reports whether pins are kept at all.
func (p *pinState) on() bool { return p.path != "" || p.shared != nil }

// pinned reports whether a server's changed tools are withheld: its
// pinTools, into which loading put the config's top-level one when the
// server does not say (config.ServerConfig.PinTools).
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

// pinCheckLocked says how each of a server's tools differs from what is
// remembered, and which of them are withheld, with the tools the server
// no longer lists; it puts the digests it used in keep. It is the
// catalog writer's (rebuildToolsLocked).
func (h *Host) pinCheckLocked(s *server, tools []*mcp.Tool, keep map[*mcp.Tool]string) (changes []PinChange, withheld map[*mcp.Tool]bool) {
	p := h.pins
	if !p.on() || s.pinKey == "" {
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
			change, what := p.book.Check(s.pinKey, t, d)
			if change == "" {
				continue
			}
			c = PinChange{Tool: t.Name, Change: change, What: what}
		}
		c.Withheld = s.pinned()
		c.Name = h.pinNameLocked(s.cfg.Name, t.Name)
		c.Description = h.redactor.String(t.Description)
		changes = append(changes, c)
		if c.Withheld {
			if withheld == nil {
				withheld = map[*mcp.Tool]bool{}
			}
			withheld[t] = true
		}
	}
	if p.err == nil {
		for _, name := range p.book.Removals(s.pinKey) {
			changes = append(changes, PinChange{Tool: name, Change: PinRemoved})
		}
	}
	slices.SortFunc(changes, func(a, b PinChange) int { return strings.Compare(a.Tool, b.Tool) })
	return changes, withheld
}

// pinNameLocked is the exposed name a server's tool has, or would have
// were it not withheld: the name it had, else the one a tool of no
// collision gets.
func (h *Host) pinNameLocked(server, tool string) string {
	for name, k := range h.names[KindTool].index {
		if k == (toolKey{server, tool}) {
			return name
		}
	}
	for name, k := range h.names[KindTool].departed {
		if k == (toolKey{server, tool}) {
			return name
		}
	}
	if h.opts.PassThroughNames {
		return tool
	}
	return h.opts.ToolPrefix + server + "__" + tool
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
		text = "cannot be checked: the pins cannot be read"
	}
	if len(c.What) > 0 {
		text += " (" + strings.Join(c.What, ", ") + ")"
	}
	return text
}

// recordPins records a server's live listing in the pin file and in the
// host's copy, before the listing reaches the tool set: new tools are
// remembered, changed ones seen, missing ones removed (pins.Observe). So
// by the time a change is shown, what 'tools approve' accepts is in the
// file. A file that cannot be read is left as it is (pins.Update), and
// the listing is remembered nowhere: pinned servers' tools stay withheld.
func (h *Host) recordPins(s *server, tools []*mcp.Tool) {
	p := h.pins
	if !p.on() || s.pinKey == "" {
		return
	}
	now := time.Now()
	err := p.update(h.life, func(b *pins.Book) (bool, error) {
		return b.Observe(s.pinKey, s.cfg.Name, tools, now), nil
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		h.pinErrorLocked(err)
		return
	}
	if p.book != nil {
		p.book.Observe(s.pinKey, s.cfg.Name, tools, now)
	}
}

// pinErrorLocked logs a pin file error once, until it changes; p.mu is
// held.
func (h *Host) pinErrorLocked(err error) {
	if p := h.pins; p.logged != err.Error() {
		p.logged = err.Error()
		h.log.Error("tool pins", "error", err.Error())
	}
}

// reloadPins reads the pin file again, after a change of it (an approval
// by another process, this host's own write), and republishes the tool
// set: an approved tool comes back, a tool the file no longer vouches for
// goes.
func (h *Host) reloadPins() {
	p := h.pins
	if h.life.Err() != nil {
		return // closed: nothing to offer
	}
	b, err := p.read(h.life)
	p.mu.Lock()
	if err != nil {
		h.pinErrorLocked(err)
	} else {
		p.logged = ""
	}
	p.book, p.err = b, err
	p.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.changeCatalogLocked(nil, catalogChange{op: catalogPins})
}

// watchPins follows the pin file's directory until the host closes, and
// reads the file again on every change of it. Started once, by the first
// Start.
func (h *Host) watchPins() {
	p := h.pins
	if !p.on() {
		return
	}
	if p.err != nil {
		p.mu.Lock()
		h.pinErrorLocked(p.err)
		p.mu.Unlock()
	}
	if p.shared != nil {
		h.watchSharedPins()
		return
	}
	dir := filepath.Dir(p.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.log.Warn("approvals made elsewhere are seen at the next start", "error", err.Error())
		return
	}
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
			if (departed && k == toolKey{s.cfg.Name, c.Tool}) || name == c.Name {
				return s.cfg.Name, c.Tool, true
			}
		}
	}
	return "", "", false
}

// withholdsLocked reports whether a call of the server's tool must be
// refused now: the server is pinned and its live tool of that name is not
// as approved, or cannot be checked. It asks the pin file's copy itself,
// not the last tool set, which may be published a little later.
func (h *Host) withholdsLocked(s *server, tool string) bool {
	p := h.pins
	if !p.on() || s.pinKey == "" || !s.pinned() {
		return false
	}
	i := slices.IndexFunc(s.live, func(t *mcp.Tool) bool { return t.Name == tool })
	if i < 0 {
		return false // not listed: the call fails as it would anyway
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return true
	}
	change, _ := p.book.Check(s.pinKey, s.live[i], p.digest(s.live[i]))
	return change != ""
}

// refuseWithheld is the answer to a call of a withheld tool: what a call
// of an unknown tool gets, so a client learns nothing it may not see, and
// a line in the log for the person running switchboard.
func (h *Host) refuseWithheld(name string, k toolKey) error {
	h.log.Warn("call of a withheld tool refused: its definition changed since it was approved",
		"server", k.server, "tool", k.tool, "hint", "switchboard tools approve "+k.server+" "+k.tool)
	return fmt.Errorf("%w %q", ErrUnknownTool, name)
}

// prune keeps the digests of the tools the last rebuild looked at.
func (p *pinState) prune(keep map[*mcp.Tool]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.digests = keep
	}
}

// pinKey is what a server's pins are kept by, for the host and for
// ApproveTools alike: its place (config.ServerConfig.Place), so a rotated
// secret keeps them.
func pinKey(cfg *config.ServerConfig, projectDir string) string {
	return toolcache.PlaceFingerprint(cfg, projectDir)
}
