package peers

import (
	"path/filepath"
	"testing"
)

// The MCP Inspector (npm @modelcontextprotocol/inspector, PEERS.md) is the
// protocol's reference debugging client; its --cli mode makes one request
// per run and prints the answer. Version 2 replaced the separate
// @modelcontextprotocol/inspector-cli package, whose 1.x now prints "v1 is
// deprecated" on every run.

// InspectorCLI returns the command line that runs the Inspector's CLI;
// the caller appends its options and then the target (a URL, or "--" and
// a command line). It needs Node 22.19 or later, so it runs on the pinned
// Node 22 (Node22), whatever node is on PATH.
func InspectorCLI(t testing.TB) (command string, args []string) {
	t.Helper()
	script := filepath.Join(Dir(t), "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	need(t, script)
	return Node22(t), []string{script, "--cli"}
}
