package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// The meta-tools: three tools an agent offers its model in place of every
// tool when the tools' schemas are deferred (DESIGN.md, "The agent's
// side"): search_tools finds tools by what they do, describe_tool gives
// one's whole schema, call_tool calls it. The gateway offers the same
// under serve --tool-search; the prompt section's note names them.
const (
	// SearchToolName finds tools by what they do.
	SearchToolName = "search_tools"
	// DescribeToolName gives one tool's description and input schema.
	DescribeToolName = "describe_tool"
	// CallToolName calls a tool by its name with its arguments.
	CallToolName = "call_tool"
)

// defaultSearchLimit is how many tools search_tools answers when its
// caller names no limit: a model picks among a few, and ten lines cost
// little.
const defaultSearchLimit = 10

// MetaTools are the meta-tools' definitions, names and schemas, for an
// agent to give its model (CallMetaTool answers them). Each call returns
// new copies.
func MetaTools() []*mcp.Tool {
	return []*mcp.Tool{
		{Name: SearchToolName,
			Description: "Finds tools of the connected MCP servers by what they do. Answers each tool's name, a line about it and the words it matched; " +
				DescribeToolName + " gives a tool's arguments, " + CallToolName + " calls it.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"query":{"type":"string","description":"what the tool should do, in a few words"},` +
				`"limit":{"type":"integer","description":"how many tools at most (default 10)"}},"required":["query"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"tools":{"type":"array","items":{"type":"object","properties":{` +
				`"name":{"type":"string"},"server":{"type":"string"},"description":{"type":"string"},` +
				`"why":{"type":"array","items":{"type":"string"},"description":"the words it matched: the query's, or the tool's ← the query's (how related)"}},` +
				`"required":["name","server","description"]}}},"required":["tools"]}`)},
		{Name: DescribeToolName,
			Description: "Gives a tool's whole description and the JSON schema of its arguments.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"name":{"type":"string","description":"the tool's name, as ` + SearchToolName + ` gives it"}},"required":["name"]}`)},
		{Name: CallToolName,
			Description: "Calls a tool by its name with its arguments.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"name":{"type":"string","description":"the tool's name, as ` + SearchToolName + ` gives it"},` +
				`"arguments":{"type":"object","description":"the tool's arguments, as ` + DescribeToolName + `'s schema says"}},"required":["name"]}`)},
	}
}

// IsMetaTool reports whether name is one of MetaTools.
func IsMetaTool(name string) bool {
	return name == SearchToolName || name == DescribeToolName || name == CallToolName
}

// SearchHit is one tool search_tools answers; SearchResult is its
// structured content.
type SearchHit struct {
	Name        string `json:"name"`
	Server      string `json:"server"`
	Description string `json:"description"` // its first line
	// Why are the words it matched ("tag ← label (synonym)"), so the
	// model can choose among the hits and refine its query.
	Why []string `json:"why,omitempty"`
}

// SearchResult is search_tools' structured content.
type SearchResult struct {
	Tools []SearchHit `json:"tools"`
}

// CallMetaTool answers a call of one of MetaTools over the host's tools;
// call_tool is Host.CallTool. Like CallTool, the result is never nil: a
// failure is an error result beside the error, and a name that is no
// meta-tool, or no tool of the host's, is ErrUnknownTool.
func (h *Host) CallMetaTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	return callMeta(ctx, name, args, h.SearchToolHits, h.Tool, h.CallTool)
}

// CallMetaTool is Host.CallMetaTool over the tools the view shows;
// call_tool is View.CallTool.
func (v *View) CallMetaTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	return callMeta(ctx, name, args, v.SearchToolHits, v.Tool, v.CallTool)
}

// MetaCall reads call_tool's arguments: the tool the view shows of that
// name and the arguments for it. For a caller that calls the tool its own
// way (the gateway passes a client's progress token and requests on).
func (v *View) MetaCall(args any) (Tool, json.RawMessage, error) {
	var in struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := decodeMeta(CallToolName, args, &in); err != nil {
		return Tool{}, nil, err
	}
	t, err := metaTool(in.Name, v.Tool)
	if err != nil {
		return Tool{}, nil, err
	}
	if string(in.Arguments) == "null" {
		in.Arguments = nil
	}
	return t, in.Arguments, nil
}

func callMeta(ctx context.Context, name string, args any,
	search func(string, int) []ToolHit, tool func(string) (Tool, bool),
	call func(context.Context, string, any) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	res, err := answerMeta(ctx, name, args, search, tool, call)
	if err != nil && (res == nil || !res.IsError) {
		res = errorResult(err)
	}
	return res, err
}

func answerMeta(ctx context.Context, name string, args any,
	search func(string, int) []ToolHit, tool func(string) (Tool, bool),
	call func(context.Context, string, any) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	var in struct {
		Query     string          `json:"query"`
		Limit     int             `json:"limit"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if !IsMetaTool(name) {
		return nil, fmt.Errorf("%w %q: not a meta-tool", ErrUnknownTool, name)
	}
	if err := decodeMeta(name, args, &in); err != nil {
		return nil, err
	}
	switch name {
	case SearchToolName:
		if strings.TrimSpace(in.Query) == "" {
			return nil, fmt.Errorf("%s: %w", SearchToolName, errNoQuery)
		}
		limit := in.Limit
		if limit <= 0 {
			limit = defaultSearchLimit
		}
		out := SearchResult{Tools: []SearchHit{}}
		var b strings.Builder
		for _, hit := range search(in.Query, limit) {
			t := hit.Tool
			line := firstLine(t.Description)
			sh := SearchHit{Name: t.Name, Server: t.Server, Description: line}
			for _, m := range hit.Why {
				sh.Why = append(sh.Why, m.String())
			}
			out.Tools = append(out.Tools, sh)
			fmt.Fprintf(&b, "%s: %s", t.Name, line)
			if len(sh.Why) > 0 {
				fmt.Fprintf(&b, " [matched: %s]", strings.Join(sh.Why, ", "))
			}
			b.WriteByte('\n')
		}
		if len(out.Tools) == 0 {
			b.WriteString("no tool matches; try other words")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: out}, nil
	case DescribeToolName:
		t, err := metaTool(in.Name, tool)
		if err != nil {
			return nil, err
		}
		b, err := json.MarshalIndent(map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.InputSchema}, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", DescribeToolName, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	default:
		t, err := metaTool(in.Name, tool)
		if err != nil {
			return nil, err
		}
		var callArgs any
		if len(in.Arguments) > 0 && string(in.Arguments) != "null" {
			callArgs = in.Arguments
		}
		return call(ctx, t.Name, callArgs)
	}
}

var errNoQuery = errors.New("no query: say what the tool should do")

// metaTool is the tool a meta-tool's name argument names.
func metaTool(name string, tool func(string) (Tool, bool)) (Tool, error) {
	t, ok := tool(name)
	if !ok {
		return Tool{}, fmt.Errorf("%w %q; %s finds tools", ErrUnknownTool, name, SearchToolName)
	}
	return t, nil
}

// decodeMeta reads a meta-tool's arguments (a JSON object in any form
// CallTool takes) into in.
func decodeMeta(name string, args any, in any) error {
	var b []byte
	switch a := args.(type) {
	case nil:
		b = []byte("{}")
	case json.RawMessage:
		b = a
	case []byte:
		b = a
	case string:
		b = []byte(a)
	default:
		var err error
		if b, err = json.Marshal(args); err != nil {
			return fmt.Errorf("%s: arguments: %w", name, err)
		}
	}
	if err := json.Unmarshal(b, in); err != nil {
		return fmt.Errorf("%s: arguments must be a JSON object as its schema says: %w", name, err)
	}
	return nil
}

// firstLine is a description's first line, at most 160 bytes: what a
// search hit says about its tool.
func firstLine(s string) string {
	s = strings.TrimSpace(unixLines(s))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip.To(s, 160)
}
