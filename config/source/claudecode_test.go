package source

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config"
)

// claudeHome is a ~/.claude.json as Claude Code writes it after
// `/mcp disable sentry` and `/mcp disable playwright` in the project.
const claudeHome = `{
  "numStartups": 12,
  "projects": {
    "/home/ada/src/app": {
      "allowedTools": [],
      "mcpServers": {
        "playwright": {"type": "stdio", "command": "npx", "args": ["@playwright/mcp@latest"], "env": {}},
        "notes": {"command": "notes-mcp"}
      },
      "disabledMcpServers": ["sentry", "playwright", "shared-db"],
      "enabledMcpjsonServers": [],
      "disabledMcpjsonServers": [],
      "hasTrustDialogAccepted": true
    },
    "/home/ada/src/other": {"disabledMcpServers": ["github"]}
  },
  "mcpServers": {
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},
    "sentry": {"type": "sse", "url": "https://mcp.sentry.dev/sse"}
  }
}`

// TestClaudeCodeTurnedOff: what `/mcp disable` and the approval settings
// turn off is disabled, in the file that defines the server (Parse) or,
// for .mcp.json, through a Ruling; approvals grant nothing.
func TestClaudeCodeTurnedOff(t *testing.T) {
	const user = "/home/ada/.claude.json"
	disabled := func(loc Location) map[string]bool {
		t.Helper()
		entries, warnings, err := parseClaudeCode(loc, []byte(claudeHome), adaptersEnv)
		if err != nil || warnings != nil {
			t.Fatalf("Parse: %v, %v", err, diagTexts(warnings))
		}
		out := map[string]bool{}
		for _, e := range entries {
			out[e.Config.Name] = e.Config.Disabled
		}
		return out
	}
	if diff := cmp.Diff(map[string]bool{"playwright": true, "notes": false}, disabled(Location{Path: user, Level: config.LevelUser, Key: claudeLocalKey})); diff != "" {
		t.Errorf("local scope disabled (-want +got):\n%s", diff)
	}
	// Another project's list is not this one's.
	if diff := cmp.Diff(map[string]bool{"github": false, "sentry": true}, disabled(Location{Path: user, Level: config.LevelUser})); diff != "" {
		t.Errorf("user scope disabled (-want +got):\n%s", diff)
	}

	mcpJSON := "/home/ada/src/app/.mcp.json"
	tests := []struct {
		name string
		loc  Location
		data string
		want []Ruling
		warn []string
	}{{
		name: "the project's ~/.claude.json list turns .mcp.json servers off too",
		loc:  Location{Path: user, Level: config.LevelUser, Key: claudeLocalKey},
		data: claudeHome,
		want: []Ruling{{Path: mcpJSON, Names: []string{"sentry", "playwright", "shared-db"}}},
	}, {
		name: "the user-scope part rules nothing (the local part did)",
		loc:  Location{Path: user, Level: config.LevelUser},
		data: claudeHome,
	}, {
		name: "settings.local.json, as Claude Code writes a rejection",
		loc:  Location{Path: "/home/ada/src/app/.claude/settings.local.json", Level: config.LevelProject},
		data: `{
  "permissions": {"allow": ["Bash(npm test:*)"]},
  "enabledMcpjsonServers": ["approved"],
  "disabledMcpjsonServers": ["rejected"]
}`,
		want: []Ruling{{Path: mcpJSON, Names: []string{"rejected"}}},
	}, {
		name: "the user's settings.json, approving all and rejecting one",
		loc:  Location{Path: "/home/ada/.claude/settings.json", Level: config.LevelUser},
		data: `{"model": "opus", "enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["global-off"]}`,
		want: []Ruling{{Path: mcpJSON, Names: []string{"global-off"}}},
	}, {
		name: "lists of the wrong type are warnings, and rule nothing",
		loc:  Location{Path: "/home/ada/src/app/.claude/settings.json", Level: config.LevelProject},
		data: `{"enabledMcpjsonServers": "all", "disabledMcpjsonServers": [3], "enableAllProjectMcpServers": "yes"}`,
		warn: []string{
			`/home/ada/src/app/.claude/settings.json:1:27: field "enabledMcpjsonServers": want an array of strings, got string; ignored`,
			`/home/ada/src/app/.claude/settings.json:1:61: field "disabledMcpjsonServers[0]": want a string, got number; ignored`,
			`/home/ada/src/app/.claude/settings.json:1:95: field "enableAllProjectMcpServers": want true or false, got string; ignored`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, warnings, err := parseClaudeCode(tt.loc, []byte(tt.data), adaptersEnv)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if claudeSettings(tt.loc.Path) && entries != nil {
				t.Errorf("a settings file gave servers: %v", Configs(entries))
			}
			if diff := cmp.Diff(tt.warn, diagTexts(warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, claudeCodeRulings(tt.loc, []byte(tt.data), adaptersEnv)); diff != "" {
				t.Errorf("rulings (-want +got):\n%s", diff)
			}
		})
	}
	// With no project there is no .mcp.json to rule.
	if r := claudeCodeRulings(tests[2].loc, []byte(tests[2].data), Env{Home: "/home/ada"}); r != nil {
		t.Errorf("rulings with no project: %v", r)
	}
}

// TestMisplacedServers: a dedicated file's servers where its tool does
// not look are warned about, not ignored in silence; settings files,
// where other objects live too, are not second-guessed.
func TestMisplacedServers(t *testing.T) {
	tests := []struct {
		name, id string
		loc      Location
		data     string
		servers  []string
		warn     []string
	}{{
		name: ".mcp.json without the mcpServers wrapper",
		id:   "claude-code",
		loc:  Location{Path: "/home/ada/src/app/.mcp.json", Level: config.LevelProject},
		data: `{
  "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]},
  "servers": {"memory": {"type": "stdio", "command": "npx"}, "fetch": {"command": "uvx"}}
}`,
		warn: []string{
			`/home/ada/src/app/.mcp.json:2:3: server "filesystem": this looks like a server, but Claude Code reads servers only from "mcpServers"; ignored (move it into "mcpServers": {…})`,
			`/home/ada/src/app/.mcp.json:3:3: field "servers": "servers" is VS Code's key for servers; Claude Code reads them from "mcpServers", so the 2 servers here are ignored`,
		},
	}, {
		name:    "VS Code's servers in a Cursor file",
		id:      "cursor",
		loc:     Location{Path: "/home/ada/.cursor/mcp.json", Level: config.LevelUser},
		data:    `{"servers": {"fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]}}, "mcpServers": {"ok": {"command": "ok"}}}`,
		servers: []string{"ok"},
		warn: []string{
			`/home/ada/.cursor/mcp.json:1:2: field "servers": "servers" is VS Code's key for servers; Cursor reads them from "mcpServers", so the server here is ignored`,
		},
	}, {
		name: "mcpServers in a VS Code file",
		id:   "vscode",
		loc:  Location{Path: "/home/ada/.config/Code/User/mcp.json", Level: config.LevelUser},
		data: "{\n  // copied from a README\n  \"mcpServers\": {\"context7\": {\"command\": \"npx\", \"args\": [\"-y\", \"@upstash/context7-mcp\"]}},\n  \"inputs\": []\n}",
		warn: []string{
			`/home/ada/.config/Code/User/mcp.json:3:3: field "mcpServers": "mcpServers" is Claude's and Cursor's key for servers; VS Code reads them from "servers", so the server here is ignored`,
		},
	}, {
		name: "~/.claude.json holds much else, and is not second-guessed",
		id:   "claude-code",
		loc:  Location{Path: "/home/ada/.claude.json", Level: config.LevelUser},
		data: `{"statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}, "mcpServers": {}}`,
	}, {
		name:    "nor is VS Code's settings.json",
		id:      "vscode",
		loc:     Location{Path: "/home/ada/.config/Code/User/settings.json", Level: config.LevelUser},
		data:    `{"terminal.integrated.profiles.linux": {"zsh": {"path": "zsh"}}, "servers": {"x": {"command": "y"}}, "mcp": {"servers": {"s": {"command": "s"}}}}`,
		servers: []string{"s"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, warnings, err := ByID(tt.id).Parse(tt.loc, []byte(tt.data), adaptersEnv)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Config.Name)
			}
			if diff := cmp.Diff(tt.servers, names); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warn, diagTexts(warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestClaudeCodeRejectedTypes: entries Claude Code itself refuses to
// start are read as before, with a warning at the field.
func TestClaudeCodeRejectedTypes(t *testing.T) {
	const file = "/home/ada/.claude.json"
	in := `{"mcpServers": {
  "linear": {"url": "https://mcp.linear.app/mcp"},
  "unity": {"type": "streamableHttp", "url": "http://localhost:27183/mcp/"},
  "alias": {"type": "streamable-http", "url": "https://a.example/mcp"},
  "shout": {"type": "HTTP", "url": "https://b.example/mcp"},
  "local": {"command": "x"},
  "ws": {"type": "websocket", "url": "wss://c.example/mcp"}
}}`
	entries, warnings, err := parseClaudeCode(Location{Path: file, Level: config.LevelUser}, []byte(in), Env{})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]config.Transport{}
	for _, e := range entries {
		types[e.Config.Name] = e.Config.Type
	}
	wantTypes := map[string]config.Transport{"linear": config.TransportAuto, "unity": config.TransportHTTP, "alias": config.TransportHTTP,
		"shout": config.TransportHTTP, "local": config.TransportAuto, "ws": config.TransportAuto}
	if diff := cmp.Diff(wantTypes, types); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
	want := []string{
		file + `:2:21: server "linear": field "url": Claude Code rejects a url without "type" and does not start this server (add "type": "http" or "sse"); read here as streamable HTTP, falling back to SSE`,
		file + `:3:21: server "unity": field "type": Claude Code rejects the type "streamableHttp" and does not start this server (it takes "stdio", "http", "streamable-http" or "sse"); read here as streamable HTTP`,
		file + `:5:21: server "shout": field "type": Claude Code rejects the type "HTTP" and does not start this server (it takes "stdio", "http", "streamable-http" or "sse"); read here as streamable HTTP`,
	}
	if diff := cmp.Diff(want, diagTexts(warnings)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// Claude Desktop is another tool: the same file shape, no such rule.
	if _, w, _ := claudeDesktopFormat.Parse(Location{Path: "claude_desktop_config.json", Level: config.LevelUser}, []byte(in), Env{}); w != nil {
		t.Errorf("Claude Desktop warnings: %v", diagTexts(w))
	}
}

// TestClaudeCodeBadProjects: a "projects" that is not an object fails the
// local scope, as before, and leaves the user's servers standing.
func TestClaudeCodeBadProjects(t *testing.T) {
	data := []byte(`{"projects": 3, "mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}}`)
	if _, _, err := parseClaudeCode(Location{Path: "c.json", Level: config.LevelUser, Key: claudeLocalKey}, data, adaptersEnv); err == nil {
		t.Error("local scope: no error")
	}
	entries, _, err := parseClaudeCode(Location{Path: "c.json", Level: config.LevelUser}, data, adaptersEnv)
	if err != nil || len(entries) != 1 {
		t.Errorf("user scope: %v, %v", Configs(entries), err)
	}
}
