package host

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Caller is the tool call that led a server to ask the host something
// (sampling, elicitation): the view it was made through, if any, the
// server and the tool's exposed name (DESIGN.md, "Requests reach their caller").
type Caller struct {
	// View is the view the call was made through; nil for Host.CallTool.
	View *View
	// Server is the server called; Tool is the exposed name called.
	Server, Tool string
}

// CallerOf is the call a Sampling or Elicitation handler's request comes
// from. The handler's context is then the caller's: its values and
// deadline, ended when the call or the request ends. It is false when the
// request cannot be told apart: a 2025-11-25 server asking with none or
// several calls to it in flight.
func CallerOf(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(*Caller)
	if !ok || c == nil {
		return Caller{}, false
	}
	return *c, true
}

type callerKey struct{}

// viewKey marks a call made through a view, for the Host.CallTool it
// leads to.
type viewKey struct{}

// withCaller is ctx naming the call of tool on server as its caller. The
// view mark is used up here: a call the handlers make with this context
// is their own, not the view's.
func withCaller(ctx context.Context, server, tool string) context.Context {
	v, _ := ctx.Value(viewKey{}).(*View)
	if v != nil {
		ctx = context.WithValue(ctx, viewKey{}, (*View)(nil))
	}
	return context.WithValue(ctx, callerKey{}, &Caller{View: v, Server: server, Tool: tool})
}

// callerContext is the context a handler of server's request runs under:
// the request's own when it carries its call (a 2026-07-28 input request
// is answered within the call), else the one call to server in flight's,
// ended too when the request's is. done releases it.
func (h *Host) callerContext(ctx context.Context, server string) (_ context.Context, done func()) {
	if c, ok := CallerOf(ctx); ok && c.Server == server {
		return ctx, func() {}
	}
	call := h.calls.only(server)
	if call == nil {
		return ctx, func() {}
	}
	joined, cancel := context.WithCancelCause(call)
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	return joined, func() { stop(); cancel(nil) }
}

// sampling is the handler for a sampling request under ctx: the calling
// view's, else the host's.
func (h *Host) sampling(ctx context.Context) func(context.Context, string, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if c, ok := CallerOf(ctx); ok && c.View != nil && c.View.opts.Sampling != nil {
		return c.View.opts.Sampling
	}
	return h.opts.Sampling
}

// viewSampling is the calling view's own Sampling handler under ctx, or
// nil.
func viewSampling(ctx context.Context) func(context.Context, string, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if c, ok := CallerOf(ctx); ok && c.View != nil {
		return c.View.opts.Sampling
	}
	return nil
}

// elicitation is the handler for an elicitation under ctx: the calling
// view's, else the host's.
func (h *Host) elicitation(ctx context.Context) func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if c, ok := CallerOf(ctx); ok && c.View != nil && c.View.opts.Elicitation != nil {
		return c.View.opts.Elicitation
	}
	return h.opts.Elicitation
}
