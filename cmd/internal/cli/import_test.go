package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config/edit"
)

// An app's entry becomes ours with its references in our syntax, a
// literal "!" kept literal, and what only the app can resolve refused.
func TestPortable(t *testing.T) {
	for _, tc := range []struct {
		app, file, name string
		want            map[string]any // "" for a refusal, in why
		why             string
	}{{
		app: "vscode", name: "gh",
		file: `{"servers": {"gh": {"type": "stdio", "command": "gh-mcp", "args": ["--home", "${userHome}/x"], "env": {"T": "${env:GH_TOKEN}", "L": "!literal"}}}}`,
		want: map[string]any{"type": "stdio", "command": "gh-mcp", "args": []any{"--home", "${HOME}/x"}, "env": map[string]any{"T": "${GH_TOKEN}", "L": "!!literal"}},
	}, {
		app: "vscode", name: "ask",
		file: `{"servers": {"ask": {"command": "x", "env": {"K": "${input:key}"}}}}`,
		why:  "only the app can resolve",
	}, {
		app: "gemini", name: "py",
		file: `{"mcpServers": {"py": {"command": "python", "args": ["$ROOT/srv.py"], "cwd": "/srv", "timeout": 15000, "excludeTools": ["rm"]}}}`,
		want: map[string]any{"command": "python", "args": []any{"${ROOT}/srv.py"}, "cwd": "/srv", "timeout": "15s", "tools": map[string]any{"deny": []any{"rm"}}},
	}, {
		app: "opencode", name: "web",
		file: `{"mcp": {"web": {"type": "remote", "url": "https://{env:HOST}/mcp", "headers": {"Authorization": "Bearer {env:TOKEN}"}, "enabled": false}}}`,
		want: map[string]any{"url": "https://${HOST}/mcp", "headers": map[string]any{"Authorization": "Bearer ${TOKEN}"}, "disabled": true},
	}, {
		app: "codex", name: "figma",
		file: "[mcp_servers.figma]\nurl = \"https://mcp.figma.com/mcp\"\nbearer_token_env_var = \"FIGMA_TOKEN\"\n",
		want: map[string]any{"type": "http", "url": "https://mcp.figma.com/mcp", "headers": map[string]any{"Authorization": "Bearer ${FIGMA_TOKEN}"}},
	}} {
		t.Run(tc.app+"/"+tc.name, func(t *testing.T) {
			c := edit.ClientByID(tc.app)
			path := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			entries, err := c.Entries(path, portableEnv)
			if err != nil || len(entries) != 1 {
				t.Fatalf("entries: %d, %v", len(entries), err)
			}
			raw, why := portable(entries[0])
			if tc.why != "" {
				if !strings.Contains(why, tc.why) {
					t.Fatalf("why = %q, want %q", why, tc.why)
				}
				return
			}
			if why != "" {
				t.Fatal(why)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// And our config reads it.
			if _, err := checkEntryJSON(tc.name, raw); err != nil {
				t.Errorf("our config refuses it: %v", err)
			}
		})
	}
}
