package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// Call is a client's tool call, prompt get or resource read as the
// gateway hands it to the host (Options.Calls).
type Call struct {
	// Method is "tools/call", "prompts/get" or "resources/read".
	Method string
	// Session is the client's session id: empty over stdio, and for a
	// client of the new era, which has none.
	Session string
	// View is the view the client sees.
	View host.ViewFilter
	// User is the authenticated user who called (auth.TokenInfo.UserID
	// of the HTTP request), "" for the shared token's caller and over
	// stdio. Never a token.
	User string
	// Server and Name are the upstream server and its own name for the
	// tool or prompt; a resource read's Name is its URI.
	Server, Name string
	// Arguments are what the client sent: a tool's JSON object
	// (json.RawMessage), a prompt's map[string]string, nil for a read.
	Arguments any
}

// CallEnd is how a Call ended: the host's result and error, as the host
// returned them (host.CallError's taxonomy; a tool error is a result
// with IsError), before the gateway made them its reply.
type CallEnd struct {
	Result mcp.Result
	Err    error
}

// admit asks Options.Calls about c: a non-nil error refuses the call;
// end, never nil, is to be called once with how it ended.
func (g *Gateway) admit(ctx context.Context, c Call) (end func(CallEnd), err error) {
	if g.opts.Calls == nil {
		return func(CallEnd) {}, nil
	}
	end, err = g.opts.Calls(ctx, c)
	if end == nil {
		end = func(CallEnd) {}
	}
	return end, err
}

// sessionID is ss's id, empty without a session.
func sessionID(ss *mcp.ServerSession) string {
	if ss == nil {
		return ""
	}
	return ss.ID()
}

// admitTool is admit for a call of the tool exposed as name.
func (g *Gateway) admitTool(ctx context.Context, req *mcp.CallToolRequest, v *view, hv *host.View, name, server string) (func(CallEnd), error) {
	if g.opts.Calls == nil {
		return func(CallEnd) {}, nil
	}
	c := Call{Method: "tools/call", Session: sessionID(req.Session), View: v.filter, User: userOf(req.Extra), Server: server, Name: name, Arguments: req.Params.Arguments}
	if ref, ok := hv.Resolve(host.KindTool, name); ok {
		c.Server, c.Name = ref.Server, ref.Name
	}
	return g.admit(ctx, c)
}

// CloseSessions ends every client session of every view: once a server
// stopped serving HTTP, its legacy sessions can take no more requests,
// and their clients learn so at their next.
func (g *Gateway) CloseSessions() {
	g.each(func(v *view) {
		for ss := range v.srv.Sessions() {
			_ = ss.Close()
		}
	})
}
