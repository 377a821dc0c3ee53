package source

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config"
)

// TestOlderShapes reads the keys and places a tool has moved on from but
// still reads (or migrates on load): Gemini CLI's version 1 server lists,
// VS Code's "mcp" setting in settings.json, Windsurf's JetBrains file.
func TestOlderShapes(t *testing.T) {
	tests := []struct {
		name, id string
		loc      Location
		data     string
		want     map[string]bool // server → disabled
		warn     []string
	}{{
		name: "Gemini CLI v1: excludeMCPServers",
		id:   "gemini",
		loc:  Location{Path: "/home/ada/.gemini/settings.json", Level: config.LevelUser},
		data: `{
  "theme": "GitHub",
  "excludeMCPServers": ["legacy"],
  "mcpServers": {"legacy": {"command": "legacy-mcp"}, "current": {"command": "current-mcp"}}
}`,
		want: map[string]bool{"legacy": true, "current": false},
	}, {
		name: "Gemini CLI v1: allowMCPServers",
		id:   "gemini",
		loc:  Location{Path: "/home/ada/.gemini/settings.json", Level: config.LevelUser},
		data: `{"allowMCPServers": ["current"], "mcpServers": {"legacy": {"command": "l"}, "current": {"command": "c"}}}`,
		want: map[string]bool{"legacy": true, "current": false},
	}, {
		name: "Gemini CLI: the nested list wins over the v1 one",
		id:   "gemini",
		loc:  Location{Path: "/home/ada/.gemini/settings.json", Level: config.LevelUser},
		data: `{"allowMCPServers": ["legacy"], "mcp": {"allowed": ["current"]}, "mcpServers": {"legacy": {"command": "l"}, "current": {"command": "c"}}}`,
		want: map[string]bool{"legacy": true, "current": false},
	}, {
		name: "Gemini CLI v1: a list of the wrong type is a warning",
		id:   "gemini",
		loc:  Location{Path: "/home/ada/.gemini/settings.json", Level: config.LevelUser},
		data: `{"excludeMCPServers": "legacy", "mcpServers": {"legacy": {"command": "l"}}}`,
		want: map[string]bool{"legacy": false},
		warn: []string{`/home/ada/.gemini/settings.json:1:23: field "excludeMCPServers": want an array of strings, got string; ignored`},
	}, {
		name: "VS Code before 1.102: the mcp setting in settings.json",
		id:   "vscode",
		loc:  Location{Path: "/home/ada/.config/Code/User/settings.json", Level: config.LevelUser},
		data: `{
  "editor.fontSize": 13,
  "mcp": {
    "inputs": [],
    "servers": {
      "perplexity": {"type": "stdio", "command": "npx", "args": ["-y", "server-perplexity-ask"]},
    }
  },
}`,
		want: map[string]bool{"perplexity": false},
	}, {
		name: "VS Code settings.json with no mcp setting",
		id:   "vscode",
		loc:  Location{Path: "/home/ada/.config/Code/User/settings.json", Level: config.LevelUser},
		data: `{"editor.fontSize": 13, "servers": {"not": {"command": "read"}}}`,
	}, {
		name: "Windsurf's JetBrains plugin file",
		id:   "windsurf",
		loc:  Location{Path: "/home/ada/.codeium/mcp_config.json", Level: config.LevelUser},
		data: `{"mcpServers": {"jetbrains-only": {"command": "npx", "args": ["-y", "jb-mcp"]}}}`,
		want: map[string]bool{"jetbrains-only": false},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ByID(tt.id)
			entries, warnings, err := p.Parse(tt.loc, []byte(tt.data), adaptersEnv)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var got map[string]bool
			for _, e := range entries {
				if e.Config.Err != nil {
					t.Errorf("%s: %v", e.Config.Name, e.Config.Err)
				}
				if got == nil {
					got = map[string]bool{}
				}
				got[e.Config.Name] = e.Config.Disabled
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warn, diagTexts(warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if Detect(tt.loc.Path, []byte(tt.data)) != p {
				t.Errorf("Detect(%s) is not %s", tt.loc.Path, p.Name)
			}
		})
	}
}
