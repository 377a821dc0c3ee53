package host

import (
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/glob"
)

// toolsCoalesce bounds how long a change to the tool set waits to be
// published while other servers are still on their first connect
// (DESIGN.md F21, F22). A burst of servers connecting together is then a
// handful of versions instead of one per server, and a consumer that only
// listens for EventTools hears of a server's tools at most this late;
// anyone who reads the set (Tools, a call, Status) gets it at once.
const toolsCoalesce = 100 * time.Millisecond

// Tools returns the current tool set. The snapshot is immutable.
func (h *Host) Tools() ToolSet {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.flushToolsLocked()
	return h.tools
}

// Tool is the exposed tool of that name, with its whole input schema: for
// an agent that shows a model names and one-line descriptions first (the
// prompt section) and loads a tool's schema when it is about to use it.
func (h *Host) Tool(name string) (Tool, bool) {
	for _, t := range h.Tools().Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// publishSoonLocked has a pending change to the tool set (toolsDirty)
// published: at once when no server is on its first connect (the host is
// quiet: a change alone, or the last of a burst), else within
// toolsCoalesce, together with whatever else changes meanwhile. Until
// then every reader publishes it first (flushToolsLocked), so nobody sees
// a tool set older than the servers' phases. It reports whether it
// published a new version. Only changeCatalogLocked calls it.
func (h *Host) publishSoonLocked() bool {
	if !h.toolsDirty || h.closed {
		return false
	}
	if !h.connectingLocked() {
		return h.rebuildToolsLocked()
	}
	if h.toolsTimer == nil {
		h.toolsTimer = time.AfterFunc(h.coalesce(), h.publishPending)
	}
	return false
}

// coalesce is toolsCoalesce, or the test hook's.
func (h *Host) coalesce() time.Duration {
	if h.hooks.coalesce != 0 {
		return h.hooks.coalesce
	}
	return toolsCoalesce
}

// publishPending is the coalescing timer's: it publishes what is pending
// (and the publication stops the timer).
func (h *Host) publishPending() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.flushToolsLocked()
	}
}

// flushToolsLocked publishes pending changes to the tool set, for a reader
// that is about to look at it.
func (h *Host) flushToolsLocked() { h.changeCatalogLocked(nil, catalogChange{op: catalogFlush}) }

// connectingLocked reports whether a server is on its first connect
// (placed, or its supervisor's first attempt): a burst is still under way.
// A server reconnecting does not count: a remote one may be down for
// hours, and the others' changes must not wait for it.
func (h *Host) connectingLocked() bool {
	for _, s := range h.servers {
		if s.phase == phaseStarting || s.phase == phaseConnecting {
			return true
		}
	}
	return false
}

// rebuildToolsLocked recomputes the tool set from every server and
// publishes it, with whatever changes were pending, and reports whether it
// changed; only then does the version grow and a tools event go out.
// Only changeCatalogLocked (and publishSoonLocked for it) calls it.
func (h *Host) rebuildToolsLocked() bool {
	h.toolsDirty = false
	if h.toolsTimer != nil {
		h.toolsTimer.Stop()
		h.toolsTimer = nil
	}
	type entry struct {
		s        *server
		t        *mcp.Tool
		deferred bool
		pin      *PinChange
	}
	var entries []entry
	var keys []toolKey
	digests := map[*mcp.Tool]string{}
	for _, s := range h.servers {
		var tools []*mcp.Tool
		deferred := false
		switch s.offerLocked() {
		case offerNone:
			// Its changes stand (they are in the file): kept, so that a
			// reconnect does not announce them again.
			continue
		case offerLive:
			tools = s.live
		case offerCached:
			tools, deferred = s.cached, true
		}
		// A tool the server changed since it was approved is marked, and
		// withheld on a pinned server (DESIGN.md F66).
		changes, withheld := h.pinCheckLocked(s, tools, digests)
		h.announcePinsLocked(s.cfg.Name, s.pinChanges, changes)
		s.pinChanges = changes
		for _, t := range tools {
			if !allowed(s.cfg.Tools, t.Name) || withheld[t] {
				continue
			}
			var pin *PinChange
			for i := range changes {
				if changes[i].Tool == t.Name {
					pin = &changes[i]
				}
			}
			entries = append(entries, entry{s, t, deferred, pin})
			keys = append(keys, toolKey{s.cfg.Name, t.Name})
		}
	}
	h.pins.prune(digests)
	names, collisions := assignNamesAs(KindTool, h.opts.ToolPrefix, h.opts.PassThroughNames, keys, h.names[KindTool].prev())
	for _, c := range collisions {
		h.log.Warn("tool name collision resolved", "detail", c)
	}
	// Built unsorted, then sorted by a permutation: a Tool is a large
	// struct, and the set is often the same as before, when nothing but
	// the comparison is needed.
	tools, src := make([]Tool, len(entries)), make([]*mcp.Tool, len(entries))
	index := make(map[string]toolKey, len(entries))
	for i, e := range entries {
		k := keys[i]
		name := names[k]
		index[name] = k
		tools[i] = Tool{
			Name:         name,
			Server:       k.server,
			Tool:         k.tool,
			Title:        e.t.Title,
			Description:  e.t.Description,
			InputSchema:  e.t.InputSchema,
			OutputSchema: e.t.OutputSchema,
			Annotations:  e.t.Annotations,
			AutoApprove:  glob.First(e.s.cfg.AutoApprove, k.tool) != "",
			AlwaysLoad:   e.s.cfg.AlwaysLoad,
			Deferred:     e.deferred,
		}
		if e.pin != nil {
			tools[i].Pin, tools[i].PinChanged = e.pin.Change, e.pin.What
		}
		src[i] = e.t
	}
	order := make([]int, len(tools))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(tools[a].Name, tools[b].Name) })
	if sameSorted(h.tools.Tools, h.toolSrc, tools, src, order) {
		return false
	}
	set, setSrc := make([]Tool, len(order)), make([]*mcp.Tool, len(order))
	for i, j := range order {
		set[i], setSrc[i] = tools[j], src[j]
	}
	h.tools = ToolSet{Version: h.tools.Version + 1, Tools: set}
	h.toolSrc = setSrc
	h.names[KindTool].putLocked(index, h.staysLocked)
	h.events.publish(Event{Type: EventTools, Version: h.tools.Version})
	return true
}

// sameSorted reports whether tools, taken in order, would look the same
// to a consumer as the published set, whose tools were made from
// publishedSrc; src says what each of tools was made from. A tool made
// from the same *mcp.Tool as before (its server listed nothing new) has
// the same text and schemas, so only what the host adds is compared; any
// other is compared whole (sameTool).
func sameSorted(published []Tool, publishedSrc []*mcp.Tool, tools []Tool, src []*mcp.Tool, order []int) bool {
	if len(published) != len(order) || len(publishedSrc) != len(published) {
		return false
	}
	for i, j := range order {
		p, t := &published[i], &tools[j]
		if src[j] == publishedSrc[i] {
			if p.Name != t.Name || p.Server != t.Server || p.Tool != t.Tool ||
				p.Deferred != t.Deferred || p.AutoApprove != t.AutoApprove || p.AlwaysLoad != t.AlwaysLoad ||
				p.Pin != t.Pin || !slices.Equal(p.PinChanged, t.PinChanged) {
				return false
			}
		} else if !sameTool(*p, *t) {
			return false
		}
	}
	return true
}

// sameTools reports whether two tool sets would look the same to a
// consumer, schemas included: a server that re-lists a tool with a new
// input schema must reach the agent.
func sameTools(a, b []Tool) bool { return slices.EqualFunc(a, b, sameTool) }

func sameTool(x, y Tool) bool {
	return x.Name == y.Name && x.Server == y.Server && x.Tool == y.Tool &&
		x.Deferred == y.Deferred && x.Description == y.Description && x.Title == y.Title &&
		x.AutoApprove == y.AutoApprove && x.AlwaysLoad == y.AlwaysLoad && x.Pin == y.Pin && slices.Equal(x.PinChanged, y.PinChanged) &&
		reflect.DeepEqual(x.InputSchema, y.InputSchema) &&
		reflect.DeepEqual(x.OutputSchema, y.OutputSchema) && reflect.DeepEqual(x.Annotations, y.Annotations)
}
