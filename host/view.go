package host

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

// ViewFilter selects what a view shows. The zero value shows everything.
type ViewFilter struct {
	// Servers limits the view to these servers; empty means all.
	Servers []string
	// Tools keeps tools by their exposed names (mcp__github__*,
	// *__delete_*), after naming, unlike a server's config.ToolFilter,
	// which matches its own names: a view spans servers, and only exposed
	// names tell their tools apart. Deny wins; zero keeps every tool.
	Tools config.ToolFilter
	// AnyOf, when set, narrows the view to what at least one of these
	// filters shows too: a caller's several profiles, whose union no
	// single Servers and Tools can say (DESIGN.md F65). Empty narrows
	// nothing.
	AnyOf []ViewFilter
}

// ShowsServer reports whether f shows anything of server.
func (f ViewFilter) ShowsServer(server string) bool {
	if len(f.Servers) > 0 && !slices.Contains(f.Servers, server) {
		return false
	}
	if len(f.AnyOf) == 0 {
		return true
	}
	return slices.ContainsFunc(f.AnyOf, func(o ViewFilter) bool { return o.ShowsServer(server) })
}

// shows reports whether f shows server's thing of kind under its exposed
// name: the server lists, and for a tool the tool filters.
func (f ViewFilter) shows(kind Kind, server, exposed string) bool {
	if len(f.Servers) > 0 && !slices.Contains(f.Servers, server) {
		return false
	}
	if kind == KindTool && !allowed(f.Tools, exposed) {
		return false
	}
	if len(f.AnyOf) == 0 {
		return true
	}
	return slices.ContainsFunc(f.AnyOf, func(o ViewFilter) bool { return o.shows(kind, server, exposed) })
}

// View is a filtered window on a host's tools for a subagent or a gateway
// client (DESIGN.md F28). It shares the host's connections: each call looks the
// tool up again, so a reconnect underneath is invisible, and a view holds
// nothing that needs closing.
type View struct {
	h    *Host
	f    ViewFilter
	opts ViewOptions

	mu     sync.Mutex
	seen   bool    // the view has read the host's tools at least once
	hostAt uint64  // the host's version it last read
	shown  ToolSet // what it showed then, with its own version
}

// ViewOptions are a view's own name and handlers. The zero value names
// nothing and leaves every request to the host's handlers.
type ViewOptions struct {
	// Name names the view to the handlers (CallerOf(ctx).View.Name()), a
	// subagent's, say. Empty means unnamed.
	Name string
	// Sampling answers the sampling requests that calls made through the
	// view lead to, in place of Options.Sampling. Nil leaves them to it.
	// Sampling is offered to servers only when Options.Sampling is set.
	Sampling func(ctx context.Context, server string, req *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	// Elicitation is Sampling's counterpart for elicitation/create, in
	// place of Options.Elicitation, which must be set for it to be offered.
	Elicitation func(ctx context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error)
}

// View returns a view of the host's tools through filter.
func (h *Host) View(filter ViewFilter) *View {
	return h.ViewWith(filter, nil)
}

// ViewWith returns a view through filter with a name and handlers of its
// own; nil opts is View's.
func (h *Host) ViewWith(filter ViewFilter, opts *ViewOptions) *View {
	v := &View{h: h, f: filter}
	if opts != nil {
		v.opts = *opts
	}
	return v
}

// Name is the view's name (ViewOptions.Name).
func (v *View) Name() string { return v.opts.Name }

func (v *View) shows(t Tool) bool { return v.showsName(KindTool, t.Server, t.Name) }

// showsName reports whether the view shows server's thing of kind under
// its exposed name: the server filter, and for a tool the tool filter.
func (v *View) showsName(kind Kind, server, exposed string) bool {
	return v.f.shows(kind, server, exposed)
}

// Tools returns the view's tools. Version moves only when what the view
// shows changes: it is the host's version at which the view's tools last
// changed (a change to a server or tool it hides leaves it alone), so a
// consumer holding the view compares versions as it would the host's. A
// view made anew starts at the host's current version.
func (v *View) Tools() ToolSet {
	v.mu.Lock() // around the read too, so a later read is never older
	defer v.mu.Unlock()
	set := v.h.Tools()
	if v.seen && set.Version == v.hostAt {
		return v.shown
	}
	var tools []Tool
	for _, t := range set.Tools {
		if v.shows(t) {
			tools = append(tools, t)
		}
	}
	if !v.seen || !sameTools(tools, v.shown.Tools) {
		v.shown = ToolSet{Version: set.Version, Tools: tools}
	}
	v.seen, v.hostAt = true, set.Version
	return v.shown
}

// Tool is the view's tool of that exposed name (Host.Tool).
func (v *View) Tool(name string) (Tool, bool) {
	t, ok := v.h.Tool(name)
	return t, ok && v.shows(t)
}

// Prompts are the prompts of the servers the view shows (Host.Prompts).
func (v *View) Prompts() []Prompt {
	var out []Prompt
	for _, p := range v.h.Prompts() {
		if v.showsName(KindPrompt, p.Server, p.Exposed) {
			out = append(out, p)
		}
	}
	return out
}

// Resources are the resources and templates the view exposes: of the
// servers it shows, each URI (or URI template) once, its owner's
// (Resolve). Host.Resources lists every server's.
func (v *View) Resources() ([]Resource, []ResourceTemplate) {
	h := v.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.flushNamesLocked()
	var rs []Resource
	var ts []ResourceTemplate
	for _, r := range h.resourcesLocked() {
		if k, ok := h.names[KindResource].index[r.URI]; ok && k.server == r.Server && v.showsName(KindResource, r.Server, r.URI) {
			rs = append(rs, r)
		}
	}
	for _, t := range h.templatesLocked() {
		if k, ok := h.names[KindTemplate].index[t.URITemplate]; ok && k.server == t.Server && v.showsName(KindTemplate, t.Server, t.URITemplate) {
			ts = append(ts, t)
		}
	}
	return rs, ts
}

// CallTool calls a tool the view shows; any other name is unknown here.
func (v *View) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	if _, ok := v.Resolve(KindTool, name); ok {
		return v.h.CallTool(context.WithValue(ctx, viewKey{}, v), name, args)
	}
	v.h.mu.Lock()
	closed, started := v.h.closed, v.h.started
	v.h.mu.Unlock()
	err := fmt.Errorf("%w %q", ErrUnknownTool, name)
	switch {
	case closed:
		err = ErrClosed
	case !started:
		err = ErrNotStarted
	}
	return errorResult(err), err
}

// GetPrompt gets a prompt the view shows, by any name Find takes for it
// (its exposed name first); a prompt the view hides is a *NameError, as
// an unknown one is. Host.GetPrompt takes a server and its own name.
func (v *View) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	n, err := v.Find(KindPrompt, name)
	if err != nil {
		return nil, err
	}
	return v.h.GetPrompt(ctx, n.Server, n.Name, args)
}

// ReadResource reads uri from the server the view routes it to
// (ResourceServer); a URI no server the view shows lists or matches is a
// *NameError. Host.ReadResource takes the server.
func (v *View) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	server, ok := v.ResourceServer(uri)
	if !ok {
		return nil, &NameError{Kind: KindResource, Name: uri}
	}
	return v.h.ReadResource(ctx, server, uri)
}

// SubscribeResource subscribes to uri at the server the view routes it
// to (Host.SubscribeResource); a URI the view does not show is a
// *NameError.
func (v *View) SubscribeResource(ctx context.Context, uri string) error {
	server, ok := v.ResourceServer(uri)
	if !ok {
		return &NameError{Kind: KindResource, Name: uri}
	}
	return v.h.SubscribeResource(ctx, server, uri)
}

// UnsubscribeResource ends one subscription made with SubscribeResource
// (Host.UnsubscribeResource); a URI the view does not show is nothing.
func (v *View) UnsubscribeResource(ctx context.Context, uri string) error {
	server, ok := v.ResourceServer(uri)
	if !ok {
		return nil
	}
	return v.h.UnsubscribeResource(ctx, server, uri)
}
