package host_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// An agent runs its servers through a Host: start them, offer their tools
// to the model, call the ones it picks, and rebind when the set changes.
func ExampleHost() {
	// One stdio server. This example runs the demo server bundled in this
	// test binary (TestMain serves when SWITCHBOARD_DEMO_SERVER=1); yours
	// would be a command such as npx with its arguments.
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	servers := []config.ServerConfig{{
		Name:    "demo",
		Command: exe,
		Env:     map[string]string{demo.EnvServerMode: "1"},
	}}

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
