package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// mcp-hub (npm mcp-hub, PEERS.md) is a Node hub that runs many MCP
// servers and offers them all at one endpoint, tools named SERVER__TOOL as
// serve names them. `make bench-peers` installs it into
// test/bench-peers, apart from the test peers, so `make test` does not
// carry it.

// EnvMCPHub names the environment variable that points at the
// node_modules folder mcp-hub is installed in; unset, it is
// test/bench-peers/node_modules beside the test peers' folder.
const EnvMCPHub = "SWITCHBOARD_BENCH_PEERS_DIR"

// Set by the harness for the mcphub contender's child: the node binary and
// mcp-hub's script to run it with.
const (
	envHubNode   = "SWITCHBOARD_BENCH_MCPHUB_NODE"
	envHubScript = "SWITCHBOARD_BENCH_MCPHUB_SCRIPT"
)

// hubPath is mcp-hub's script in the folder it is installed in.
var hubPath = filepath.Join("mcp-hub", "dist", "cli.js")

// findMCPHub returns mcp-hub's script and version, beside the test peers'
// folder peersDir unless EnvMCPHub says where.
func findMCPHub(peersDir string) (script, version string, err error) {
	dir := os.Getenv(EnvMCPHub)
	if dir == "" {
		if peersDir == "" {
			return "", "", fmt.Errorf("no node to run it with: %w", errNoPeers)
		}
		dir = filepath.Join(filepath.Dir(filepath.Dir(peersDir)), "bench-peers", "node_modules")
	}
	script = filepath.Join(dir, hubPath)
	if _, err := os.Stat(script); err != nil {
		return "", "", fmt.Errorf("%w: run `make bench-peers` (npm ci in test/bench-peers)", err)
	}
	return script, packageVersion(filepath.Join(dir, "mcp-hub", "package.json")), nil
}

// dialMCPHub starts mcp-hub on a free port with the one server in its
// config, in a folder of its own (its logs, workspace cache and
// marketplace cache go there), and connects a go-sdk client to its
// unified endpoint, /mcp. In mcp-hub 4.2.1 that endpoint is the legacy
// SSE transport (GET /mcp, then POST /messages), not streamable HTTP, and
// it answers 2025-06-18 to the client's 2025-11-25. It binds every
// interface: it has no option to bind one.
func dialMCPHub(ctx context.Context, t *target) (caller, error) {
	node, script := os.Getenv(envHubNode), os.Getenv(envHubScript)
	if node == "" || script == "" {
		return nil, fmt.Errorf("mcphub: %s and %s are not set", envHubNode, envHubScript)
	}
	c, err := newMiddleCaller("switchboard-bench-mcphub-", "home", "data/mcp-hub/cache", "state", "config")
	if err != nil {
		return nil, err
	}
	if err := c.startMCPHub(ctx, node, script, t); err != nil {
		return nil, errors.Join(fmt.Errorf("mcphub: %w", err), c.close())
	}
	return c, nil
}

func (c *middleCaller) startMCPHub(ctx context.Context, node, script string, t *target) error {
	cfg := filepath.Join(c.dir, "config", "hub.json")
	if err := writeJSON(cfg, map[string]any{"mcpServers": map[string]any{serveServer: hubEntry(t)}}); err != nil {
		return err
	}
	// At start it fetches its marketplace from github.io unless its cache
	// holds a registry of at least one server fetched within the hour:
	// this one keeps it off the network.
	registry := map[string]any{
		"registry":            map[string]any{"servers": []map[string]string{{"id": "none", "name": "none"}}},
		"lastFetchedAt":       time.Now().UnixMilli(),
		"serverDocumentation": map[string]any{},
	}
	if err := writeJSON(filepath.Join(c.dir, "data", "mcp-hub", "cache", "registry.json"), registry); err != nil {
		return err
	}
	// It takes the port to listen on only from --port, and says nothing
	// when it cannot bind one but an error line: a port picked here is
	// tried twice, as peers.LaunchEverything does.
	for attempt := 1; ; attempt++ {
		port, err := peers.FreePort()
		if err != nil {
			return err
		}
		cmd := exec.Command(node, script, "--port", strconv.Itoa(port), "--config", cfg)
		cmd.Env = append(os.Environ(), // later entries win
			"HOME="+filepath.Join(c.dir, "home"),
			"XDG_DATA_HOME="+filepath.Join(c.dir, "data"),
			"XDG_STATE_HOME="+filepath.Join(c.dir, "state"),
			"XDG_CONFIG_HOME="+filepath.Join(c.dir, "config"))
		c.m, err = startMiddle(ctx, "mcp-hub", cmd, hubReady)
		if err == nil {
			tr := &mcp.SSEClientTransport{Endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), HTTPClient: pooledClient()}
			c.http = tr.HTTPClient
			return c.connect(ctx, tr, serveServer+"__"+t.Tool, t.Arguments)
		}
		if !errors.Is(err, errPortTaken) || attempt == 2 {
			return err
		}
	}
}

// hubEntry is the target as mcp-hub's config takes it: a stdio server as
// serve takes it; for a URL it tries streamable HTTP, then SSE.
func hubEntry(t *target) map[string]any {
	if t.Transport == "http" {
		return map[string]any{"url": t.URL}
	}
	return t.serverEntry()
}

// hubLine is a line of mcp-hub's log, which it writes as JSON to stdout.
type hubLine struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Data    struct {
		Total      *int     `json:"total"`
		Successful int      `json:"successful"`
		Failed     int      `json:"failed"`
		Failures   []string `json:"failedServers"`
	} `json:"data"`
}

// hubReady reads mcp-hub's log until it says how many of its servers
// started ("1/1 servers started successfully").
func hubReady(line string) (bool, error) {
	if strings.Contains(line, "EADDRINUSE") {
		return false, errPortTaken
	}
	var l hubLine
	if json.Unmarshal([]byte(line), &l) != nil || l.Data.Total == nil {
		return false, nil
	}
	if l.Data.Failed > 0 || l.Data.Successful != *l.Data.Total {
		return false, fmt.Errorf("%s (failed: %v)", l.Message, l.Data.Failures)
	}
	return true, nil
}
