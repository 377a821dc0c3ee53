package host

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource is a resource offered by a connected server.
type Resource struct {
	Server string `json:"server"`
	*mcp.Resource
}

// ResourceTemplate is a resource template offered by a connected server.
type ResourceTemplate struct {
	Server string `json:"server"`
	*mcp.ResourceTemplate
}

// Prompt is a prompt offered by a connected server.
type Prompt struct {
	Server string `json:"server"`
	// Exposed is its name to the host's clients (a gateway's), the
	// host's as a tool's is (DESIGN.md F20); Name is the server's own.
	Exposed string `json:"-"`
	*mcp.Prompt
}

// Resources lists the resources and templates of every connected server,
// sorted by server then URI. A server's are listed right after it
// connects, announced by EventResources; WaitSettled waits for them.
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
		if s := h.servers[name]; s.session != nil {
			for _, r := range s.resources {
				rs = append(rs, Resource{name, r})
			}
		}
	}
	return rs
}

func (h *Host) templatesLocked() []ResourceTemplate {
	var ts []ResourceTemplate
	for _, name := range h.sortedNamesLocked() {
		if s := h.servers[name]; s.session != nil {
			for _, t := range s.templates {
				ts = append(ts, ResourceTemplate{name, t})
			}
		}
	}
	return ts
}

// Prompts lists the prompts of every connected server, sorted by server,
// once listed (EventPrompts), as Resources does, each with its exposed
// name.
func (h *Host) Prompts() []Prompt {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.flushNamesLocked()
	names := h.names[KindPrompt].byKey
	var ps []Prompt
	for _, name := range h.sortedNamesLocked() {
		s := h.servers[name]
		if s.session == nil {
			continue
		}
		for _, p := range s.prompts {
			ps = append(ps, Prompt{Server: name, Exposed: names[toolKey{name, p.Name}], Prompt: p})
		}
	}
	return ps
}

// ReadResource reads a resource from the named server.
func (h *Host) ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	sess, timeout, err := h.liveSession(server)
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
	sess, timeout, err := h.liveSession(server)
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
	sess, timeout, err := h.liveSession(server)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := sess.Complete(ctx, params)
	return res, h.redactor.Error(err)
}

func (h *Host) liveSession(name string) (*mcp.ClientSession, time.Duration, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.servers[name]
	if !ok {
		return nil, 0, fmt.Errorf("unknown server %q", name)
	}
	if s.session == nil {
		return nil, 0, fmt.Errorf("server %q is %s", name, s.stateLocked())
	}
	return s.session, s.cfg.EffectiveTimeout(), nil
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
	sess, timeout, err := h.liveSession(server)
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
	sess, timeout, err := h.liveSession(server)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return h.redactor.Error(sess.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}))
}
