package host

import (
	"context"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/internal/toolcache"
)

// Reload makes the host run configs (DESIGN.md F35). It compares them with the
// current configs by name: added servers start, removed ones stop, changed
// ones restart, and unchanged ones keep their session, their process and
// their in-flight calls. A change of metadata only (auto-approve, request
// timeout, tool filters, a working directory the server does not depend
// on: config.DependsOnWorkDir) applies in place. Calls to a restarting server
// wait for it as they would during a reconnect.
//
// The tool set changes once, with one change event, when the new state is
// in place; servers that connect afterwards change it as they always do.
// Like Start, Reload returns at the startup gate, and at Options.StartWait.
func (h *Host) Reload(ctx context.Context, configs []config.ServerConfig) (config.Diff, error) {
	// One reload at a time: the second compares with what the first made.
	if err := namesGiven(configs); err != nil {
		return config.Diff{}, err
	}
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	h.learn(configs)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return config.Diff{}, ErrClosed
	}
	h.started = true
	old := make([]config.ServerConfig, 0, len(h.order))
	for _, name := range h.order {
		old = append(old, h.servers[name].cfg)
	}
	diff := config.DiffConfigs(old, configs)
	if diff.Empty() && len(diff.Moved) == 0 {
		h.mu.Unlock()
		return diff, nil
	}

	// Step one: stop what goes away or changes (announced disconnected at
	// once), and put the new entries in place, starting, so calls to them
	// wait instead of failing.
	var stopping []<-chan struct{}
	stop := func(name string) {
		stopping = append(stopping, h.removeLocked(h.servers[name], phaseStopped))
	}
	for _, name := range diff.Removed {
		stop(name)
		delete(h.servers, name)
	}
	byName := make(map[string]config.ServerConfig, len(configs))
	for _, c := range configs {
		byName[c.Name] = c
	}
	var fresh []*server
	for _, name := range append(append([]string(nil), diff.Changed...), diff.Added...) {
		var last []*mcp.Tool
		var lastExtras *toolcache.Extras
		if prev, ok := h.servers[name]; ok {
			last, lastExtras = prev.cached, prev.cachedExtras
			stop(name)
		}
		s := h.newServer(byName[name])
		// A restarting server keeps offering the tools it had, deferred,
		// as a reconnecting one does: its names stay in the tool set and
		// calls to them wait instead of failing as unknown. The cache has
		// no entry for the new config yet.
		h.changeCatalogLocked(s, catalogChange{op: catalogCarried, extras: lastExtras, catalog: catalog{tools: last}})
		if s.phase == phaseStarting {
			fresh = append(fresh, s)
		} else {
			h.announceAdminLocked(s)
		}
		h.servers[name] = s
	}
	for _, name := range slices.Concat(diff.Updated, diff.Moved) {
		// Only the metadata fields: the supervisor reads the connection
		// fields without the lock, and those did not change. A moved
		// entry's new line is its Source.
		s, c := h.servers[name], byName[name]
		s.cfg.AutoApprove, s.cfg.Timeout, s.cfg.Source, s.cfg.AlwaysLoad = slices.Clone(c.AutoApprove), c.Timeout, c.Source, c.AlwaysLoad
		s.cfg.Tools = config.ToolFilter{Allow: slices.Clone(c.Tools.Allow), Deny: slices.Clone(c.Tools.Deny)}
		s.cfg.PinTools = c.PinTools
		// A trust decision moved where it would start, and it does not
		// care (config.DependsOnWorkDir): its next start runs there.
		s.workDir = c.WorkDir
		if s.admin == StateFailed && c.Err != nil {
			// An invalid entry that moved: its error names the new line.
			s.cfg.Err, s.err = c.Err, c.Err
		}
	}
	h.order = h.order[:0]
	for _, c := range configs {
		h.order = append(h.order, c.Name)
	}
	h.mu.Unlock()

	// The old processes end before their replacements start: a server may
	// hold a port or a lock file.
	for _, done := range stopping {
		<-done
	}

	// Step two: start the new entries and publish the new tool set. The
	// gate counts from here: the old processes' grace is not the new
	// servers' time to connect.
	began := time.Now()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return diff, ErrClosed
	}
	var pending []waiting
	for _, s := range fresh {
		if s.phase != phaseStarting {
			continue // disconnected meanwhile
		}
		h.startLocked(s)
		pending = append(pending, waiting{settled: s.settled, cached: s.cached != nil})
	}
	h.changeCatalogLocked(nil, catalogChange{op: catalogPublish})
	h.mu.Unlock()
	return diff, h.gate(ctx, pending, began)
}
