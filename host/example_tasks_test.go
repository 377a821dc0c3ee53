package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/host"
)

// A call is bounded by its context: a deadline or a cancel ends it, the
// server is told (notifications/cancelled), and errors.Is says which.
// The result is never nil: an agent can show it to its model as is.
func ExampleHost_CallTool_timeout() {
	srv, err := demoserver.Config("demo")
	if err != nil {
		log.Fatal(err)
	}
	h := host.New(nil)
	defer h.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{srv}); err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res, err := h.CallTool(ctx, "mcp__demo__sleep", map[string]any{"ms": 60_000})
	fmt.Println(errors.Is(err, context.DeadlineExceeded), res.IsError)

	ctx, cancel = context.WithCancel(context.Background())
	go cancel() // a person pressed Esc
	_, err = h.CallTool(ctx, "mcp__demo__sleep", map[string]any{"ms": 60_000})
	fmt.Println(errors.Is(err, context.Canceled))
	// Output:
	// true true
	// true
}

// A subagent works through a view: the tools its filter shows, over the
// parent's connections, and handlers of its own for what servers ask
// during its calls. CallerOf names the view a request came through.
func ExampleHost_ViewWith() {
	srv, err := demoserver.Config("demo", "--sampling", "--legacy")
	if err != nil {
		log.Fatal(err)
	}
	parent := func(ctx context.Context, _ string, _ *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		return reply("the parent's model"), nil
	}
	h := host.New(&host.Options{Sampling: parent}) // offers sampling to servers
	defer h.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{srv}); err != nil {
		log.Fatal(err)
	}
	sub := h.ViewWith(host.ViewFilter{Servers: []string{"demo"}}, &host.ViewOptions{
		Name: "researcher",
		Sampling: func(ctx context.Context, _ string, _ *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			caller, _ := host.CallerOf(ctx)
			return reply("the " + caller.View.Name() + "'s model"), nil
		},
	})
	res, err := sub.CallTool(context.Background(), "mcp__demo__sample", map[string]any{"text": "hello"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(host.ResultText(res))
	res, err = h.CallTool(context.Background(), "mcp__demo__sample", map[string]any{"text": "hello"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(host.ResultText(res))
	// Output:
	// the researcher's model
	// the parent's model
}

func reply(text string) *mcp.CreateMessageResult {
	return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: text}}
}

// A model takes tools as function definitions: a name, what it does, and
// the JSON schema of its arguments. The host's tool set is that already,
// named uniquely across servers and sorted, so the prompt stays the same
// from one turn to the next.
func ExampleToolSet_definitions() {
	srv, err := demoserver.Config("demo")
	if err != nil {
		log.Fatal(err)
	}
	h := host.New(nil)
	defer h.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{srv}); err != nil {
		log.Fatal(err)
	}
	type function struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Parameters  any    `json:"parameters"`
	}
	var defs []function
	for _, t := range h.Tools().Tools {
		defs = append(defs, function{t.Name, t.Description, t.InputSchema})
	}
	b, _ := json.Marshal(defs[1])
	fmt.Println(len(defs), string(b))
	// Output:
	// 8 {"name":"mcp__demo__echo","description":"Returns the given text unchanged. Useful to check that a server is reachable.","parameters":{"additionalProperties":false,"properties":{"text":{"description":"the text to use","type":"string"}},"required":["text"],"type":"object"}}
}
