package source

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-mcp/switchboard/config"
)

func TestContinueSample(t *testing.T) {
	const file = "continue/config.yaml"
	got, warnings := foreignSample(t, continueFormat, file, config.LevelUser)
	src := func(line int) config.Source { return foreignSource(continueFormat, file, config.LevelUser, line) }
	want := []config.ServerConfig{{
		Name:    "SQLite MCP",
		Type:    config.TransportStdio,
		Command: "npx",
		Args:    []string{"-y", "mcp-sqlite", "/path/to/your/database.db"},
		Source:  src(10),
	}, {
		Name:    "Supabase MCP",
		Type:    config.TransportStdio,
		Command: "npx",
		// Continue's secret templates are resolved by Substitute.
		Args:   []string{"-y", "@supabase/mcp-server-supabase@latest", "--access-token", "${{ secrets.SUPABASE_TOKEN }}"},
		Env:    map[string]string{"SUPABASE_TOKEN": "${{ secrets.SUPABASE_TOKEN }}"},
		Source: src(16),
	}, {
		Name:   "Name",
		Type:   config.TransportSSE,
		URL:    "https://mcp.example.com/sse",
		Source: src(25),
	}, {
		Name:           "Linear",
		Type:           config.TransportHTTP,
		URL:            "https://mcp.linear.app/mcp",
		Headers:        map[string]string{"Authorization": "Bearer ${{ secrets.LINEAR_API_KEY }}", "X-Org": "acme"},
		StartupTimeout: 30 * time.Second,
		Source:         src(28),
	}, {
		Name:    "Hub secret",
		Type:    config.TransportStdio,
		Command: "hub-mcp",
		Env:     map[string]string{"TOKEN": "${{ secrets.acme/hub-block/TOKEN }}"},
		Source:  src(37),
	}}
	if diff := cmp.Diff(want, got, foreignIgnoreErr); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if errs := serverErrs(got); len(errs) > 0 {
		t.Errorf("unexpected server errors: %v", errs)
	}
	subst, errs := foreignSubstituted(t, continueFormat, file, config.LevelUser, map[string]string{"SUPABASE_TOKEN": "sb-1", "LINEAR_API_KEY": "lin-2"})
	if got := subst["Supabase MCP"]; got.Args[3] != "sb-1" || got.Env["SUPABASE_TOKEN"] != "sb-1" {
		t.Errorf("Supabase MCP substituted: %v %v", got.Args, got.Env)
	}
	if got := subst["Linear"].Headers["Authorization"]; got != "Bearer lin-2" {
		t.Errorf("Linear Authorization = %q", got)
	}
	wantErrs := map[string]string{
		"Hub secret": `testdata/continue/config.yaml:40:14: server "Hub secret": field "env.TOKEN": Continue template "${{ secrets.acme/hub-block/TOKEN }}" can only be resolved by Continue; use ${{ secrets.NAME }} with NAME set in the environment`,
	}
	if diff := cmp.Diff(wantErrs, errs); diff != "" {
		t.Errorf("substitution errors (-want +got):\n%s", diff)
	}
	wantWarnings := []string{
		`testdata/continue/config.yaml:36:5: field "mcpServers[4].uses": "anthropic/memory-mcp" is a block on Continue's hub, which only Continue can fetch; skipped`,
	}
	if diff := cmp.Diff(wantWarnings, diagTexts(warnings)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestContinueProject reads a project's .continue/mcpServers folder: a
// YAML block and a JSON file copied from Claude Desktop.
func TestContinueProject(t *testing.T) {
	project, err := filepath.Abs(filepath.Join("testdata", "continue", "project"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(project, ".continue", "mcpServers")
	env := Env{ProjectDir: project, Lookup: config.MapLookup(nil)}
	locs := continueFormat.Locations(env)
	wantLocs := []Location{
		{Path: filepath.Join(dir, "mcp.json"), Level: config.LevelProject},
		{Path: filepath.Join(dir, "playwright-mcp.yaml"), Level: config.LevelProject},
	}
	if diff := cmp.Diff(wantLocs, locs); diff != "" {
		t.Fatalf("Locations (-want +got):\n%s", diff)
	}
	var got []config.ServerConfig
	for _, loc := range locs {
		data, err := os.ReadFile(loc.Path)
		if err != nil {
			t.Fatal(err)
		}
		servers, warnings, err := parseConfigs(continueFormat, loc, data, env)
		if err != nil || len(warnings) > 0 {
			t.Fatalf("Parse(%s): %v, warnings %v", loc.Path, err, diagTexts(warnings))
		}
		got = append(got, servers...)
	}
	src := func(file string, line int) config.Source {
		return config.Source{Provider: "Continue", Path: filepath.Join(dir, file), Level: config.LevelProject, Line: line}
	}
	want := []config.ServerConfig{{
		Name:    "filesystem",
		Type:    config.TransportStdio,
		Command: "npx",
		Args:    []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop"},
		Env:     map[string]string{"DEBUG": "1"},
		Source:  src("mcp.json", 3),
	}, {
		Name:     "remote",
		Type:     config.TransportSSE,
		URL:      "https://mcp.example.com/sse",
		Headers:  map[string]string{"Authorization": "Bearer ${env:TOKEN}"},
		Disabled: true,
		Source:   src("mcp.json", 8),
	}, {
		Name:    "Browser search",
		Type:    config.TransportStdio,
		Command: "npx",
		Args:    []string{"@playwright/mcp@latest"},
		Source:  src("playwright-mcp.yaml", 5),
	}}
	if diff := cmp.Diff(want, got, foreignIgnoreErr); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

func TestContinueCases(t *testing.T) {
	runForeignCases(t, continueFormat, "config.yaml", []foreignCase{
		{name: "empty", in: ""},
		{name: "no servers", in: "name: x\nversion: 1.0.0\nmodels: []\n"},
		{
			name: "names: missing, twice, not a string",
			in:   "mcpServers:\n  - command: a\n  - name: b\n    command: b1\n  - name: b\n    command: b2\n  - name: [c]\n    url: https://h\n",
			want: []config.ServerConfig{
				{Type: config.TransportStdio, Command: "a"},
				{Name: "b", Type: config.TransportStdio, Command: "b1"},
				{Name: "b", Type: config.TransportStdio, Command: "b2"},
				{URL: "https://h"},
			},
			errs: map[string]string{
				"":  `config.yaml:7:5: field "mcpServers[3].name": server has no name`,
				"b": `config.yaml:5:5: server "b": field "name": server defined twice; the first definition, at line 3, wins`,
			},
		},
		{
			name: "wrong types",
			in:   "mcpServers:\n  - name: a\n    command: a\n    type: websocket\n  - name: b\n    url: https://h\n    apiKey: [k]\n    connectionTimeout: soon\n  - just a string\n",
			want: []config.ServerConfig{
				{Name: "a", Command: "a"},
				{Name: "b", URL: "https://h"},
				{},
			},
			errs: map[string]string{
				"a": `config.yaml:4:11: server "a": field "type": unknown type "websocket" (want stdio, sse or streamable-http)`,
				"b": `config.yaml:7:13: server "b": field "apiKey": want a string, got array`,
				"":  `config.yaml:9:5: want an object, got string`,
			},
			warnings: []string{
				`config.yaml:8:24: server "b": field "connectionTimeout": want a number of milliseconds, got string; ignored`,
			},
		},
		{name: "mcpServers a string", in: "mcpServers: none\n", fileErr: `config.yaml:1:13: field "mcpServers": want a list of servers, got string`},
		{name: "bad YAML", in: "mcpServers:\n  - name: a\n  command: x\n", fileErr: `config.yaml:3:3: did not find expected '-' indicator`},
	})
	runForeignCases(t, continueFormat, "mcp.json", []foreignCase{
		{name: "JSON list", in: `{"mcpServers": [{"name": "a", "command": "a"}]}`, want: []config.ServerConfig{{Name: "a", Type: config.TransportStdio, Command: "a"}}},
		{name: "bad JSON", in: `{"mcpServers": {"a": }}`, fileErr: `mcp.json:1:22: invalid character '}' at start of value`},
	})
}

func TestContinueLocations(t *testing.T) {
	env := Env{Home: "/home/ada", ProjectDir: "/nonexistent/project", Lookup: config.MapLookup(nil)}
	want := []Location{{Path: "/home/ada/.continue/config.yaml", Level: config.LevelUser}}
	if diff := cmp.Diff(want, continueFormat.Locations(env)); diff != "" {
		t.Errorf("Locations (-want +got):\n%s", diff)
	}
	env.Lookup = config.MapLookup(map[string]string{"CONTINUE_GLOBAL_DIR": "/opt/continue"})
	want = []Location{{Path: "/opt/continue/config.yaml", Level: config.LevelUser}}
	if diff := cmp.Diff(want, continueFormat.Locations(env)); diff != "" {
		t.Errorf("Locations with CONTINUE_GLOBAL_DIR (-want +got):\n%s", diff)
	}
}

func TestContinueSniff(t *testing.T) {
	for _, tt := range []struct {
		path, data string
		want       bool
	}{
		{"/home/ada/.continue/config.yaml", "", true},
		{"/src/app/.continue/mcpServers/mcp.json", "", true},
		{"assistant.yaml", "name: x\nmcpServers:\n  - name: a\n", true},
		{"config.yaml", "extensions:\n  a: {}\n", false},
		{"mcp.json", `{"mcpServers": {}}`, false},
	} {
		if got := continueFormat.Sniff(tt.path, []byte(tt.data)); got != tt.want {
			t.Errorf("Sniff(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func FuzzContinue(f *testing.F) {
	sample, err := os.ReadFile(filepath.Join("testdata", "continue", "config.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add(sample[:len(sample)/2])
	for _, s := range []string{
		"", "mcpServers: 1", "mcpServers:\n  - ~\n  - uses: 1\n  - {name: a, requestOptions: 3}\n",
		"mcpServers:\n  - name: a\n    args: [\"${{ secrets.X }}\", \"${{ inputs.y-z }}\"]\n    env: {A: \"${{\"}\n",
		"mcpServers:\n  a:\n    command: x\n    disabled: yes\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzForeign(t, continueFormat, "f.yaml", data)
	})
}
