package app_test

import (
	"context"
	"fmt"
	"io"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// A gateway over stdio: one MCP server in front of every configured one.
// The configs here are the demo server bundled in this test binary
// (TestMain serves it: demoserver.Serving, Run); yours
// would come from app.Load, with Options.Reload to follow their changes.
// The client is go-sdk's, on the other end of a pipe pair, where
// `switchboard serve` has the process's stdin and stdout.
func ExampleStart() {
	srv, err := demoserver.Config("demo")
	if err != nil {
		log.Fatal(err)
	}
	first := &app.Loaded{Servers: []config.ServerConfig{srv}}
	ctx := context.Background()
	a, err := app.Start(ctx, first, &app.Options{Host: &host.Options{ToolPrefix: host.NoToolPrefix}, Gateway: &gateway.Options{}})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()

	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	go a.ServePipe(ctx, host.ViewFilter{}, serverIn, serverOut)
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hello through the gateway"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: hello through the gateway
}
