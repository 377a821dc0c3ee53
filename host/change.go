package host

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host/internal/toolcache"
)

// catalogOp is what a change of the catalog is (changeCatalogLocked).
type catalogOp int

const (
	// catalogPhase: the server changed phase (transitionLocked), and with
	// it what it offers: a new connection brings its tools (the rest is
	// listed anew), a lost one takes its live tools along.
	catalogPhase catalogOp = iota
	// catalogTools, catalogResources, catalogPrompts: a list of the
	// server's, listed (after connecting, or after list_changed).
	catalogTools
	catalogResources
	catalogPrompts
	// catalogCarried: a restarting server's new entry offers the tools
	// (and the rest) the old one had, deferred, until the cache or a
	// connection has some.
	catalogCarried
	// catalogListed: a connection's first listing of the rest of the
	// catalog is over (listExtras): what it listed replaces the cache's,
	// and stands in for it after a drop.
	catalogListed
	// catalogPublish: servers were placed, removed or changed in place
	// (Start, Reload, Disconnect): the whole set is published, once.
	catalogPublish
	// catalogFlush: a reader or the coalescing timer publishes what is
	// pending of the tool set; catalogFlushNames, a reader, of the other
	// names.
	catalogFlush
	catalogFlushNames
	// catalogClosed: Close empties the catalog.
	catalogClosed
	// catalogPins: the pin file changed (an approval): what is withheld
	// is looked at again.
	catalogPins
)

// catalogChange is one change of the catalog: its op, and what the op
// needs of the rest.
type catalogChange struct {
	op catalogOp
	// sess is the session a list came from: a list of a session that is
	// no longer the server's (dropped, replaced, removed) changes nothing.
	sess *mcp.ClientSession
	// offered is what the server offered before its phase changed.
	offered offer
	// extras, for catalogCarried, are the old entry's other lists.
	extras *toolcache.Extras
	catalog
}

// changeCatalogLocked is the one writer of the catalog, as
// transitionLocked is of phases (DESIGN.md, "Start-up"): every server's
// lists (live and cached tools, resources, templates, prompts) and what
// is published of them (the tool set, every exposed name, what is
// pending) change here, or in the helpers only it calls
// (rebuildToolsLocked, publishSoonLocked, rebuildNamesLocked, putLocked). newServer fills a new entry's
// cached tools before anyone sees it. TestCatalogHasOneWriter holds the
// rule. It reports whether the change reached what consumers see: a new
// version of the tool set, or a server's new resources or prompts.
func (h *Host) changeCatalogLocked(s *server, ch catalogChange) bool {
	switch ch.op {
	case catalogPhase:
		if s.phase == phaseConnected {
			s.live, s.cached = ch.tools, ch.tools
			// The rest is the new connection's, listed once it is
			// published (listExtras), not what the last one listed.
			s.resources, s.templates, s.prompts = nil, nil, nil
		} else {
			s.live = nil
		}
		h.namesDirty = true
		if s.phase.removed() {
			return false // whoever removed it publishes the set without it
		}
		if s.offerLocked() != ch.offered {
			h.toolsDirty = true
		}
		// Published now if this change leaves the host quiet (and with it
		// whatever the burst before it left pending), else soon.
		return h.publishSoonLocked()
	case catalogTools:
		if s.session != ch.sess {
			return false
		}
		tools := ch.tools
		if tools == nil {
			tools = []*mcp.Tool{}
		}
		s.live, s.cached = tools, tools
		return h.rebuildToolsLocked()
	case catalogResources:
		if s.session != ch.sess {
			return false
		}
		s.resources, s.templates = ch.resources, ch.templates
		if s.cachedExtras != nil && isClosed(s.listed) { // a list_changed's
			x := *s.cachedExtras
			x.Resources, x.Templates = ch.resources, ch.templates
			s.cachedExtras = &x
		}
		h.namesDirty = true
		return true
	case catalogPrompts:
		if s.session != ch.sess {
			return false
		}
		s.prompts = ch.prompts
		if s.cachedExtras != nil && isClosed(s.listed) {
			x := *s.cachedExtras
			x.Prompts = ch.prompts
			s.cachedExtras = &x
		}
		h.namesDirty = true
		return true
	case catalogCarried:
		if s.cached == nil && s.admin == "" {
			s.cached = ch.tools
		}
		if s.cachedExtras == nil && s.admin == "" {
			s.cachedExtras = ch.extras
		}
		return false
	case catalogListed:
		if s.session != ch.sess {
			return false
		}
		had := s.cachedExtras != nil
		s.cachedExtras = &toolcache.Extras{Resources: s.resources, Templates: s.templates, Prompts: s.prompts}
		h.namesDirty = true
		return had // what was shown changes from the cache's to the server's
	case catalogPublish:
		h.namesDirty = true
		return h.rebuildToolsLocked()
	case catalogFlush:
		return h.toolsDirty && h.rebuildToolsLocked()
	case catalogFlushNames:
		if h.namesDirty {
			h.rebuildNamesLocked()
		}
		return false
	case catalogPins:
		h.toolsDirty = true
		return h.rebuildToolsLocked()
	case catalogClosed:
		h.names, h.namesDirty = [kinds]nameBook{}, false
		h.tools, h.toolSrc, h.toolsDirty = ToolSet{Version: h.tools.Version + 1}, nil, false
		if h.toolsTimer != nil {
			h.toolsTimer.Stop()
			h.toolsTimer = nil
		}
		return true
	}
	return false
}
