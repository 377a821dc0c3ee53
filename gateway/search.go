package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// With Options.ToolSearch a view offers three tools in place of every
// tool (DESIGN.md, "The agent's side"): search_tools finds tools by what
// they do, describe_tool gives one's whole schema, call_tool calls it. For
// clients that choke on hundreds of tools; the servers' tools marked
// alwaysLoad are offered as they are besides.

const (
	searchToolName   = "search_tools"
	describeToolName = "describe_tool"
	callToolName     = "call_tool"
)

type searchIn struct {
	Query string `json:"query" jsonschema:"what the tool should do, in a few words"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many tools at most (default 10)"`
}

type describeIn struct {
	Name string `json:"name" jsonschema:"the tool's name, as search_tools gives it"`
}

type callIn struct {
	Name      string          `json:"name" jsonschema:"the tool's name, as search_tools gives it"`
	Arguments json.RawMessage `json:"arguments,omitempty" jsonschema:"the tool's arguments, an object as its schema (describe_tool) says"`
}

type hit struct {
	Name        string `json:"name"`
	Server      string `json:"server"`
	Description string `json:"description"`
}

// searchOut is search_tools' structured result: an object, as an output
// schema must be at its root (schema.go).
type searchOut struct {
	Tools []hit `json:"tools"`
}

// addSearchTools puts the three tools on v's server.
func (g *Gateway) addSearchTools(v *view) {
	mcp.AddTool(v.srv, &mcp.Tool{Name: searchToolName, Description: "Finds tools of the connected MCP servers by what they do. " +
		"Answers each tool's name and a line about it; describe_tool gives a tool's arguments, call_tool calls it."},
		func(ctx context.Context, req *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, searchOut, error) {
			limit := in.Limit
			if limit <= 0 {
				limit = 10
			}
			hits := []hit{}
			var b strings.Builder
			for _, t := range g.h.View(v.filter).SearchTools(in.Query, limit) {
				line := firstLine(t.Description)
				hits = append(hits, hit{Name: t.Name, Server: t.Server, Description: line})
				fmt.Fprintf(&b, "%s: %s\n", t.Name, line)
			}
			if len(hits) == 0 {
				b.WriteString("no tool matches; try other words")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, searchOut{Tools: hits}, nil
		})
	mcp.AddTool(v.srv, &mcp.Tool{Name: describeToolName, Description: "Gives a tool's whole description and the JSON schema of its arguments."},
		func(ctx context.Context, req *mcp.CallToolRequest, in describeIn) (*mcp.CallToolResult, any, error) {
			t, ok := g.viewTool(v, in.Name)
			if !ok {
				return nil, nil, fmt.Errorf("no tool %q; search_tools finds tools", in.Name)
			}
			b, _ := json.MarshalIndent(map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.InputSchema}, "", "  ")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
		})
	v.srv.AddTool(&mcp.Tool{Name: callToolName, Description: "Calls a tool by its name with its arguments.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"the tool's name, as search_tools gives it"},` +
			`"arguments":{"type":"object","description":"the tool's arguments, as describe_tool's schema says"}},"required":["name"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in callIn
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, fmt.Errorf("call_tool: %w", err)
			}
			t, ok := g.viewTool(v, in.Name)
			if !ok {
				return nil, fmt.Errorf("no tool %q; search_tools finds tools", in.Name)
			}
			inner := *req
			params := *req.Params
			params.Name, params.Arguments = t.Name, in.Arguments
			inner.Params = &params
			return g.callTool(g.h.View(v.filter), t.Name, t.Server)(ctx, &inner)
		})
}

// viewTool is the tool of that name if v shows it.
func (g *Gateway) viewTool(v *view, name string) (host.Tool, bool) {
	return g.h.View(v.filter).Tool(name)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return clip.To(s, 160)
}
