package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// auditUnknown hands Options.Calls the tools/call requests go-sdk refused
// for naming no tool of the view (a tool outside the caller's profile,
// one withheld as changed, a typo), so the audit trail has them too, as
// "unknown", with the name asked for and no server: who tried to call
// what they may not is what an audit trail is read for. The client's
// answer is go-sdk's, unchanged.
func (g *Gateway) auditUnknown(v *view) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			r, ok := req.(*mcp.CallToolRequest)
			if !ok || g.opts.Calls == nil || !unknownTool(err) {
				return res, err
			}
			c := Call{Method: "tools/call", Session: sessionID(r.Session), View: v.filter, User: userOf(r.Extra), Name: r.Params.Name, Arguments: r.Params.Arguments}
			if end, aerr := g.admit(ctx, c); aerr == nil {
				end(CallEnd{Err: fmt.Errorf("%w %q", host.ErrUnknownTool, r.Params.Name)})
			}
			return res, err
		}
	}
}

// unknownTool is whether err is go-sdk's refusal of a tools/call whose
// tool its server does not have (mcp.Server.callTool).
func unknownTool(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(je.Message, "unknown tool ")
}
