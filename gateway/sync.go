package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// sync registers on v's server what the host has that v shows, and
// removes what it no longer has. A registration is kept while what it
// stands for is unchanged, so a sync that changes nothing sends no
// list_changed. Whatever a server lists that go-sdk would refuse to serve
// (a tool whose input schema is not an object, a bad URI) is left out
// with a line in the log: an upstream cannot stop the gateway.
func (g *Gateway) sync(v *view) {
	v.mu.Lock()
	defer v.mu.Unlock()
	g.syncTools(v)
	g.syncPrompts(v)
	g.syncResources(v)
}

func (g *Gateway) syncTools(v *view) {
	want := map[string]host.Tool{}
	hv := g.h.View(v.filter)
	for _, t := range hv.Tools().Tools {
		if g.opts.ToolSearch && !t.AlwaysLoad {
			continue // found through search_tools
		}
		if g.opts.ToolSearch && (host.IsMetaTool(t.Name)) {
			// Under --no-prefix an upstream's own name could replace the
			// gateway's tool, and its leaving would remove it.
			g.log.Warn("tool left out: its name is the gateway's own", "server", t.Server, "tool", t.Tool)
			continue
		}
		want[t.Name] = t
	}
	if gone := unregister(v.tools, want); len(gone) > 0 {
		v.srv.RemoveTools(gone...)
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		t := want[name]
		fp := fingerprint(t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations, t.Server, t.Tool)
		if v.tools[name] == fp {
			continue
		}
		tool := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: inputSchema(t.InputSchema),
			OutputSchema: outputSchema(t.OutputSchema), Annotations: t.Annotations}
		noteParamHeaders(v, tool)
		if err := guarded(func() { v.srv.AddTool(tool, g.callTool(v, hv, t.Name, t.Server)) }); err != nil {
			tool.OutputSchema = nil // the one part left that go-sdk checks and may refuse
			if err := guarded(func() { v.srv.AddTool(tool, g.callTool(v, hv, t.Name, t.Server)) }); err != nil {
				g.log.Warn("tool left out", "server", t.Server, "tool", t.Tool, "error", err)
				continue
			}
		}
		v.tools[name] = fp
	}
}

// callTool is the handler of an exposed tool: the host's call, with the
// client's progress token and cancellation passed on, and the client
// noted as the one an upstream request during the call goes to.
func (g *Gateway) callTool(v *view, hv *host.View, name, server string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			ss := req.Session
			ctx = host.WithProgress(ctx, func(p host.Progress, msg string) {
				_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p.Progress, Total: p.Total, Message: msg})
			})
		}
		var args any
		if len(req.Params.Arguments) > 0 {
			args = req.Params.Arguments
		}
		if modernClient(req.Session) {
			return g.callRound(ctx, req, v, hv, name, server, args)
		}
		end, err := g.admitTool(ctx, req, v, hv, name, server)
		if err != nil {
			return nil, err
		}
		if res := g.limited(ctx, req.Extra, name); res != nil {
			end(CallEnd{Result: res, Err: ErrRateLimited})
			return res, nil
		}
		defer g.calls(server, caller{ss: req.Session})()
		res, err := hv.CallTool(ctx, name, args) // the view looks the name up again: it may have changed since sync
		end(CallEnd{Result: res, Err: err})
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return g.reply(callerOfExtra(req.Extra), res, err)
	}
}

// reply is the gateway's answer to a tool call, from the host's outcome.
// A call that reached its server and came back without a result is an
// error, as a client talking to that server would see it: the server's
// own JSON-RPC error, its code kept, or an internal error naming server
// and tool (the connection or the response was lost). A call that never
// reached its server (down, not authorized, a remote one unreachable:
// host.CallError.Sent) or that the host stopped waiting for (its request
// timeout) is a tool error saying why, for the model to read. The messages are the host's, secrets masked; an upstream error's
// data is not passed on. A result cut to size is kept for caller alone.
func (g *Gateway) reply(caller string, res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	var sent *host.CallError
	switch {
	case err == nil:
		return g.sized(caller, ownResult(res)), nil
	case errors.Is(err, host.ErrUnknownTool):
		return nil, err
	case errors.As(err, &sent) && sent.Sent && !errors.Is(err, context.DeadlineExceeded):
		code := int64(jsonrpc.CodeInternalError)
		if own := (*jsonrpc.Error)(nil); errors.As(err, &own) {
			code = own.Code
		}
		return nil, &jsonrpc.Error{Code: code, Message: err.Error()}
	case res != nil:
		return g.sized(caller, ownResult(res)), nil
	}
	return nil, err
}

// ownResult is an upstream's result as the gateway's: the same content,
// without the protocol's own _meta keys (io.modelcontextprotocol/…),
// which describe the upstream connection (its server info), not this one.
func ownResult(res *mcp.CallToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError}
	for k, v := range res.Meta {
		if !strings.HasPrefix(k, "io.modelcontextprotocol/") {
			if out.Meta == nil {
				out.Meta = mcp.Meta{}
			}
			out.Meta[k] = v
		}
	}
	return out
}

// calls notes that c has a call to server in flight, until the returned
// function is called.
func (g *Gateway) calls(server string, c caller) func() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.calling[server] == nil {
		g.calling[server] = map[caller]int{}
	}
	g.calling[server][c]++
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.calling[server][c]--; g.calling[server][c] <= 0 {
			delete(g.calling[server], c)
		}
	}
}

// syncPrompts registers the view's prompts under the host's names for
// them; a handler looks its name up again, as a tool call does.
func (g *Gateway) syncPrompts(v *view) {
	hv := g.h.View(v.filter)
	want := map[string]host.Prompt{}
	for _, p := range hv.Prompts() {
		want[p.Exposed] = p
	}
	if gone := unregister(v.prompts, want); len(gone) > 0 {
		v.srv.RemovePrompts(gone...)
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		p := want[name]
		fp := fingerprint(p.Server, p.Prompt)
		if v.prompts[name] == fp {
			continue
		}
		exposed := *p.Prompt
		exposed.Name = name
		if err := guarded(func() { v.srv.AddPrompt(&exposed, g.getPrompt(v, hv)) }); err != nil {
			g.log.Warn("prompt left out", "server", p.Server, "prompt", p.Name, "error", err)
			continue
		}
		v.prompts[name] = fp
	}
}

// getPrompt is the handler of every prompt of a view: the host's prompt
// its name stands for.
func (g *Gateway) getPrompt(v *view, hv *host.View) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		ref, ok := hv.Resolve(host.KindPrompt, req.Params.Name)
		if !ok {
			return nil, unknownPrompt(req.Params.Name)
		}
		end, err := g.admit(ctx, Call{Method: "prompts/get", Session: sessionID(req.Session), View: v.filter, User: userOf(req.Extra), Server: ref.Server, Name: ref.Name, Arguments: req.Params.Arguments})
		if err != nil {
			return nil, err
		}
		res, err := g.h.GetPrompt(ctx, ref.Server, ref.Name, req.Params.Arguments)
		end(CallEnd{Result: res, Err: err})
		return res, err
	}
}

func unknownPrompt(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
}

// syncResources registers the resources and templates the view exposes:
// each URI its owner's, as the host decides (host.View.Resources).
func (g *Gateway) syncResources(v *view) {
	hv := g.h.View(v.filter)
	resources, templates := hv.Resources()
	wantRes := map[string]host.Resource{}
	for _, r := range resources {
		if isOwnURI(r.URI) {
			g.log.Warn("resource left out: its URI is the gateway's own", "server", r.Server, "uri", r.URI)
			continue
		}
		wantRes[r.URI] = r
	}
	wantTpl := map[string]host.ResourceTemplate{}
	for _, t := range templates {
		if isOwnURI(t.URITemplate) {
			g.log.Warn("resource template left out: its URIs are the gateway's own", "server", t.Server, "template", t.URITemplate)
			continue
		}
		wantTpl[t.URITemplate] = t
	}
	if gone := unregister(v.resources, wantRes); len(gone) > 0 {
		v.srv.RemoveResources(gone...)
	}
	if gone := unregister(v.templates, wantTpl); len(gone) > 0 {
		v.srv.RemoveResourceTemplates(gone...)
	}
	for _, uri := range slices.Sorted(maps.Keys(wantRes)) {
		r := wantRes[uri]
		fp := fingerprint(r.Server, r.Resource)
		if v.resources[uri] == fp {
			continue
		}
		res := *r.Resource
		if err := guarded(func() { v.srv.AddResource(&res, g.read(v, hv)) }); err != nil {
			g.log.Warn("resource left out", "server", r.Server, "uri", uri, "error", err)
			continue
		}
		v.resources[uri] = fp
	}
	for _, tpl := range slices.Sorted(maps.Keys(wantTpl)) {
		t := wantTpl[tpl]
		fp := fingerprint(t.Server, t.ResourceTemplate)
		if v.templates[tpl] == fp {
			continue
		}
		rt := *t.ResourceTemplate
		if err := guarded(func() { v.srv.AddResourceTemplate(&rt, g.read(v, hv)) }); err != nil {
			g.log.Warn("resource template left out", "server", t.Server, "template", tpl, "error", err)
			continue
		}
		v.templates[tpl] = fp
	}
}

// read is the handler of every resource and template registered: a read
// of the URI asked for, from the server the host routes it to
// (host.View.ResourceServer), whichever template go-sdk matched first (it
// tries them in sorted order, so file:///{+a} would take what another
// server's file:///{+path} is for). The gateway's own URIs are its own.
func (g *Gateway) read(v *view, hv *host.View) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		if isOwnURI(uri) {
			return g.readKept(ctx, req)
		}
		server, ok := hv.ResourceServer(uri)
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		end, err := g.admit(ctx, Call{Method: "resources/read", Session: sessionID(req.Session), View: v.filter, User: userOf(req.Extra), Server: server, Name: uri})
		if err != nil {
			return nil, err
		}
		res, err := g.h.ReadResource(ctx, server, uri)
		end(CallEnd{Result: res, Err: err})
		return res, err
	}
}

// isOwnURI reports whether uri is one of the gateway's own, which no
// server's resource or template may take.
func isOwnURI(uri string) bool {
	return len(uri) >= len(ownScheme) && strings.EqualFold(uri[:len(ownScheme)], ownScheme)
}

// ownScheme starts the gateway's own URIs (kept results).
const ownScheme = "switchboard:"

// owner is the server of a resource URI in v.
func (g *Gateway) owner(v *view, uri string) (string, bool) {
	if isOwnURI(uri) {
		return "", false
	}
	return g.h.View(v.filter).ResourceServer(uri)
}

// complete routes completion/complete by its reference: a prompt's to the
// prompt's server (under its own name), a resource template's to its.
func (g *Gateway) complete(v *view) func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		ref := req.Params.Ref
		if ref == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion without a reference"}
		}
		params := *req.Params
		switch ref.Type {
		case "ref/prompt":
			owner, known := g.h.View(v.filter).Resolve(host.KindPrompt, ref.Name)
			if !known {
				return nil, unknownPrompt(ref.Name)
			}
			r := *ref
			r.Name = owner.Name
			params.Ref = &r
			return g.h.Complete(ctx, owner.Server, &params)
		case "ref/resource":
			if server, ok := g.templateOwner(v, ref.URI); ok {
				return g.h.Complete(ctx, server, &params)
			}
			if server, ok := g.owner(v, ref.URI); ok {
				return g.h.Complete(ctx, server, &params)
			}
		}
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
}

// templateOwner is the server in v whose resource template is tpl, as
// written: a ref/resource names the template itself ("payroll://{who}"),
// which no template's expansion matches as a URI.
func (g *Gateway) templateOwner(v *view, tpl string) (string, bool) {
	_, templates := g.h.View(v.filter).Resources()
	for _, t := range templates {
		if t.URITemplate == tpl {
			return t.Server, true
		}
	}
	return "", false
}

// unregister drops from registered what want no longer has, and returns
// those names, for the server to remove.
func unregister[V any](registered map[string]string, want map[string]V) []string {
	var gone []string
	for name := range registered {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
			delete(registered, name)
		}
	}
	return gone
}

// guarded runs a go-sdk registration, which panics on what it refuses,
// and returns the refusal as an error.
func guarded(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	fn()
	return nil
}

// fingerprint is what a registration stands for, to tell a changed one.
func fingerprint(parts ...any) string {
	b, _ := json.Marshal(parts)
	return string(b)
}
