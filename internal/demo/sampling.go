package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addSampleToolsTool adds sample_tools, which asks the client to sample a
// reply to its text with a tool the model may use (sampling with tools,
// SEP-1577) and answers with what came back, a line per content block:
// "text: …" or "tool_use NAME INPUT".
func addSampleToolsTool(s *mcp.Server) {
	type in struct {
		Text string `json:"text" jsonschema:"what to ask the client's model"`
	}
	mcp.AddTool(s, &mcp.Tool{
		Name:        "sample_tools",
		Description: "Asks the client to sample a reply to text with a tool the model may use, get_weather, and answers with what the model chose.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, args in) (*mcp.CallToolResult, any, error) {
		params := &mcp.CreateMessageWithToolsParams{
			MaxTokens: 100,
			Messages:  []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: args.Text}}}},
			Tools: []*mcp.Tool{{Name: "get_weather", Description: "The weather in a city.",
				InputSchema: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}}}},
			ToolChoice: &mcp.ToolChoice{Mode: "auto"},
		}
		var res *mcp.CreateMessageWithToolsResult
		switch r, ok := req.Params.InputResponses["sample"].(*mcp.CreateMessageWithToolsResult); {
		case ok:
			res = r
		case modern(req):
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sample": params}}, nil, nil
		default:
			var err error
			if res, err = req.Session.CreateMessageWithTools(ctx, params); err != nil {
				return nil, nil, err
			}
		}
		var lines []string
		for _, c := range res.Content {
			switch c := c.(type) {
			case *mcp.TextContent:
				lines = append(lines, "text: "+c.Text)
			case *mcp.ToolUseContent:
				input, _ := json.Marshal(c.Input)
				lines = append(lines, fmt.Sprintf("tool_use %s %s", c.Name, input))
			default:
				lines = append(lines, fmt.Sprintf("%T", c))
			}
		}
		return text(strings.Join(lines, "\n")), nil, nil
	})
}
