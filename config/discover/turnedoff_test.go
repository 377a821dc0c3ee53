package discover

import (
	"path/filepath"
	"testing"
)

// TestDisabledResolvesNothing: a disabled server is listed as disabled,
// whatever its variables: none is looked up, and what it would not use is
// not its error (DESIGN.md F3).
func TestDisabledResolvesNothing(t *testing.T) {
	m := newMachine(t)
	m.write("~/.config/switchboard/mcp.json", `{"mcpServers": {"off": {"command": "x", "disabled": true, "env": {"T": "${NOPE}"}}}}`)
	m.write("~/.config/goose/config.yaml", `extensions:
  github:
    cmd: npx
    args: [-y, "@modelcontextprotocol/server-github"]
    enabled: false
    envs: {}
    env_keys: [GITHUB_PERSONAL_ACCESS_TOKEN]
    type: stdio
  on:
    cmd: npx
    enabled: true
    env_keys: [GITHUB_PERSONAL_ACCESS_TOKEN]
    type: stdio
`)
	d := m.discover()
	m.wantServers(d, "off:switchboard:user disabled", "github:Goose:user disabled",
		"on:Goose:user err="+filepath.Join(m.home, ".config/goose/config.yaml")+`:12:16: server "on": field "env.GITHUB_PERSONAL_ACCESS_TOKEN": variable GITHUB_PERSONAL_ACCESS_TOKEN is not set (Goose also looks in its keyring; switchboard only in the environment)`)
}
