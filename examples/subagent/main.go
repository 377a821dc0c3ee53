// Command subagent shows a parent agent and a subagent child process
// sharing one MCP server through the parent's host (DESIGN.md F58).
//
// The parent starts an app on the bundled demo server, serves it with
// package daemon on a socket in a folder of its own, and starts itself
// again as the child with $SWITCHBOARD_SOCKET naming that socket. The
// child attaches, lists the tools, calls one with progress and asks the
// server its pid; the parent does the same, and prints that one server
// process served both.
//
//	go run ./examples/subagent
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/daemon"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

func main() {
	os.Exit(run(context.Background(), os.Stdout))
}

// run is the program in whichever of its three parts this process is:
// the demo server, the child, or the parent.
func run(ctx context.Context, out io.Writer) int {
	var err error
	switch {
	case demoserver.Serving():
		return demoserver.Run(os.Args[1:])
	case os.Getenv(daemon.EnvSocket) != "":
		err = child(ctx, out)
	default:
		err = parent(ctx, out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "subagent:", err)
		return 1
	}
	return 0
}

// parent runs the host and hands its socket down to a child.
func parent(ctx context.Context, out io.Writer) error {
	srv, err := demoserver.Config("demo")
	if err != nil {
		return err
	}
	a, err := app.Start(ctx, &app.Loaded{Servers: []config.ServerConfig{srv}}, &app.Options{Gateway: &gateway.Options{}})
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "subagent")
	if err != nil {
		a.Close()
		return err
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "host.sock")
	ln, err := daemon.Listen(socket)
	if err != nil {
		a.Close()
		return err
	}
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- daemon.Serve(serveCtx, a, ln, nil) }() // closes a when it returns
	defer func() { stop(); <-served }()

	res, err := a.Host().CallTool(ctx, "mcp__demo__pid", nil)
	if err != nil {
		return err
	}
	mine := host.ResultText(res)
	fmt.Fprintf(out, "parent: server pid %s\n", mine)

	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), daemon.EnvSocket+"="+socket)
	cmd.Stderr = os.Stderr
	said, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("the child: %w", err)
	}
	out.Write(said)
	var theirs string
	for _, line := range strings.Split(string(said), "\n") {
		if p, ok := strings.CutPrefix(line, "child: server pid "); ok {
			theirs = p
		}
	}
	if theirs != mine || len(a.Host().Status()) != 1 {
		return fmt.Errorf("the child reached server %q, the parent %q", theirs, mine)
	}
	fmt.Fprintf(out, "parent: one server process (pid %s) served both\n", mine)
	return nil
}

// child is the subagent: it attaches to its parent's host through the
// socket the parent handed down.
func child(ctx context.Context, out io.Writer) error {
	c, err := daemon.AttachFromEnv(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	v := c.View(host.ViewFilter{Servers: []string{"demo"}})
	tools, err := v.Tools(ctx, host.ViewFilter{})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "child: %d tools, among them mcp__demo__sleep\n", len(tools))
	withProgress := host.WithProgress(ctx, func(p host.Progress, msg string) {
		fmt.Fprintf(out, "child: progress: %s\n", msg)
	})
	res, err := v.CallTool(withProgress, "mcp__demo__sleep", map[string]any{"ms": 10})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "child: %s\n", host.ResultText(res))
	res, err = v.CallTool(ctx, "mcp__demo__pid", nil)
	if err != nil {
		return err
	}
	if res.IsError {
		return errors.New(host.ResultText(res))
	}
	fmt.Fprintf(out, "child: server pid %s\n", host.ResultText(res))
	return nil
}
