package host

import (
	"context"
	"errors"
	"slices"

	"github.com/switchboard-mcp/switchboard/config"
)

// ServersFor says which of configs a one-shot command must start to
// reach what name names (a tool or a prompt, under any name Find takes),
// from the configs and the tool cache alone, starting nothing: the server
// of the one tool a cached list has under that name; the server a name
// such as server/name or mcp__server__name spells, cached or not; the
// servers of every tool an ambiguous name names. Nil means it cannot tell
// (a name no cached list has, or no server spelled in it): start them
// all, so that "did you mean" sees every name. opts are those the host
// will start with (the cache, the tool prefix, trust); its logger and
// observer are not used.
func ServersFor(opts *Options, configs []config.ServerConfig, kind Kind, name string) []string {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Logger, o.Observer, o.Subreaper = nil, nil, false
	// Lazy servers offer their cached tools and wait for a call to start,
	// which this host never makes: Find sees the cache, and nothing runs.
	lazy := slices.Clone(configs)
	for i := range lazy {
		lazy[i].Lazy = true
	}
	h := New(&o)
	defer h.Close()
	if err := h.Start(context.Background(), lazy); err != nil {
		return nil
	}
	n, err := h.Find(kind, name)
	var nameErr *NameError
	switch {
	case err == nil:
		return []string{n.Server}
	case errors.As(err, &nameErr) && nameErr.Ambiguous:
		var servers []string
		for _, n := range nameErr.Near {
			if !slices.Contains(servers, n.Server) {
				servers = append(servers, n.Server)
			}
		}
		return servers
	}
	// A name that spells a server: that server, unless it is a tool's and
	// the server's cached list lacks it (the name is a mistake, and "did
	// you mean" should look among every server's names).
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.View(ViewFilter{}).serverOfLocked(kind, name)
	if s == nil || (kind == KindTool && s.cached != nil) {
		return nil
	}
	return []string{s.cfg.Name}
}
