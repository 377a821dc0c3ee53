package demo

import (
	"context"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RemoveEcho, as the whole of a --describe-from file, has the server not
// list echo at all.
const RemoveEcho = "-"

// describeEcho lists echo as the file at path says (Options.DescribeFrom):
// its text is echo's description, RemoveEcho removes the tool, and a
// missing or empty file leaves the demo's own. go-sdk announces each
// change with tools/list_changed.
func describeEcho(s *mcp.Server, path string) {
	data, _ := os.ReadFile(path)
	desc := strings.TrimSpace(string(data))
	switch desc {
	case RemoveEcho:
		s.RemoveTools("echo")
		return
	case "":
		desc = echoDescription
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: desc, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, echo)
}

// addRedescribe adds the tool that reads the file again: a server that
// rewrites a tool's description while it runs.
func addRedescribe(s *mcp.Server, path string) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "redescribe",
		Description: "Reads echo's description from the --describe-from file again; the server announces a change with tools/list_changed.",
	}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		describeEcho(s, path)
		return text("read " + path), nil, nil
	})
}
