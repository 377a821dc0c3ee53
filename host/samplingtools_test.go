package host_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// A server that asks for sampling with tools reaches Options.SamplingWithTools
// in either protocol era, with the tools it offers the model and the
// caller's context; the model's tool use goes back to it.
func TestSamplingWithTools(t *testing.T) {
	for _, version := range []string{"", config.ProtocolLegacy} {
		t.Run("era "+version, func(t *testing.T) {
			srv := demoServer(t, "st", "--sampling-tools", "--sampling")
			srv.ProtocolVersion = version
			opts := &host.Options{SamplingWithTools: func(ctx context.Context, server string, p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
				if c, ok := host.CallerOf(ctx); !ok || c.Server != "st" || server != "st" {
					t.Errorf("caller %v %v, server %q", c, ok, server)
				}
				if ctx.Value(agentKey{}) != "parent" {
					t.Error("the handler's context does not carry the caller's values")
				}
				if len(p.Tools) == 0 {
					return &mcp.CreateMessageWithToolsResult{Model: "m", Role: "assistant", Content: []mcp.Content{&mcp.TextContent{Text: "host answers"}}}, nil
				}
				if p.Tools[0].Name != "get_weather" || p.ToolChoice == nil || p.ToolChoice.Mode != "auto" {
					t.Errorf("tools %v, choice %v", p.Tools, p.ToolChoice)
				}
				return &mcp.CreateMessageWithToolsResult{Model: "m", Role: "assistant", StopReason: "toolUse",
					Content: []mcp.Content{&mcp.ToolUseContent{ID: "1", Name: "get_weather", Input: map[string]any{"city": "Oslo"}}}}, nil
			}}
			h := start(t, opts, srv)
			ctx := context.WithValue(context.Background(), agentKey{}, "parent")
			res, err := h.CallTool(ctx, "mcp__st__sample_tools", map[string]any{"text": "weather in Oslo?"})
			if err != nil || res.IsError || text(t, res) != `tool_use get_weather {"city":"Oslo"}` {
				t.Fatalf("sample_tools: %v %q", err, text(t, res))
			}
			// A request without tools goes to the same handler, or to a
			// view's own Sampling when the call came through one.
			res, err = h.CallTool(ctx, "mcp__st__sample", map[string]any{"text": "hi"})
			if err != nil || text(t, res) != "host answers" {
				t.Errorf("sample: %v %q", err, text(t, res))
			}
			v := h.ViewWith(host.ViewFilter{}, &host.ViewOptions{Name: "sub", Sampling: func(ctx context.Context, server string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
				return &mcp.CreateMessageResult{Model: "v", Role: "assistant", Content: &mcp.TextContent{Text: "view answers"}}, nil
			}})
			res, err = v.CallTool(ctx, "mcp__st__sample", map[string]any{"text": "hi"})
			if err != nil || text(t, res) != "view answers" {
				t.Errorf("sample through a view: %v %q", err, text(t, res))
			}
			res, err = v.CallTool(ctx, "mcp__st__sample_tools", map[string]any{"text": "weather?"})
			if err != nil || !strings.HasPrefix(text(t, res), "tool_use get_weather") {
				t.Errorf("sample_tools through a view: %v %q", err, text(t, res))
			}
		})
	}
}

// A SamplingWithTools handler that returns nothing, or panics, is an
// error answered to the server, never a crash.
func TestSamplingWithToolsGuarded(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func() (*mcp.CreateMessageWithToolsResult, error)
	}{
		{"nil", func() (*mcp.CreateMessageWithToolsResult, error) { return nil, nil }},
		{"panic", func() (*mcp.CreateMessageWithToolsResult, error) { panic("boom") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, &host.Options{SamplingWithTools: func(context.Context, string, *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
				return tc.f()
			}}, demoServer(t, "st", "--sampling-tools"))
			res, err := h.CallTool(context.Background(), "mcp__st__sample_tools", map[string]any{"text": "hi"})
			if err == nil && (res == nil || !res.IsError) {
				t.Fatalf("a failed handler gave %q", text(t, res))
			}
			if !strings.Contains(text(t, res), host.ErrHandler.Error()) && !errors.Is(err, host.ErrHandler) {
				t.Errorf("the failure does not say the handler failed: %v %q", err, text(t, res))
			}
		})
	}
}
