package source

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-mcp/switchboard/config"
)

func TestZedSample(t *testing.T) {
	const file = "zed/settings.json"
	got, warnings := foreignSample(t, zedFormat, file, config.LevelUser)
	src := func(line int) config.Source { return foreignSource(zedFormat, file, config.LevelUser, line) }
	want := []config.ServerConfig{{
		Name:    "hexdocs-mcp",
		Type:    config.TransportStdio,
		Command: "npx",
		Args:    []string{"-y", "hexdocs-mcp@0.5.0"},
		Source:  src(16),
	}, {
		Name:    "local-mcp-server",
		Type:    config.TransportStdio,
		Command: "some-command",
		Args:    []string{"arg-1", "arg-2"},
		Env:     map[string]string{"LOG": "debug"},
		Timeout: 2 * time.Minute,
		Source:  src(22),
	}, {
		Name:    "postgres-context-server",
		Type:    config.TransportStdio,
		Command: "/usr/local/bin/postgres-context-server",
		Args:    []string{"run"},
		Env:     map[string]string{"DATABASE_URL": "postgresql://postgres@localhost/my_database"},
		Source:  src(29),
	}, {
		Name:     "you-com",
		URL:      "https://api.you.com/mcp?profile=free",
		Headers:  map[string]string{"Authorization": "Bearer ${YDC_API_KEY}"},
		Disabled: true,
		Source:   src(37),
	}}
	if diff := cmp.Diff(want, got, foreignIgnoreErr); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if errs := serverErrs(got); len(errs) > 0 {
		t.Errorf("unexpected server errors: %v", errs)
	}
	wantWarnings := []string{
		`testdata/zed/settings.json:9:5: server "mcp-server-github": provided by a Zed extension, which only Zed can start; skipped`,
	}
	if diff := cmp.Diff(wantWarnings, diagTexts(warnings)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestZedCases(t *testing.T) {
	runForeignCases(t, zedFormat, "settings.json", []foreignCase{
		{name: "only comments", in: "// Zed settings\n//\n// nothing yet\n"},
		{name: "no servers", in: "{\n  \"theme\": \"One Dark\",\n}"},
		{
			name: "extension entries in both spellings are skipped",
			in:   "{\"context_servers\": {\n\"a\": {\"settings\": {\"x\": 1}},\n\"b\": {\"source\": \"extension\", \"enabled\": \"yes\"}\n}}",
			warnings: []string{
				`settings.json:2:1: server "a": provided by a Zed extension, which only Zed can start; skipped`,
				`settings.json:3:1: server "b": provided by a Zed extension, which only Zed can start; skipped`,
			},
		},
		{
			name: "an extension source with a command is a custom server",
			in:   `{"context_servers": {"a": {"source": "extension", "command": "x", "settings": {}}}}`,
			want: []config.ServerConfig{{Name: "a", Type: config.TransportStdio, Command: "x"}},
		},
		{
			name: "wrong types",
			in:   "{\"context_servers\": {\n\"a\": {\"command\": [\"npx\", \"x\"]},\n\"b\": {\"command\": {\"path\": 1}},\n\"c\": {\"url\": \"https://h/mcp\", \"headers\": [\"A: b\"], \"timeout\": \"60\"},\n\"d\": 7\n}}",
			want: []config.ServerConfig{{Name: "a"}, {Name: "b"}, {Name: "c", URL: "https://h/mcp"}, {Name: "d"}},
			errs: map[string]string{
				"a": `settings.json:2:18: server "a": field "command": want a string, got array`,
				"b": `settings.json:3:27: server "b": field "command.path": want a string, got number`,
				"c": `settings.json:4:42: server "c": field "headers": want an object of strings, got array`,
				"d": `settings.json:5:6: server "d": want an object, got number`,
			},
			warnings: []string{
				`settings.json:4:63: server "c": field "timeout": want a number of seconds, got string; ignored`,
			},
		},
		{name: "context_servers not an object", in: `{"context_servers": true}`, fileErr: `settings.json:1:21: field "context_servers": want an object of servers by name, got boolean`},
		{name: "truncated", in: "{\n  \"context_servers\": {\n", fileErr: `settings.json:2:23: unexpected end of input (is the file truncated?)`},
	})
}

func TestZedLocations(t *testing.T) {
	env := Env{Home: "/home/ada", ProjectDir: "/src/app", Lookup: config.MapLookup(nil)}
	want := []Location{
		{Path: "/src/app/.zed/settings.json", Level: config.LevelProject},
		{Path: "/home/ada/.config/zed/settings.json", Level: config.LevelUser},
	}
	if diff := cmp.Diff(want, zedFormat.Locations(env)); diff != "" {
		t.Errorf("Locations (-want +got):\n%s", diff)
	}
	env.Lookup = config.MapLookup(map[string]string{"XDG_CONFIG_HOME": "relative/is/ignored"})
	if diff := cmp.Diff(want, zedFormat.Locations(env)); diff != "" {
		t.Errorf("Locations with a relative XDG_CONFIG_HOME (-want +got):\n%s", diff)
	}
}

func TestZedSniff(t *testing.T) {
	for _, tt := range []struct {
		path, data string
		want       bool
	}{
		{"/home/ada/.config/zed/settings.json", "", true},
		{"/src/app/.zed/settings.json", "", true},
		{"zed-settings.json", "{\n  \"context_servers\": {}\n}", true},
		{"/src/app/.vscode/settings.json", `{"editor.fontSize": 12}`, false},
		{"settings.json", "", false},
	} {
		if got := zedFormat.Sniff(tt.path, []byte(tt.data)); got != tt.want {
			t.Errorf("Sniff(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func FuzzZed(f *testing.F) {
	sample, err := os.ReadFile(filepath.Join("testdata", "zed", "settings.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add(sample[:len(sample)/2])
	for _, s := range []string{
		"", "// x", "[]", `{"context_servers": []}`, `{"context_servers": {"a": {"source": "extension"}}}`,
		`{"context_servers": {"a": {"command": {"path": "x", "args": [1], "env": 2}, "timeout": 1e300}}}`,
		`{"context_servers": {"a": {"url": 1, "headers": {"a": null, "b": {}}, "enabled": 0}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzForeign(t, zedFormat, "f.json", data)
	})
}
