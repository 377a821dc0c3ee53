package source

import (
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
)

// fuzzProvider fuzzes one adapter's Parse, seeded with its samples: it
// never panics, a file error is one positioned *config.Diagnostic with no
// servers, and every server, warning and server error points into the file.
func fuzzProvider(f *testing.F, id string, samples ...string) {
	p := ByID(id)
	if p == nil {
		f.Fatalf("provider %q is not registered", id)
	}
	for _, s := range samples {
		data, err := os.ReadFile("testdata/" + s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	for _, s := range []string{
		"", "{}", "[]", "null", "\xef\xbb\xbf{}", "// c\n{}", "{,}", `{"a": 1,}`,
		`{"mcpServers": 3, "servers": [], "mcp": "x"}`,
		`{"mcpServers": {"a": [], "b": {"type": 1, "url": 2, "command": {}, "args": [1], "env": {"A": []}}}}`,
		`{"servers": {"a": {"command": "${input:x}", "args": ["${workspaceFolder}"], "envFile": 3}}}`,
		`{"mcp": {"a": {"type": "stdio", "command": "x", "env": {"A": "$(echo", "B": "$(x)"}}}}`,
		`{"mcpServers": {"a": {"httpUrl": "h", "url": "u", "serverUrl": "s", "timeout": 1e400, "disabled": "x"}}}`,
		`{"projects": {"/home/ada/src/app": {"mcpServers": {"a": {"command": "x"}, "a": {}}}}}`,
		`{"projects": {"/home/ada/src/app": {"disabledMcpServers": ["a", 1]}}, "mcpServers": {"a": {"url": "u"}, "b": {"type": "streamableHttp", "url": "u"}}}`,
		`{"enabledMcpjsonServers": "x", "disabledMcpjsonServers": ["a"], "enableAllProjectMcpServers": 1}`,
		`{"allowMCPServers": ["a"], "excludeMCPServers": [2], "mcp": {"allowed": 3, "servers": {"a": {"command": "x"}}}}`,
		`{"fs": {"command": "npx"}, "servers": {"a": {}}, "mcpServers": {"b": {"args": ["${env:X}", "{env:Y}", "$Z", "${{ secrets.W }}"]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, loc := range []Location{
			{Path: "f.json", Level: config.LevelProject},
			{Path: "f.json", Level: config.LevelUser, Key: claudeLocalKey},
			{Path: "f.json", Level: config.LevelExplicit},
			// Settings files: Claude Code's, VS Code's user settings.
			{Path: "settings.json", Level: config.LevelUser},
			{Path: "settings.local.json", Level: config.LevelProject},
		} {
			checkParse(t, p, loc, data, adaptersEnv)
			if p.Rulings != nil {
				for _, r := range p.Rulings(loc, data, adaptersEnv) {
					if r.Path == "" || len(r.Names) == 0 {
						t.Errorf("empty ruling %+v", r)
					}
				}
			}
		}
	})
}

func FuzzClaudeCode(f *testing.F) {
	fuzzProvider(f, "claude-code", "claude-code/claude.json", "claude-code/mcp.json")
}
func FuzzClaudeDesktop(f *testing.F) {
	fuzzProvider(f, "claude-desktop", "claude-desktop/claude_desktop_config.json")
}
func FuzzCursor(f *testing.F)   { fuzzProvider(f, "cursor", "cursor/mcp.json") }
func FuzzVSCode(f *testing.F)   { fuzzProvider(f, "vscode", "vscode/mcp.json") }
func FuzzWindsurf(f *testing.F) { fuzzProvider(f, "windsurf", "windsurf/mcp_config.json") }
func FuzzCline(f *testing.F)    { fuzzProvider(f, "cline", "cline/cline_mcp_settings.json") }
func FuzzGemini(f *testing.F)   { fuzzProvider(f, "gemini", "gemini/settings.json") }
func FuzzKiro(f *testing.F)     { fuzzProvider(f, "kiro", "kiro/mcp.json") }
func FuzzLMStudio(f *testing.F) { fuzzProvider(f, "lmstudio", "lmstudio/mcp.json") }
func FuzzCrush(f *testing.F)    { fuzzProvider(f, "crush", "crush/crush.json") }
