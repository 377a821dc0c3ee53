package source

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-mcp/switchboard/config"
)

func TestCodexSample(t *testing.T) {
	const file = "codex/config.toml"
	got, warnings := foreignSample(t, codexFormat, file, config.LevelUser)
	src := func(line int) config.Source { return foreignSource(codexFormat, file, config.LevelUser, line) }
	want := []config.ServerConfig{{
		Name:    "context7",
		Type:    config.TransportStdio,
		Command: "npx",
		Args:    []string{"-y", "@upstash/context7-mcp"},
		Env:     map[string]string{"MY_ENV_VAR": "MY_ENV_VALUE"},
		Source:  src(8),
	}, {
		Name:    "github",
		Type:    config.TransportStdio,
		Command: "docker",
		Args:    []string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"},
		// env_vars pass variables through only when set, as Codex does;
		// env's own LOG_LEVEL wins over the pass-through.
		Env:            map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN:-}", "LOG_LEVEL": "info"},
		Cwd:            "/home/ada/src",
		StartupTimeout: 20 * time.Second,
		Timeout:        45500 * time.Millisecond,
		Tools:          config.ToolFilter{Allow: []string{"search_*", "get_file_contents"}, Deny: []string{"delete_repository"}},
		Source:         src(15),
	}, {
		Name: "figma",
		Type: config.TransportHTTP,
		URL:  "https://mcp.figma.com/mcp",
		Headers: map[string]string{
			"Authorization":  "Bearer ${FIGMA_OAUTH_TOKEN}",
			"X-Figma-Region": "${FIGMA_REGION:-us-east-1}", // the variable when set
			"X-Tenant":       "${FIGMA_TENANT:-}",
		},
		Source: src(31),
	}, {
		Name:           "chrome_devtools",
		Type:           config.TransportHTTP,
		URL:            "http://localhost:3000/mcp",
		Disabled:       true,
		StartupTimeout: 20 * time.Second,
		Source:         src(38),
	}, {
		Name:    "sqlite",
		Type:    config.TransportStdio,
		Command: "uvx",
		Args:    []string{"mcp-server-sqlite", "--db-path", "~/test.db"},
		Source:  src(45),
	}}
	if diff := cmp.Diff(want, got, foreignIgnoreErr); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if errs := serverErrs(got); len(errs) > 0 {
		t.Errorf("unexpected server errors: %v", errs)
	}
	wantWarnings := []string{
		`testdata/codex/config.toml:42:20: server "chrome_devtools": field "tool_timeout_sec": want a number of seconds, got string; ignored`,
	}
	if diff := cmp.Diff(wantWarnings, diagTexts(warnings)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestCodexCases(t *testing.T) {
	runForeignCases(t, codexFormat, "config.toml", []foreignCase{
		{name: "empty", in: "\n# nothing\n"},
		{name: "no servers", in: "model = \"o3\"\n[features]\nx = true\n"},
		{
			name: "dotted keys and an array of tables elsewhere",
			in:   "[[profiles]]\nname = \"a\"\n[[profiles]]\nname = \"b\"\n\n[mcp_servers]\ndocs.command = \"docs-mcp\"\ndocs.args = [\"--port\", \"3000\"]\ndocs.startup_timeout_ms = 1500\n",
			want: []config.ServerConfig{{Name: "docs", Type: config.TransportStdio, Command: "docs-mcp", Args: []string{"--port", "3000"}, StartupTimeout: 1500 * time.Millisecond}},
		},
		{
			name: "startup_timeout_sec wins over startup_timeout_ms",
			in:   "[mcp_servers.a]\nstartup_timeout_ms = 1000\nstartup_timeout_sec = 2.5\ncommand = \"a\"\n",
			want: []config.ServerConfig{{Name: "a", Type: config.TransportStdio, Command: "a", StartupTimeout: 2500 * time.Millisecond}},
		},
		{
			name: "both command and url are kept for validation to reject",
			in:   "[mcp_servers.a]\ncommand = \"a\"\nurl = \"https://h/mcp\"\n",
			want: []config.ServerConfig{{Name: "a", Command: "a", URL: "https://h/mcp"}},
		},
		{
			name: "wrong types",
			in: "[mcp_servers.a]\ncommand = 5\nenabled = \"no\"\nargs = [\"x\", 1]\n\n" +
				"[mcp_servers.b]\nurl = \"https://h/mcp\"\nbearer_token = \"secret\"\n\n" +
				"[mcp_servers.c]\ncommand = \"c\"\nenv = { PORT = 8080, DEBUG = true }\nenv_vars = [\"OK\", \"NOT-OK\"]\ndisabled_tools = \"all\"\nstartup_timeout_sec = -1\ntool_timeout_sec = 1e9\n\n" +
				"[mcp_servers.d]\ncommand = \"d\"\ncwd = 1979-05-27\n",
			want: []config.ServerConfig{
				{Name: "a", Args: []string{"x"}},
				{Name: "b", Type: config.TransportHTTP, URL: "https://h/mcp"},
				{Name: "c", Type: config.TransportStdio, Command: "c", Env: map[string]string{"PORT": "8080", "DEBUG": "true", "OK": "${OK:-}"}},
				{Name: "d", Type: config.TransportStdio, Command: "d"},
			},
			errs: map[string]string{
				"a": `config.toml:2:11: server "a": field "command": want a string, got number`,
				"b": `config.toml:8:16: server "b": field "bearer_token": an inline bearer_token is not supported (Codex rejects it too); put the token in an environment variable and name it in bearer_token_env_var`,
				"c": `config.toml:14:18: server "c": field "disabled_tools": want an array of strings, got string`,
				"d": `config.toml:20:7: server "d": field "cwd": want a string, got a date-time`,
			},
			warnings: []string{
				`config.toml:15:23: server "c": field "startup_timeout_sec": -1 seconds is out of range (want more than 0 and at most 24h0m0s); ignored`,
				`config.toml:16:20: server "c": field "tool_timeout_sec": 1e9 seconds is out of range (want more than 0 and at most 24h0m0s); ignored`,
			},
		},
		{
			name:    "mcp_servers not a table",
			in:      "model = \"o3\"\nmcp_servers = [\"a\"]\n",
			fileErr: `config.toml:2:1: field "mcp_servers": want a table of servers by name, got array`,
		},
		{
			name:    "server not a table",
			in:      "[mcp_servers]\na = \"npx\"\n",
			want:    []config.ServerConfig{{Name: "a"}},
			errs:    map[string]string{"a": `config.toml:2:5: server "a": want an object, got string`},
			fileErr: "",
		},
		{
			name:    "unterminated string",
			in:      "[mcp_servers.a]\ncommand = \"npx\nargs = []\n",
			fileErr: `config.toml:2:15: basic strings cannot have new lines`,
		},
		{
			name:    "key defined twice",
			in:      "[mcp_servers.a]\ncommand = \"x\"\n\ncommand = \"y\"\n",
			fileErr: `config.toml:4:1: key command is already defined`,
		},
		{
			name:    "table defined twice",
			in:      "[mcp_servers.a]\ncommand = \"x\"\n[mcp_servers.a]\n",
			fileErr: `config.toml:3:2: table a already exists (key mcp_servers.a)`,
		},
		{
			name:    "missing value at the end",
			in:      "[mcp_servers.a]\ncommand = ",
			fileErr: `config.toml:2:10: expected value, not end of input`,
		},
	})
}

func TestCodexLocations(t *testing.T) {
	env := Env{Home: "/home/ada", ProjectDir: "/src/app", Lookup: config.MapLookup(nil)}
	want := []Location{
		{Path: "/src/app/.codex/config.toml", Level: config.LevelProject},
		{Path: "/home/ada/.codex/config.toml", Level: config.LevelUser},
	}
	if diff := cmp.Diff(want, codexFormat.Locations(env)); diff != "" {
		t.Errorf("Locations (-want +got):\n%s", diff)
	}
	env.Lookup = config.MapLookup(map[string]string{"CODEX_HOME": "/etc/codex"})
	env.ProjectDir = ""
	want = []Location{{Path: "/etc/codex/config.toml", Level: config.LevelUser}}
	if diff := cmp.Diff(want, codexFormat.Locations(env)); diff != "" {
		t.Errorf("Locations with CODEX_HOME (-want +got):\n%s", diff)
	}
}

func TestCodexSniff(t *testing.T) {
	for _, tt := range []struct {
		path string
		data string
		want bool
	}{
		{"/home/ada/.codex/config.toml", "", true},
		{"servers.toml", "", true},
		{"codex-config", "[mcp_servers.a]\ncommand = \"x\"\n", true},
		{"other", "  mcp_servers.a.command = \"x\"\n", true},
		{"mcp.json", `{"mcpServers": {}}`, false},
		{"config.yaml", "extensions:\n", false},
	} {
		if got := codexFormat.Sniff(tt.path, []byte(tt.data)); got != tt.want {
			t.Errorf("Sniff(%q, %q) = %v, want %v", tt.path, tt.data, got, tt.want)
		}
	}
}

func FuzzCodex(f *testing.F) {
	sample, err := os.ReadFile(filepath.Join("testdata", "codex", "config.toml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add(sample[:len(sample)/2])
	for _, s := range []string{
		"", "[mcp_servers]\na = 1", "mcp_servers = 3", "[[mcp_servers]]\ncommand = \"x\"",
		"[mcp_servers.a]\nenv_vars = [\"A\", 2]\nenv_http_headers = { X = 3 }\nbearer_token_env_var = \"a-b\"",
		"[mcp_servers.a.b.c]\nx = [[1, 2], {y = 1979-05-27T07:32:00Z}]\n[mcp_servers.a]\n",
		"a.b.c = 1\n[a.b.d]\n[[a.e]]\n[[a.e]]\nf = nan\ng = +inf\nh = 0x_1",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzForeign(t, codexFormat, "f.toml", data)
	})
}
