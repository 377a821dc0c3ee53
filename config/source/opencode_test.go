package source

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-mcp/switchboard/config"
)

func TestOpencodeSample(t *testing.T) {
	const file = "opencode/opencode.jsonc"
	got, warnings := foreignSample(t, opencodeFormat, file, config.LevelProject)
	src := func(line int) config.Source { return foreignSource(opencodeFormat, file, config.LevelProject, line) }
	want := []config.ServerConfig{{
		Name:    "mcp_everything",
		Type:    config.TransportStdio,
		Command: "npx",
		Args:    []string{"-y", "@modelcontextprotocol/server-everything"},
		Source:  src(6),
	}, {
		Name:    "my-local-mcp-server",
		Type:    config.TransportStdio,
		Command: "bun",
		Args:    []string{"x", "my-mcp-command"},
		Cwd:     "./tools",
		// {env:VAR} stays for discovery's substitution.
		Env:            map[string]string{"MY_ENV_VAR": "my_env_var_value", "API_KEY": "{env:MY_API_KEY}"},
		StartupTimeout: 10 * time.Second,
		Source:         src(11),
	}, {
		Name:    "context7",
		URL:     "https://mcp.context7.com/mcp",
		Headers: map[string]string{"CONTEXT7_API_KEY": "{env:CONTEXT7_API_KEY}"},
		Source:  src(22),
	}, {
		Name:     "sentry",
		URL:      "https://mcp.sentry.dev/mcp",
		Disabled: true,
		Source:   src(30),
	}, {
		Name:           "jira",
		URL:            "https://jira.example.com/mcp",
		StartupTimeout: 5 * time.Second,
		Source:         src(36),
	}}
	if diff := cmp.Diff(want, got, foreignIgnoreErr); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if errs := serverErrs(got); len(errs) > 0 {
		t.Errorf("unexpected server errors: %v", errs)
	}
	if len(warnings) > 0 {
		t.Errorf("unexpected warnings: %v", diagTexts(warnings))
	}
}

func TestOpencodeCases(t *testing.T) {
	runForeignCases(t, opencodeFormat, "opencode.json", []foreignCase{
		{name: "empty", in: ""},
		{name: "no mcp", in: `{"$schema": "https://opencode.ai/config.json", "theme": "tokyonight"}`},
		{
			name: "V2 servers map with disabled",
			in: `{
  "mcp": {
    "servers": {
      "everything": {"type": "local", "command": ["npx", "-y", "@modelcontextprotocol/server-everything"], "cwd": "."},
      "off": {"type": "remote", "url": "https://h/mcp", "disabled": true},
    },
  },
}`,
			want: []config.ServerConfig{
				{Name: "everything", Type: config.TransportStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}, Cwd: "."},
				{Name: "off", URL: "https://h/mcp", Disabled: true},
			},
		},
		{
			name: "a V1 server named servers",
			in:   `{"mcp": {"servers": {"type": "local", "command": ["srv"]}}}`,
			want: []config.ServerConfig{{Name: "servers", Type: config.TransportStdio, Command: "srv"}},
		},
		{
			name: "Claude-style entries are errors, as in opencode",
			in: `{"mcp": {
  "a": {"type": "stdio", "command": ["python", "server.py"]},
  "b": {"type": "local", "command": "python", "args": ["server.py"]},
  "c": {"type": "local", "command": []},
  "d": {"command": ["x", 1]},
  "e": {"type": "local", "command": ["x"], "environment": {"A": ["b"]}, "timeout": "5s"}
}}`,
			want: []config.ServerConfig{
				{Name: "a", Command: "python", Args: []string{"server.py"}},
				{Name: "b", Type: config.TransportStdio},
				{Name: "c", Type: config.TransportStdio},
				{Name: "d", Type: config.TransportStdio, Command: "x"},
				{Name: "e", Type: config.TransportStdio, Command: "x"},
			},
			errs: map[string]string{
				"a": `opencode.json:2:17: server "a": field "type": unknown type "stdio" (opencode wants "local" or "remote")`,
				"b": `opencode.json:3:37: server "b": field "command": want an array of the program and its arguments, like ["npx", "-y", "pkg"], got a string`,
				"c": `opencode.json:4:37: server "c": field "command": command is empty (want the program and its arguments)`,
				"d": `opencode.json:5:26: server "d": field "command[1]": want a string, got number`,
				"e": `opencode.json:6:65: server "e": field "environment.A": want a string, got array`,
			},
			warnings: []string{
				`opencode.json:6:84: server "e": field "timeout": want a number of milliseconds, got string; ignored`,
			},
		},
		{
			name: "defined twice",
			in:   "{\"mcp\": {\n\"a\": {\"type\": \"local\", \"command\": [\"x\"]},\n\"a\": {\"type\": \"local\", \"command\": [\"y\"]}\n}}",
			want: []config.ServerConfig{{Name: "a", Type: config.TransportStdio, Command: "x"}, {Name: "a", Type: config.TransportStdio, Command: "y"}},
			errs: map[string]string{"a": `opencode.json:3:1: server "a": server defined twice; the first definition, at line 2, wins`},
		},
		{name: "mcp array", in: "{\n  \"mcp\": []\n}", fileErr: `opencode.json:2:10: field "mcp": want an object of servers by name, got array`},
		{name: "top level array", in: "[]", fileErr: `opencode.json:1:1: top level must be an object, got array`},
		{name: "missing comma", in: "{\n  \"mcp\": {\n    \"a\": {}\n    \"b\": {}\n  }\n}", fileErr: `opencode.json:4:5: invalid character '"' after object value (expecting ',' or '}')`},
		{name: "unterminated comment", in: "{\n  \"mcp\": {} /* no end\n}", fileErr: `opencode.json:2:13: comment is not closed (missing "*/")`},
	})
}

func TestOpencodeLocations(t *testing.T) {
	env := Env{Home: "/home/ada", ProjectDir: "/src/app", Lookup: config.MapLookup(map[string]string{
		"XDG_CONFIG_HOME": "/xdg",
		"OPENCODE_CONFIG": "/etc/opencode.json",
	})}
	want := []Location{
		{Path: "/src/app/.opencode/opencode.jsonc", Level: config.LevelProject},
		{Path: "/src/app/.opencode/opencode.json", Level: config.LevelProject},
		{Path: "/src/app/opencode.jsonc", Level: config.LevelProject},
		{Path: "/src/app/opencode.json", Level: config.LevelProject},
		{Path: "/etc/opencode.json", Level: config.LevelUser},
		{Path: "/xdg/opencode/opencode.jsonc", Level: config.LevelUser},
		{Path: "/xdg/opencode/opencode.json", Level: config.LevelUser},
	}
	if diff := cmp.Diff(want, opencodeFormat.Locations(env)); diff != "" {
		t.Errorf("Locations (-want +got):\n%s", diff)
	}
	env = Env{Home: "/home/ada", Lookup: config.MapLookup(nil)}
	want = []Location{
		{Path: "/home/ada/.config/opencode/opencode.jsonc", Level: config.LevelUser},
		{Path: "/home/ada/.config/opencode/opencode.json", Level: config.LevelUser},
	}
	if diff := cmp.Diff(want, opencodeFormat.Locations(env)); diff != "" {
		t.Errorf("Locations without XDG (-want +got):\n%s", diff)
	}
}

func TestOpencodeSniff(t *testing.T) {
	for _, tt := range []struct {
		path, data string
		want       bool
	}{
		{"/src/app/opencode.json", "", true},
		{"/src/app/.opencode/opencode.jsonc", "", true},
		{"custom.json", `{"$schema": "https://opencode.ai/config.json"}`, true},
		{"mcp.json", `{"mcpServers": {}}`, false},
	} {
		if got := opencodeFormat.Sniff(tt.path, []byte(tt.data)); got != tt.want {
			t.Errorf("Sniff(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func FuzzOpencode(f *testing.F) {
	sample, err := os.ReadFile(filepath.Join("testdata", "opencode", "opencode.jsonc"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add(sample[:len(sample)/2])
	for _, s := range []string{
		"", "[]", `{"mcp": 1}`, `{"mcp": {"servers": {"a": {}}}}`, `{"mcp": {"a": null, "b": []}}`,
		`{"mcp": {"a": {"type": 1, "command": [], "environment": [], "timeout": -1, "enabled": null}}}`,
		"{\"mcp\": {/* x */ \"a\": {\"type\": \"remote\", \"url\": 3,},}} // end",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzForeign(t, opencodeFormat, "f.jsonc", data)
	})
}
