package host

import (
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rootsState is the roots the host offers (Options.Roots, then SetRoots)
// and the go-sdk client of each server, which answers roots/list from
// them in either era: a 2025-11-25 request (after Options.ListRoots) and
// a 2026-07-28 input request alike. It has a lock of its own.
type rootsState struct {
	mu      sync.Mutex
	list    []*mcp.Root
	clients map[string]*mcp.Client // by server: the newest, whose session is live
}

// adopt gives c, server's new client, the current roots. It has no
// session yet, so no server is told.
func (r *rootsState) adopt(server string, c *mcp.Client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.clients == nil {
		r.clients = map[string]*mcp.Client{}
	}
	r.clients[server] = c
	if len(r.list) > 0 {
		c.AddRoots(r.list...)
	}
}

// SetRoots replaces the roots offered to servers (Options.Roots) and
// tells every connected server that offers to listen
// (notifications/roots/list_changed). Servers of both eras see the new
// roots from their next roots/list; Options.ListRoots still answers
// 2025-11-25 requests first.
func (h *Host) SetRoots(roots []*mcp.Root) {
	r := &h.roots
	r.mu.Lock()
	defer r.mu.Unlock()
	var gone []string
	keep := map[string]bool{}
	for _, root := range roots {
		keep[root.URI] = true
	}
	for _, root := range r.list {
		if !keep[root.URI] {
			gone = append(gone, root.URI)
		}
	}
	r.list = slices.Clone(roots)
	for _, c := range r.clients {
		// go-sdk has no replace: up to two notifications, the new list
		// whole after the second.
		c.RemoveRoots(gone...)
		c.AddRoots(roots...)
	}
}
