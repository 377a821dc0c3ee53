package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// With Options.ToolSearch a view offers the host's meta-tools in place of
// every tool (host.MetaTools; DESIGN.md, "The agent's side"):
// search_tools finds tools by what they do, describe_tool gives one's
// whole schema, call_tool calls it. For clients that choke on hundreds of
// tools; the servers' tools marked alwaysLoad are offered as they are
// besides. The host defines and answers them; call_tool goes through the
// gateway's own call, which passes the client's progress token and
// requests on.

// addSearchTools puts the meta-tools on v's server.
func (g *Gateway) addSearchTools(v *view) {
	for _, tool := range host.MetaTools() {
		name := tool.Name
		if name == host.CallToolName {
			v.srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				hv := g.h.View(v.filter)
				t, args, err := hv.MetaCall(req.Params.Arguments)
				if err != nil {
					return toolError(err), nil
				}
				inner := *req
				params := *req.Params
				params.Name, params.Arguments = t.Name, args
				inner.Params = &params
				return g.callTool(v, hv, t.Name, t.Server)(ctx, &inner)
			})
			continue
		}
		v.srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, _ := g.h.View(v.filter).CallMetaTool(ctx, name, req.Params.Arguments)
			return res, nil // a failure is a tool error, for the model to read
		})
	}
}

// toolError is err as a tool's error result.
func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}
