package host

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host/internal/toolcache"
)

// Resource is a resource offered by a server.
type Resource struct {
	Server string `json:"server"`
	// Deferred, as a tool's: from the cache, its server not connected (or
	// not listed) yet; a read waits for it.
	Deferred bool `json:"deferred,omitempty"`
	*mcp.Resource
}

// ResourceTemplate is a resource template offered by a server.
type ResourceTemplate struct {
	Server   string `json:"server"`
	Deferred bool   `json:"deferred,omitempty"` // as Resource's
	*mcp.ResourceTemplate
}

// Prompt is a prompt offered by a server.
type Prompt struct {
	Server string `json:"server"`
	// Exposed is its name to the host's clients (a gateway's), the
	// host's as a tool's is (DESIGN.md F20); Name is the server's own.
	Exposed  string `json:"-"`
	Deferred bool   `json:"deferred,omitempty"` // as Resource's: a get waits for the server
	*mcp.Prompt
}

// extrasLocked are the resources, templates and prompts s shows, and
// whether they are the cache's (DESIGN.md F15): a connection's once it
// has listed them (or when nothing is cached); until then, while the
// server is on its way or connected but not listed yet, what the cache or
// the last connection listed, as its cached tools stand in for its tools.
func (s *server) extrasLocked() (x toolcache.Extras, deferred bool) {
	live := s.session != nil
	switch {
	case live && (isClosed(s.listed) || s.cachedExtras == nil):
		return toolcache.Extras{Resources: s.resources, Templates: s.templates, Prompts: s.prompts}, false
	case s.cachedExtras != nil && (live || s.offerLocked() == offerCached):
		return *s.cachedExtras, true
	}
	return toolcache.Extras{}, false
}

// Resources lists the resources and templates of every server, sorted by
// server then URI. A server's are listed right after it connects,
// announced by EventResources; WaitSettled waits for them. Until then a
// server on its way shows what it listed last (the tool cache keeps it),
// marked Deferred.
// Two servers may list one URI: it names the resource of one of them
// (View.Resources, Resolve), and both are listed here.
func (h *Host) Resources() ([]Resource, []ResourceTemplate) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.resourcesLocked(), h.templatesLocked()
}

func (h *Host) resourcesLocked() []Resource {
	var rs []Resource
	for _, name := range h.sortedNamesLocked() {
		x, deferred := h.servers[name].extrasLocked()
		for _, r := range x.Resources {
			rs = append(rs, Resource{Server: name, Deferred: deferred, Resource: r})
		}
	}
	return rs
}

func (h *Host) templatesLocked() []ResourceTemplate {
	var ts []ResourceTemplate
	for _, name := range h.sortedNamesLocked() {
		x, deferred := h.servers[name].extrasLocked()
		for _, t := range x.Templates {
			ts = append(ts, ResourceTemplate{Server: name, Deferred: deferred, ResourceTemplate: t})
		}
	}
	return ts
}

// Prompts lists the prompts of every server, sorted by server, as
// Resources does (deferred ones included), each with its exposed name.
func (h *Host) Prompts() []Prompt {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.flushNamesLocked()
	names := h.names[KindPrompt].byKey
	var ps []Prompt
	for _, name := range h.sortedNamesLocked() {
		x, deferred := h.servers[name].extrasLocked()
		for _, p := range x.Prompts {
			ps = append(ps, Prompt{Server: name, Exposed: names[toolKey{name, p.Name}], Deferred: deferred, Prompt: p})
		}
	}
	return ps
}

// ReadResource reads a resource from the named server.
func (h *Host) ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	sess, timeout, err := h.liveSession(ctx, server, true)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	return res, h.redactor.Error(err)
}

// GetPrompt gets a prompt from the named server.
func (h *Host) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	sess, timeout, err := h.liveSession(ctx, server, true)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	return res, h.redactor.Error(err)
}

// Complete asks the named server to complete a prompt's or a resource
// template's argument (completion/complete).
func (h *Host) Complete(ctx context.Context, server string, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	sess, timeout, err := h.liveSession(ctx, server, true)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := sess.Complete(ctx, params)
	return res, h.redactor.Error(err)
}

// liveSession is the named server's session, waiting, as a call of a
// deferred tool does (sessionFor), while the server is on its way: a
// prompt or a resource shown from the cache is got or read once its
// server connects, bounded by ctx and the server's startup timeout. A
// lazy server is started. With wait false, a server not connected is an
// error at once.
func (h *Host) liveSession(ctx context.Context, name string, wait bool) (*mcp.ClientSession, time.Duration, error) {
	var deadline <-chan time.Time
	for {
		h.mu.Lock()
		s, ok := h.servers[name]
		if !ok {
			h.mu.Unlock()
			return nil, 0, fmt.Errorf("unknown server %q", name)
		}
		if wait && s.cfg.Lazy && s.phase == phaseIdle {
			h.startLocked(s)
		}
		sess, settled, timeout, startup := s.session, s.settled, s.cfg.EffectiveTimeout(), s.cfg.EffectiveStartupTimeout()
		waits := wait && s.phase.waits() && !h.closed
		state := s.stateLocked()
		h.mu.Unlock()
		if sess != nil {
			return sess, timeout, nil
		}
		if !waits {
			return nil, 0, fmt.Errorf("server %q is %s", name, state)
		}
		if deadline == nil {
			timer := time.NewTimer(startup)
			defer timer.Stop()
			deadline = timer.C
		}
		if h.hooks.callWaits != nil {
			h.hooks.callWaits(name)
		}
		select {
		case <-settled:
		case <-deadline:
			return nil, 0, fmt.Errorf("server %q not connected within %s", name, startup)
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		case <-h.life.Done():
			return nil, 0, ErrClosed
		}
	}
}

func (h *Host) sortedNamesLocked() []string {
	names := append([]string(nil), h.order...)
	sort.Strings(names)
	return names
}

// SubscribeResource asks a server to report changes to a resource; each
// change arrives as an EventResourceUpdated. The subscription is renewed
// when the server reconnects. Subscriptions are counted: the server is
// asked once, and told to stop when the last subscriber unsubscribes, so
// one consumer (a gateway's client) cannot end another's.
func (h *Host) SubscribeResource(ctx context.Context, server, uri string) error {
	h.mu.Lock()
	if s, ok := h.servers[server]; ok && s.subscriptions[uri] > 0 {
		s.subscriptions[uri]++
		h.mu.Unlock()
		return nil
	}
	h.mu.Unlock()
	sess, timeout, err := h.liveSession(ctx, server, true)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := sess.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		return h.redactor.Error(fmt.Errorf("server %q: subscribe %s: %w", server, uri, err))
	}
	h.mu.Lock()
	if s, ok := h.servers[server]; ok {
		s.subscriptions[uri]++
	}
	h.mu.Unlock()
	return nil
}

// UnsubscribeResource ends one subscription made with SubscribeResource;
// the server is told only when it was the last. One more than were made
// is nothing.
func (h *Host) UnsubscribeResource(ctx context.Context, server, uri string) error {
	h.mu.Lock()
	s, ok := h.servers[server]
	if !ok || s.subscriptions[uri] == 0 {
		h.mu.Unlock()
		return nil
	}
	if s.subscriptions[uri]--; s.subscriptions[uri] > 0 {
		h.mu.Unlock()
		return nil
	}
	delete(s.subscriptions, uri)
	h.mu.Unlock()
	sess, timeout, err := h.liveSession(ctx, server, false)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return h.redactor.Error(sess.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}))
}
