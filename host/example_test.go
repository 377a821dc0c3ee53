package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/host"
)

// An agent runs its servers through a Host: start them, offer their tools
// to the model, call the ones it picks, and rebind when the set changes.
func ExampleHost() {
	// One stdio server. This example runs the demo server bundled in this
	// test binary (TestMain serves it: demoserver.Serving, Run); yours
	// would be a command such as npx with its arguments.
	srv, err := demoserver.Config("demo")
	if err != nil {
		log.Fatal(err)
	}
	servers := []config.ServerConfig{srv}

	// The tool cache lets the next Start answer at once with the tools of
	// servers that are slow to start.
	cacheDir, err := os.MkdirTemp("", "switchboard-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(cacheDir)

	h := host.New(&host.Options{CacheDir: cacheDir})

	// Subscribe before Start so no change is missed. Whenever the tool set
	// changes (a server connects, drops, or re-lists its tools), the agent
	// takes the new snapshot and rebinds its model's tools. The goroutine
	// ends when Close closes the subscription.
	sub := h.Subscribe()
	var bound host.ToolSet
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range sub.C {
			if e.Type == host.EventTools {
				bound = h.Tools() // rebind: hand bound.Tools to the model
			}
		}
	}()

	ctx := context.Background()
	if err := h.Start(ctx, servers); err != nil {
		log.Fatal(err)
	}
	for _, tool := range h.Tools().Tools {
		if tool.Server == "demo" {
			fmt.Println(tool.Name)
		}
	}

	res, err := h.CallTool(ctx, "mcp__demo__echo", map[string]any{"text": "hello, switchboard"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(host.ResultText(res))

	if err := h.Close(); err != nil {
		log.Fatal(err)
	}
	<-done
	fmt.Println("tools in the last rebind:", len(bound.Tools))

	// Output:
	// mcp__demo__add
	// mcp__demo__echo
	// mcp__demo__fail
	// mcp__demo__now
	// mcp__demo__pid
	// mcp__demo__sha256
	// mcp__demo__sleep
	// mcp__demo__tiny_image
	// hello, switchboard
	// tools in the last rebind: 8
}

// The agent's side: the MCP part of a system prompt, a search for the
// tool that fits a task, its whole schema loaded once the model picks it,
// and its result sized for the model.
func ExampleHost_PromptSection() {
	srv, err := demoserver.Config("demo")
	if err != nil {
		log.Fatal(err)
	}
	h := host.New(nil)
	defer h.Close()
	ctx := context.Background()
	if err := h.Start(ctx, []config.ServerConfig{srv}); err != nil {
		log.Fatal(err)
	}

	// Servers with their instructions, tools with a line each, within a
	// budget; the same bytes for the same host. Render it again on
	// EventTools and EventState.
	section := h.PromptSection(host.PromptOptions{Budget: 8 << 10})
	fmt.Println(strings.Contains(section, "mcp__demo__echo"))

	// Find the tool by what it does; load its schema when it is picked.
	hits := h.SearchTools("repeat some text back", 3)
	tool, ok := h.Tool(hits[0].Name)
	schema, _ := json.Marshal(tool.InputSchema)
	fmt.Println(tool.Name, ok, strings.Contains(string(schema), `"text"`))

	res, err := h.CallTool(ctx, tool.Name, map[string]any{"text": "a long answer, cut for the model"})
	if err != nil {
		log.Fatal(err)
	}
	// A long result is cut, with a note of how much (and, with Keep,
	// where the whole went).
	fmt.Println(host.RenderResult(res, host.ResultOptions{MaxText: 13}))
	// Output:
	// true
	// mcp__demo__echo true true
	// a long ans…
	// [switchboard: the result is 32 bytes; cut at 13]
}

// With too many tools for the model's context, an agent offers the
// meta-tools (and the alwaysLoad tools) in their place, lists the rest in
// the prompt section, and answers the model's meta-tool calls through
// the host.
func ExampleHost_CallMetaTool() {
	srv, err := demoserver.Config("demo")
	if err != nil {
		log.Fatal(err)
	}
	h := host.New(nil)
	defer h.Close()
	ctx := context.Background()
	if err := h.Start(ctx, []config.ServerConfig{srv}); err != nil {
		log.Fatal(err)
	}
	for _, tool := range host.MetaTools() {
		fmt.Println(tool.Name) // give the model tool.Name, tool.Description, tool.InputSchema
	}

	// The model's calls, answered as any tool's: a result to show it.
	res, _ := h.CallMetaTool(ctx, host.SearchToolName, map[string]any{"query": "add two numbers", "limit": 1})
	fmt.Print(host.ResultText(res))
	res, _ = h.CallMetaTool(ctx, host.CallToolName, json.RawMessage(`{"name":"mcp__demo__add","arguments":{"a":2,"b":3}}`))
	fmt.Println(host.ResultText(res))
	// Output:
	// search_tools
	// describe_tool
	// call_tool
	// mcp__demo__add: Adds two numbers and returns their sum, as text and as structured output {sum}. [matched: add, two, numbers]
	// 5
}
