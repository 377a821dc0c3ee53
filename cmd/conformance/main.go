// Command conformance is the client program the official MCP conformance
// suite runs (`conformance client --command ...`). It connects through
// switchboard's host library, not bare go-sdk, so the suite tests our code.
//
// The suite runs it as `conformance <serverURL>` with the scenario in
// MCP_CONFORMANCE_SCENARIO. `make conformance` runs every client scenario the
// suite lists; one this program does not know exits 2 and fails, and must be
// in test/conformance-expected-failures.yml (docs/CONFORMANCE.md).
// SWITCHBOARD_CONFORMANCE_DEBUG=1 adds the host's diagnostics to stderr.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// serverName is the name the suite's server gets in the host; its tools
// are exposed as mcp__conformance__<tool>.
const serverName = "conformance"

// envDebug, when set, sends the host's diagnostics (reconnects, failed
// connects) to stderr; otherwise a failure is one line.
const envDebug = "SWITCHBOARD_CONFORMANCE_DEBUG"

// scenarioTimeout bounds a whole scenario. Each one is a handshake and a
// call or two against a loopback server (sse-retry adds a 500 ms reconnect),
// done in well under a second. The bound stays below the suite's own 30 s
// timeout, so a hanging host ends with our error line rather than a kill.
const scenarioTimeout = 20 * time.Second

// Exit codes: the suite only tells zero from non-zero, the rest is for people.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// scenario is one conformance client scenario.
type scenario struct {
	// elicitation makes the host offer elicitation, answered by accepting
	// with empty content: the host fills in the schema's defaults.
	elicitation bool
	// run does the scenario's work once the host has connected.
	run func(ctx context.Context, h *host.Host) error
}

var scenarios = map[string]scenario{
	// The suite checks the initialize request; the host lists what the
	// server advertises right after it (here: nothing).
	"initialize": {run: func(ctx context.Context, h *host.Host) error { return nil }},
	"tools_call": {run: func(ctx context.Context, h *host.Host) error {
		_, err := call(ctx, h, "add_numbers", map[string]any{"a": 5, "b": 3})
		return err
	}},
	"elicitation-sep1034-client-defaults": {elicitation: true, run: func(ctx context.Context, h *host.Host) error {
		_, err := call(ctx, h, "test_client_elicitation_defaults", map[string]any{})
		return err
	}},
	// The server closes the call's event stream before answering; the
	// transport must reconnect after the announced retry delay with
	// Last-Event-ID and get the answer on the new stream.
	"sse-retry": {run: func(ctx context.Context, h *host.Host) error {
		_, err := call(ctx, h, "test_reconnection", map[string]any{})
		return err
	}},
}

func main() {
	os.Exit(run(os.Args[1:], os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Stderr))
}

// run executes one scenario and returns the exit code; failures are one
// line on stderr.
func run(args []string, name string, stderr io.Writer) int {
	sc, ok := scenarios[name]
	if !ok || len(args) == 0 {
		if !ok {
			fmt.Fprintf(stderr, "conformance: unknown scenario %q (MCP_CONFORMANCE_SCENARIO); known: %s\n",
				name, strings.Join(slices.Sorted(maps.Keys(scenarios)), ", "))
		} else {
			fmt.Fprintln(stderr, "usage: MCP_CONFORMANCE_SCENARIO=NAME conformance SERVER_URL")
		}
		return exitUsage
	}
	url := args[len(args)-1]
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()
	if err := runScenario(ctx, sc, url, stderr); err != nil {
		fmt.Fprintf(stderr, "conformance: %s: %v\n", name, err)
		return exitFail
	}
	return exitOK
}

// runScenario starts a host with the suite's server, waits for it to
// connect, and runs the scenario.
func runScenario(ctx context.Context, sc scenario, url string, stderr io.Writer) error {
	opts := &host.Options{}
	if os.Getenv(envDebug) != "" {
		// The suite shows the client's output with its checks.
		opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if sc.elicitation {
		opts.Elicitation = func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		}
	}
	h := host.New(opts)
	defer h.Close()
	cfg := config.ServerConfig{
		Name: serverName,
		Type: config.TransportHTTP, // the suite serves streamable HTTP
		URL:  url,
		// A dropped connection here is a failure to report, not to
		// recover from quietly.
		StartupTimeout: scenarioTimeout,
		Timeout:        scenarioTimeout,
		Source:         config.Source{Provider: "conformance", Level: config.LevelExplicit},
	}
	if err := h.Start(ctx, []config.ServerConfig{cfg}); err != nil {
		return err
	}
	if err := h.WaitSettled(ctx); err != nil {
		return err
	}
	for _, st := range h.Status() {
		if st.Name == serverName && st.State != host.StateConnected {
			return fmt.Errorf("server %s: %s", st.State, st.Error)
		}
	}
	return sc.run(ctx, h)
}

// call calls a server tool by its exposed name and fails on an error
// result as well as on a protocol error.
func call(ctx context.Context, h *host.Host, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	name := ""
	var offered []string
	for _, t := range h.Tools().Tools {
		if t.Server == serverName && t.Tool == tool {
			name = t.Name
		}
		offered = append(offered, t.Tool)
	}
	if name == "" {
		return nil, fmt.Errorf("tool %q not offered (tools: %v)", tool, offered)
	}
	res, err := h.CallTool(ctx, name, args)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, errors.New("tool " + tool + " returned an error: " + host.ResultText(res))
	}
	return res, nil
}
