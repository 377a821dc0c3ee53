package source

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-mcp/switchboard/config"
)

// adaptersEnv is the machine the adapter samples were written on.
var adaptersEnv = Env{Home: "/home/ada", ProjectDir: "/home/ada/src/app", GOOS: "linux", Lookup: config.MapLookup(nil)}

// TestAdapters reads each JSON-family tool's sample file, written as that
// tool's documentation shows it (peculiarities included), and compares the
// canonical configs, per-server errors and warnings. Nothing is
// substituted yet: each tool's variables are resolved by Entry.Substitute
// once discovery knows the server may start (TestSampleSubstitution).
func TestAdapters(t *testing.T) {
	src := func(provider, path string, level config.Level, line int) config.Source {
		return config.Source{Provider: provider, Path: path, Level: level, Line: line}
	}
	const (
		claudeUser    = "testdata/claude-code/claude.json"
		claudeProject = "testdata/claude-code/mcp.json"
		desktop       = "testdata/claude-desktop/claude_desktop_config.json"
		cursor        = "testdata/cursor/mcp.json"
		vscode        = "testdata/vscode/mcp.json"
		windsurf      = "testdata/windsurf/mcp_config.json"
		cline         = "testdata/cline/cline_mcp_settings.json"
		gemini        = "testdata/gemini/settings.json"
		kiro          = "testdata/kiro/mcp.json"
		lmstudio      = "testdata/lmstudio/mcp.json"
		crush         = "testdata/crush/crush.json"
	)
	tests := []struct {
		name  string
		id    string
		loc   Location
		want  []config.ServerConfig
		errs  []string // per server, "" for none
		warns []string
	}{{
		name: "Claude Code local scope",
		id:   "claude-code",
		loc:  Location{Path: claudeUser, Level: config.LevelUser, Key: claudeLocalKey},
		want: []config.ServerConfig{{
			Name: "playwright", Type: config.TransportStdio, Command: "npx", Args: []string{"@playwright/mcp@latest"},
			Source: src("Claude Code", claudeUser, config.LevelUser, 11),
		}},
	}, {
		name: "Claude Code user scope",
		id:   "claude-code",
		loc:  Location{Path: claudeUser, Level: config.LevelUser},
		want: []config.ServerConfig{{
			Name: "github", Type: config.TransportHTTP, URL: "https://api.githubcopilot.com/mcp/",
			Headers: map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}"},
			Source:  src("Claude Code", claudeUser, config.LevelUser, 27),
		}, {
			Name: "sentry", Type: config.TransportSSE, URL: "https://mcp.sentry.dev/sse",
			Source: src("Claude Code", claudeUser, config.LevelUser, 32),
		}, {
			Name: "airtable", Type: config.TransportStdio, Command: "npx", Args: []string{"-y", "airtable-mcp-server"},
			Env:    map[string]string{"AIRTABLE_API_KEY": "${AIRTABLE_API_KEY:-}"},
			Source: src("Claude Code", claudeUser, config.LevelUser, 33),
		}},
	}, {
		name: "Claude Code project scope",
		id:   "claude-code",
		loc:  Location{Path: claudeProject, Level: config.LevelProject},
		want: []config.ServerConfig{{
			Name: "shared-db", Command: "/usr/local/bin/db-mcp", Args: []string{"--dsn", "${DB_URL:-postgres://localhost/dev}"},
			Source: src("Claude Code", claudeProject, config.LevelProject, 3),
		}, {
			Name: "api-server", Type: config.TransportHTTP, URL: "${API_BASE_URL:-https://api.example.com}/mcp",
			Headers: map[string]string{"Authorization": "Bearer ${API_KEY}"},
			Source:  src("Claude Code", claudeProject, config.LevelProject, 8),
		}, {
			Name: "broken", URL: "wss://example.com/mcp",
			Source: src("Claude Code", claudeProject, config.LevelProject, 13),
		}, {
			Name:   "odd",
			Source: src("Claude Code", claudeProject, config.LevelProject, 14),
		}},
		errs: []string{"", "",
			claudeProject + `:13:24: server "broken": field "type": unknown type "websocket" (want stdio, http or sse)`,
			claudeProject + `:14:24: server "odd": field "command": want a string, got array`,
		},
	}, {
		name: "Claude Desktop",
		id:   "claude-desktop",
		loc:  Location{Path: desktop, Level: config.LevelUser},
		want: []config.ServerConfig{{
			Name: "filesystem", Command: "npx",
			Args:   []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop", "/Users/ada/Downloads"},
			Source: src("Claude Desktop", desktop, config.LevelUser, 3),
		}, {
			Name: "github", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"},
			Env:    map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>"},
			Source: src("Claude Desktop", desktop, config.LevelUser, 12),
		}},
	}, {
		name: "Cursor: comments, trailing commas, interpolation, envFile",
		id:   "cursor",
		loc:  Location{Path: cursor, Level: config.LevelProject},
		want: []config.ServerConfig{{
			Name: "userjot", URL: "https://api.userjot.com/v1/mcp",
			Headers: map[string]string{"Authorization": "Bearer ${env:USERJOT_API_TOKEN}"},
			Source:  src("Cursor", cursor, config.LevelProject, 4),
		}, {
			Name: "local-tools", Type: config.TransportStdio, Command: "${userHome}/bin/tools-mcp",
			Args:   []string{"--root", "${workspaceFolder}", "--name", "${workspaceFolderBasename}"},
			Env:    map[string]string{"API_KEY": "value"},
			Source: src("Cursor", cursor, config.LevelProject, 10),
		}},
		warns: []string{cursor + `:15:18: server "local-tools": field "envFile": envFile is not supported; ignored (put the variables in env)`},
	}, {
		name: "VS Code: servers, inputs, workspaceFolder",
		id:   "vscode",
		loc:  Location{Path: vscode, Level: config.LevelProject},
		want: []config.ServerConfig{{
			Name: "Perplexity", Type: config.TransportStdio, Command: "npx", Args: []string{"-y", "server-perplexity-ask"},
			Env:    map[string]string{"PERPLEXITY_API_KEY": "${input:perplexity-key}"},
			Source: src("VS Code", vscode, config.LevelProject, 13),
		}, {
			Name: "fetch", Type: config.TransportStdio, Command: "uvx", Args: []string{"mcp-server-fetch"}, Cwd: "${workspaceFolder}",
			Source: src("VS Code", vscode, config.LevelProject, 21),
		}, {
			Name: "github", Type: config.TransportHTTP, URL: "https://api.githubcopilot.com/mcp/",
			Source: src("VS Code", vscode, config.LevelProject, 27),
		}, {
			Name: "memory", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"},
			Env:    map[string]string{"MEMORY_FILE_PATH": "${workspaceFolder}/.memory.json", "DEBUG": "1"},
			Source: src("VS Code", vscode, config.LevelProject, 31),
		}},
		warns: []string{vscode + `:35:18: server "memory": field "envFile": envFile is not supported; ignored (put the variables in env)`},
	}, {
		name: "Windsurf: serverUrl, disabledTools",
		id:   "windsurf",
		loc:  Location{Path: windsurf, Level: config.LevelUser},
		want: []config.ServerConfig{{
			Name: "github", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"},
			Env:    map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GITHUB_TOKEN}"},
			Source: src("Windsurf", windsurf, config.LevelUser, 3),
		}, {
			Name: "figma", URL: "https://mcp.figma.com/mcp",
			Headers: map[string]string{"Authorization": "Bearer ${env:AUTH_TOKEN}"},
			Source:  src("Windsurf", windsurf, config.LevelUser, 10),
		}, {
			Name: "docs", URL: "https://docs.example.com/mcp",
			Source: src("Windsurf", windsurf, config.LevelUser, 16),
		}, {
			Name: "old", Command: "old-mcp", Disabled: true, Tools: config.ToolFilter{Deny: []string{"dangerous"}},
			Source: src("Windsurf", windsurf, config.LevelUser, 17),
		}},
	}, {
		name: "Cline: url without type is SSE, timeout in seconds, transportType",
		id:   "cline",
		loc:  Location{Path: cline, Level: config.LevelUser},
		want: []config.ServerConfig{{
			Name: "brave-search", Command: "node", Args: []string{"/home/ada/Documents/Cline/MCP/brave-search/dist/index.js"},
			Env:         map[string]string{"BRAVE_API_KEY": "BSA-example"},
			AutoApprove: []string{"brave_web_search"}, Timeout: 120 * time.Second,
			Source: src("Cline", cline, config.LevelUser, 3),
		}, {
			Name: "remote-legacy", Type: config.TransportSSE, URL: "https://mcp.example.com/sse", Disabled: true,
			Source: src("Cline", cline, config.LevelUser, 11),
		}, {
			Name: "streamable", Type: config.TransportHTTP, URL: "https://mcp.example.com/mcp",
			Headers: map[string]string{"X-Api-Key": "k"}, Timeout: 60 * time.Second,
			Source: src("Cline", cline, config.LevelUser, 16),
		}, {
			Name: "older", Type: config.TransportStdio, Command: "python", Args: []string{"-m", "older_mcp"},
			Source: src("Cline", cline, config.LevelUser, 22),
		}},
		warns: []string{cline + `:26:18: server "older": field "timeout": want a number of seconds, got string; ignored`},
	}, {
		name: "Gemini CLI: httpUrl vs url, tool filters, ms timeouts, $VAR, mcp.excluded",
		id:   "gemini",
		loc:  Location{Path: gemini, Level: config.LevelUser},
		want: []config.ServerConfig{{
			Name: "pythonTools", Command: "python", Args: []string{"-m", "my_mcp_server", "--port", "8080"},
			Cwd:     "./mcp-servers/python",
			Env:     map[string]string{"DATABASE_URL": "$DB_CONNECTION_STRING", "API_KEY": "${EXTERNAL_API_KEY}"},
			Timeout: 15 * time.Second, Source: src("Gemini CLI", gemini, config.LevelUser, 8),
		}, {
			Name: "httpServerWithAuth", Type: config.TransportHTTP, URL: "http://localhost:3000/mcp",
			Headers: map[string]string{"Authorization": "Bearer your-api-token"}, Timeout: 5 * time.Second,
			Source: src("Gemini CLI", gemini, config.LevelUser, 18),
		}, {
			Name: "sseServer", Type: config.TransportSSE, URL: "http://localhost:8080/sse", AutoApprove: []string{"*"},
			Source: src("Gemini CLI", gemini, config.LevelUser, 23),
		}, {
			Name: "filteredServer", Command: "python", Args: []string{"-m", "my_mcp_server"},
			Tools:   config.ToolFilter{Allow: []string{"safe_tool", "file_reader", "data_processor"}, Deny: []string{"dangerous_tool"}},
			Timeout: 30 * time.Second, Source: src("Gemini CLI", gemini, config.LevelUser, 24),
		}, {
			Name: "experimental", Command: "exp-mcp", Disabled: true,
			Source: src("Gemini CLI", gemini, config.LevelUser, 32),
		}},
	}, {
		name: "Kiro: autoApprove, disabledTools",
		id:   "kiro",
		loc:  Location{Path: kiro, Level: config.LevelProject},
		want: []config.ServerConfig{{
			Name: "local-server-name", Command: "command-to-run-server", Args: []string{"arg1", "arg2"},
			Env:         map[string]string{"ENV_VAR1": "hard-coded-variable", "ENV_VAR2": "${EXPANDED_VARIABLE}"},
			AutoApprove: []string{"tool_name1", "tool_name2"}, Tools: config.ToolFilter{Deny: []string{"tool_name3"}},
			Source: src("Kiro", kiro, config.LevelProject, 3),
		}, {
			Name: "remote-server-name", URL: "https://endpoint.to.connect.to",
			Headers: map[string]string{"HEADER1": "value1", "HEADER2": "value2"}, Disabled: true,
			Source: src("Kiro", kiro, config.LevelProject, 14),
		}},
		warns: []string{kiro + `:21:22: server "remote-server-name": field "autoApprove": want an array of strings, got string; ignored`},
	}, {
		name: "LM Studio",
		id:   "lmstudio",
		loc:  Location{Path: lmstudio, Level: config.LevelUser},
		want: []config.ServerConfig{{
			Name: "hf-mcp-server", URL: "https://huggingface.co/mcp",
			Headers: map[string]string{"Authorization": "Bearer <YOUR_HF_TOKEN>"},
			Source:  src("LM Studio", lmstudio, config.LevelUser, 3),
		}, {
			Name: "js-code-sandbox", Command: "node", Args: []string{"/home/ada/.lmstudio/extensions/plugins/mcp/js-code-sandbox/index.js"},
			Source: src("LM Studio", lmstudio, config.LevelUser, 9),
		}},
	}, {
		name: "Crush: mcp key, $(command), $VAR, disabled_tools",
		id:   "crush",
		loc:  Location{Path: crush, Level: config.LevelProject},
		want: []config.ServerConfig{{
			Name: "filesystem", Type: config.TransportStdio, Command: "node", Args: []string{"/path/to/mcp-server.js"},
			Env:    map[string]string{"NODE_ENV": "production"},
			Source: src("Crush", crush, config.LevelProject, 7),
		}, {
			Name: "github", Type: config.TransportHTTP, URL: "https://example.com/mcp/",
			Headers: map[string]string{"Authorization": "$(echo Bearer $EXAMPLE_MCP_TOKEN)"},
			Timeout: 2 * time.Minute, Tools: config.ToolFilter{Deny: []string{"create_issue"}},
			Source: src("Crush", crush, config.LevelProject, 15),
		}, {
			Name: "streaming-service", Type: config.TransportSSE, URL: "https://example.com/mcp/sse",
			Headers: map[string]string{"API-Key": "$(echo $API_KEY)"}, Disabled: true,
			Source: src("Crush", crush, config.LevelProject, 24),
		}, {
			Name: "env-style", Type: config.TransportStdio, Command: "srv",
			Env:    map[string]string{"TOKEN": "$MY_TOKEN", "MIXED": "built-$(date +%s)"},
			Source: src("Crush", crush, config.LevelProject, 32),
		}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ByID(tt.id)
			if p == nil {
				t.Fatalf("provider %q is not registered", tt.id)
			}
			data, err := os.ReadFile(tt.loc.Path)
			if err != nil {
				t.Fatal(err)
			}
			got, warns, err := parseConfigs(p, tt.loc, data, adaptersEnv)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, ignoreErr); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			wantErrs := tt.errs
			if wantErrs == nil {
				wantErrs = make([]string, len(tt.want))
			}
			if diff := cmp.Diff(wantErrs, errText(got)); diff != "" {
				t.Errorf("server errors (-want +got):\n%s", diff)
			}
			var gotWarns []string
			for _, w := range warns {
				gotWarns = append(gotWarns, w.Error())
			}
			if diff := cmp.Diff(tt.warns, gotWarns); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAdaptersMalformed checks that every provider reports a broken file
// as one positioned error and no servers.
func TestAdaptersMalformed(t *testing.T) {
	tests := []struct {
		data, want string
	}{
		{"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"\n}", "f.json:4:2: unexpected end of input (is the file truncated?)"},
		{"[]", "f.json:1:1: top level must be an object, got array"},
		// The wording is encoding/json's for plain JSON and hujson's for
		// JSONC; the position is the same.
		{"{\"mcpServers\": {\"a\": \"x\"} x}", "f.json:1:27: invalid character 'x' after object"},
	}
	for _, p := range jsonFamily(t) {
		for _, tt := range tests {
			servers, _, err := parseConfigs(p, Location{Path: "f.json", Level: config.LevelUser}, []byte(tt.data), adaptersEnv)
			if err == nil || servers != nil {
				t.Errorf("%s: Parse(%q) = %v, %v; want an error", p.ID, tt.data, servers, err)
				continue
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("%s: Parse(%q) error %q, want %q…", p.ID, tt.data, err, tt.want)
			}
		}
	}
}

// TestAdaptersWrongServersKey: the key that holds the servers must be an
// object.
func TestAdaptersWrongServersKey(t *testing.T) {
	for _, p := range jsonFamily(t) {
		key := map[string]string{"vscode": "servers", "crush": "mcp"}[p.ID]
		if key == "" {
			key = "mcpServers"
		}
		data := "{\n  \"" + key + "\": [1]\n}"
		_, _, err := parseConfigs(p, Location{Path: "f.json", Level: config.LevelUser}, []byte(data), adaptersEnv)
		want := `f.json:2:` + strconv.Itoa(len(key)+7) + `: field "` + key + `": want an object of server configs by name, got array`
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %s", p.ID, err, want)
		}
	}
}

// jsonFamily is the providers this file's adapters implement.
func jsonFamily(t testing.TB) []*Provider {
	var out []*Provider
	for _, id := range []string{"claude-code", "claude-desktop", "cursor", "vscode", "windsurf", "cline", "gemini", "kiro", "lmstudio", "crush"} {
		p := ByID(id)
		if p == nil {
			t.Fatalf("provider %q is not registered", id)
		}
		out = append(out, p)
	}
	return out
}

// TestProviderLocations pins where each provider looks, on Linux and
// macOS, project level first.
func TestProviderLocations(t *testing.T) {
	env := Env{Home: "/h", ProjectDir: "/p", GOOS: "linux", Lookup: config.MapLookup(map[string]string{"XDG_CONFIG_HOME": "/xdg"})}
	mac := env
	mac.GOOS, mac.Lookup = "darwin", config.MapLookup(nil)
	claudeDir := env
	claudeDir.Lookup = config.MapLookup(map[string]string{"CLAUDE_CONFIG_DIR": "/cc"})
	loc := func(path string, level config.Level) Location {
		return Location{Path: filepath.FromSlash(path), Level: level}
	}
	tests := []struct {
		id   string
		env  Env
		want []Location
	}{
		{"switchboard", env, []Location{loc("/p/.switchboard/mcp.json", config.LevelProject), loc("/xdg/switchboard/mcp.json", config.LevelUser)}},
		{"claude-code", env, []Location{
			{Path: "/h/.claude.json", Level: config.LevelUser, Key: claudeLocalKey, MaxSize: claudeUserMaxSize},
			loc("/p/.mcp.json", config.LevelProject), {Path: "/h/.claude.json", Level: config.LevelUser, MaxSize: claudeUserMaxSize},
			loc("/p/.claude/settings.local.json", config.LevelProject), loc("/p/.claude/settings.json", config.LevelProject),
			loc("/h/.claude/settings.json", config.LevelUser)}},
		{"claude-code", claudeDir, []Location{
			{Path: "/cc/.claude.json", Level: config.LevelUser, Key: claudeLocalKey, MaxSize: claudeUserMaxSize},
			loc("/p/.mcp.json", config.LevelProject), {Path: "/cc/.claude.json", Level: config.LevelUser, MaxSize: claudeUserMaxSize},
			loc("/p/.claude/settings.local.json", config.LevelProject), loc("/p/.claude/settings.json", config.LevelProject),
			loc("/cc/settings.json", config.LevelUser)}},
		{"claude-desktop", env, []Location{loc("/xdg/Claude/claude_desktop_config.json", config.LevelUser)}},
		{"claude-desktop", mac, []Location{loc("/h/Library/Application Support/Claude/claude_desktop_config.json", config.LevelUser)}},
		{"cursor", env, []Location{loc("/p/.cursor/mcp.json", config.LevelProject), loc("/h/.cursor/mcp.json", config.LevelUser)}},
		{"vscode", env, []Location{loc("/p/.vscode/mcp.json", config.LevelProject), loc("/xdg/Code/User/mcp.json", config.LevelUser),
			loc("/xdg/Code/User/settings.json", config.LevelUser)}},
		{"vscode", mac, []Location{loc("/p/.vscode/mcp.json", config.LevelProject), loc("/h/Library/Application Support/Code/User/mcp.json", config.LevelUser),
			loc("/h/Library/Application Support/Code/User/settings.json", config.LevelUser)}},
		{"windsurf", env, []Location{loc("/p/.windsurf/mcp_config.json", config.LevelProject), loc("/h/.codeium/windsurf/mcp_config.json", config.LevelUser),
			loc("/h/.codeium/mcp_config.json", config.LevelUser)}},
		{"cline", env, []Location{
			loc("/xdg/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", config.LevelUser),
			loc("/h/.cline/data/settings/cline_mcp_settings.json", config.LevelUser)}},
		{"gemini", env, []Location{loc("/p/.gemini/settings.json", config.LevelProject), loc("/h/.gemini/settings.json", config.LevelUser)}},
		{"kiro", env, []Location{loc("/p/.kiro/settings/mcp.json", config.LevelProject), loc("/h/.kiro/settings/mcp.json", config.LevelUser)}},
		{"lmstudio", env, []Location{loc("/h/.lmstudio/mcp.json", config.LevelUser)}},
		{"crush", env, []Location{loc("/p/.crush.json", config.LevelProject), loc("/p/crush.json", config.LevelProject), loc("/xdg/crush/crush.json", config.LevelUser)}},
	}
	for _, tt := range tests {
		got := ByID(tt.id).Locations(tt.env)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s on %s: locations (-want +got):\n%s", tt.id, tt.env.GOOS, diff)
		}
	}
}

// TestProvidersOrder: All lists the providers as the DESIGN.md "Sources" list
// does, each once, each complete.
func TestProvidersOrder(t *testing.T) {
	var ids []string
	seen := map[string]bool{}
	for _, p := range All() {
		if p.Name == "" || p.ID == "" || p.Locations == nil || p.Parse == nil || p.Sniff == nil {
			t.Errorf("provider %q/%q is missing a field", p.Name, p.ID)
		}
		if seen[p.ID] {
			t.Errorf("provider %q listed twice", p.ID)
		}
		seen[p.ID] = true
		ids = append(ids, p.ID)
	}
	want := []string{"switchboard", "claude-code", "claude-desktop", "cursor", "vscode", "windsurf", "cline", "codex",
		"gemini", "opencode", "zed", "goose", "kiro", "lmstudio", "crush", "continue"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("provider order (-§8 +All):\n%s", diff)
	}
}
