package demo

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EscapePayload is what --escapes puts in every string a host may show a
// person. Sent to a terminal as it is, it sets the window title to
// "pwned", clears the screen, moves to the top left and draws "all servers
// OK" in green; then a bidi override, a C1 CSI, a DEL and a backspace.
const EscapePayload = "\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b[32mall servers OK\x1b[0m \u202eKO\u202c \u009b2J\x7f\b"

// EscapeStderrLine is what --escapes writes to stderr at start: the
// payload, classified as an error so that it also lands in a failed
// server's error, and a byte that is not UTF-8, which only stderr (not
// JSON) can carry.
const EscapeStderrLine = "error: " + EscapePayload + " \xff"

// EscapeURI is the resource --escapes adds.
const EscapeURI = "demo://escapes"

// addEscapeTools adds what --escapes serves: the payload in a tool's
// description and result, in a protocol error, and in a resource's and a
// prompt's description and text.
func addEscapeTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "escapes",
		Description: EscapePayload + " (a description full of terminal escape sequences)",
	}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: EscapePayload + "\nsecond line\r\nthird line"},
			&mcp.ResourceLink{URI: EscapeURI, Name: EscapePayload},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: EscapeURI, MIMEType: "text/plain", Text: EscapePayload}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: EscapeURI + "/blob", MIMEType: "application/x-msdownload" + EscapePayload, Blob: []byte("MZ")}},
		}}, nil, nil
	})
	// A plain ToolHandler's error is a JSON-RPC error, not an error result:
	// the host's caller gets it as an error of its own.
	s.AddTool(&mcp.Tool{
		Name:        "escapes_error",
		Description: "Fails with a protocol error whose message is full of terminal escape sequences.",
		InputSchema: map[string]any{"type": "object"},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New(EscapePayload)
	})
	s.AddResource(&mcp.Resource{
		URI: EscapeURI, Name: "escapes", MIMEType: "text/plain",
		Description: EscapePayload,
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: req.Params.URI, MIMEType: "text/plain", Text: EscapePayload + "\nsecond line"},
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "escapes", Description: EscapePayload}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: EscapePayload}}}}, nil
	})
}
