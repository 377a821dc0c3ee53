package daemon_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/daemon"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// A parent serves its app on a socket; a child process (here, the same
// one) attaches through it and calls a tool of the parent's server, with
// progress. A real parent hands the socket down in $SWITCHBOARD_SOCKET
// (daemon.EnvSocket), and the child calls daemon.AttachFromEnv.
func Example() {
	srv, err := demoserver.Config("demo") // this program as the demo server (TestMain)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	a, err := app.Start(ctx, &app.Loaded{Servers: []config.ServerConfig{srv}}, &app.Options{Gateway: &gateway.Options{}})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ln, err := daemon.Listen(filepath.Join(dir, "host.sock"))
	if err != nil {
		log.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- daemon.Serve(serveCtx, a, ln, nil) }()

	c, err := daemon.Dial(ctx, filepath.Join(dir, "host.sock"))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	progress := host.WithProgress(ctx, func(_ host.Progress, msg string) { fmt.Println("progress:", msg) })
	// The server tells its progress as it starts, then sleeps: long
	// enough that the progress is handled before the result arrives.
	res, err := c.CallTool(progress, "mcp__demo__sleep", map[string]any{"ms": 100})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(host.ResultText(res))

	stop()
	if err := <-served; err != nil { // Serve closed the app
		log.Fatal(err)
	}
	// Output:
	// progress: sleeping 100 ms
	// slept 100 ms
}
