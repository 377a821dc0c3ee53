package discover

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestClaudeCodeTurnsOff: servers turned off in Claude Code — by `/mcp
// disable` in ~/.claude.json, or rejected in a settings file — are
// disabled, and still claim their names (DESIGN.md F2); an untrusted
// project's rejected server is untrusted too, and claims nothing. An
// approval does not stand in for switchboard's trust.
func TestClaudeCodeTurnsOff(t *testing.T) {
	m := newMachine(t)
	m.write("~/.claude.json", fmt.Sprintf(`{
  "projects": {%q: {
    "mcpServers": {"playwright": {"command": "npx", "args": ["@playwright/mcp@latest"]}},
    "disabledMcpServers": ["playwright", "sentry", "shared-db"]
  }},
  "mcpServers": {"sentry": {"type": "sse", "url": "https://mcp.sentry.dev/sse"}, "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}
}`, m.project))
	m.write("./.mcp.json", `{"mcpServers": {
  "shared-db": {"command": "db-mcp"},
  "rejected": {"command": "npx", "args": ["-y", "some-mcp"]},
  "approved": {"command": "npx", "args": ["-y", "other-mcp"]},
  "global-off": {"command": "npx", "args": ["-y", "third-mcp"]}
}}`)
	m.write("./.claude/settings.local.json", `{"enabledMcpjsonServers": ["approved"], "disabledMcpjsonServers": ["rejected"]}`)
	m.write("~/.claude/settings.json", `{"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["global-off"]}`)
	m.write("~/.cursor/mcp.json", `{"mcpServers": {"sentry": {"command": "cursor-sentry"}, "rejected": {"command": "cursor-rejected"}}}`)

	d := m.discover(func(o *Options) { o.TrustProject = true })
	m.wantServers(d,
		"playwright:Claude Code:user disabled",
		"shared-db:Claude Code:project disabled",
		"rejected:Claude Code:project disabled",
		"approved:Claude Code:project",
		"global-off:Claude Code:project disabled",
		"sentry:Claude Code:user disabled",
		"github:Claude Code:user")
	if diff := cmp.Diff([]string{"rejected:Cursor:user -> Claude Code", "sentry:Cursor:user -> Claude Code"}, shadowSummary(d.Shadowed)); diff != "" {
		t.Errorf("shadowed (-want +got):\n%s", diff)
	}

	d = m.discover()
	m.wantServers(d,
		"playwright:Claude Code:user disabled",
		"shared-db:Claude Code:project disabled untrusted",
		"approved:Claude Code:project untrusted",
		"global-off:Claude Code:project disabled untrusted",
		"sentry:Claude Code:user disabled",
		"github:Claude Code:user",
		"rejected:Cursor:user")
	// The settings files are read, watched and trusted with the project.
	var settings []string
	for _, f := range d.ProjectFiles {
		if filepath.Base(filepath.Dir(f.Path)) == ".claude" {
			settings = append(settings, filepath.Base(f.Path))
		}
	}
	if diff := cmp.Diff([]string{"settings.local.json"}, settings); diff != "" {
		t.Errorf("project settings files (-want +got):\n%s", diff)
	}
}
