package source

import "testing"

func TestDetect(t *testing.T) {
	tests := []struct {
		path, data, want string
	}{
		{"/h/.cursor/mcp.json", `{"mcpServers": {"a": {"serverUrl": "x"}}}`, "cursor"}, // the name decides first
		{"/h/.claude.json", `{}`, "claude-code"},
		{"/p/.mcp.json", `{}`, "claude-code"},
		{"/h/.vscode/mcp.json", `{}`, "vscode"},
		{"/tmp/x.json", `{"servers": {"a": {"command": "x"}}}`, "vscode"},
		{"/tmp/x.json", `{"mcpServers": {"a": {"serverUrl": "https://x"}}}`, "windsurf"},
		{"/tmp/x.json", `{"mcpServers": {"a": {"httpUrl": "https://x"}}}`, "gemini"},
		{"/tmp/x.json", `{"mcpServers": {"a": {"transportType": "sse"}}}`, "cline"},
		{"/tmp/x.json", `{"$schema": "https://charm.land/crush.json", "mcp": {}}`, "crush"},
		{"/tmp/x.json", `{"mcpServers": {"a": {"command": "x"}}}`, "switchboard"},
		{"/tmp/x.json", `not json`, "switchboard"},
		{"/h/.gemini/settings.json", `{}`, "gemini"},
		{"/h/.kiro/settings/mcp.json", `{}`, "kiro"},
		{"/h/.lmstudio/mcp.json", `{}`, "lmstudio"},
		{"/x/claude_desktop_config.json", `{}`, "claude-desktop"},
		{"/x/cline_mcp_settings.json", `{}`, "cline"},
		{"/x/.switchboard/mcp.json", `{"servers": {}}`, "switchboard"},
	}
	for _, tt := range tests {
		if got := Detect(tt.path, []byte(tt.data)); got.ID != tt.want {
			t.Errorf("Detect(%q, %q) = %s, want %s", tt.path, tt.data, got.ID, tt.want)
		}
	}
}
