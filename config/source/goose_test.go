package source

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-mcp/switchboard/config"
)

func TestGooseSample(t *testing.T) {
	const file = "goose/config.yaml"
	got, warnings := foreignSample(t, gooseFormat, file, config.LevelUser)
	src := func(line int) config.Source { return foreignSource(gooseFormat, file, config.LevelUser, line) }
	want := []config.ServerConfig{{
		Name:    "filesystem",
		Type:    config.TransportStdio,
		Command: "npx",
		Args:    []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"},
		Timeout: 5 * time.Minute,
		Source:  src(17),
	}, {
		Name:    "github",
		Type:    config.TransportStdio,
		Command: "docker",
		Args:    []string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"},
		Env: map[string]string{
			"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}",
			"GITHUB_TOOLSETS":              "repos,issues",
			"LOG_PORT":                     "8080", // a YAML integer
		},
		Tools:   config.ToolFilter{Allow: []string{"get_file_contents", "search_code"}},
		Timeout: 5 * time.Minute,
		Source:  src(26),
	}, {
		Name:     "remote-tools",
		Type:     config.TransportHTTP,
		URL:      "https://example.com/mcp",
		Headers:  map[string]string{"Authorization": "Bearer ${REMOTE_TOKEN}"},
		Disabled: true,
		Timeout:  5 * time.Minute,
		Source:   src(46),
	}, {
		Name:   "legacy-sse",
		Type:   config.TransportSSE,
		URL:    "http://localhost:8000/sse",
		Source: src(56),
	}}
	if diff := cmp.Diff(want, got, foreignIgnoreErr); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if errs := serverErrs(got); len(errs) > 0 {
		t.Errorf("unexpected server errors: %v", errs)
	}
	// builtin and platform extensions are skipped without a word.
	wantWarnings := []string{
		`testdata/goose/config.yaml:60:14: server "legacy-sse": field "timeout": want a number of seconds, got string; ignored`,
		`testdata/goose/config.yaml:61:3: server "hello": an inline_python extension runs inside Goose; skipped`,
	}
	if diff := cmp.Diff(wantWarnings, diagTexts(warnings)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestGooseCases(t *testing.T) {
	runForeignCases(t, gooseFormat, "config.yaml", []foreignCase{
		{name: "empty", in: ""},
		{name: "comments only", in: "# goose\n"},
		{name: "no extensions", in: "GOOSE_PROVIDER: openai\n"},
		{name: "null extensions", in: "extensions:\n"},
		{
			name: "anchors, aliases and merge keys",
			in: "defaults: &defaults\n  enabled: false\n  timeout: 60\n  cmd: default-cmd\n" +
				"extensions:\n  a:\n    <<: *defaults\n    type: stdio\n    cmd: a-mcp\n    args: &args [--port, 8080, true]\n" +
				"  b:\n    type: stdio\n    cmd: b-mcp\n    args: *args\n",
			want: []config.ServerConfig{
				{Name: "a", Type: config.TransportStdio, Command: "a-mcp", Args: []string{"--port", "8080", "true"}, Disabled: true, Timeout: time.Minute},
				{Name: "b", Type: config.TransportStdio, Command: "b-mcp", Args: []string{"--port", "8080", "true"}},
			},
		},
		{
			name: "no type: inferred from cmd or uri",
			in:   "extensions:\n  a:\n    cmd: a\n  b:\n    uri: https://h/mcp\n    envs: {A: b}\n",
			want: []config.ServerConfig{{Name: "a", Type: config.TransportStdio, Command: "a"}, {Name: "b", URL: "https://h/mcp"}},
		},
		{
			name: "wrong types",
			in:   "extensions:\n  a:\n    type: stdio\n    cmd: [x]\n  b:\n    type: websocket\n    uri: ws://h\n  c:\n    type: stdio\n    cmd: c\n    envs: [A=b]\n    env_keys: [OK, bad-name]\n    enabled: maybe\n  d: just a string\n",
			want: []config.ServerConfig{
				{Name: "a", Type: config.TransportStdio},
				{Name: "b", URL: "ws://h"},
				{Name: "c", Type: config.TransportStdio, Command: "c", Env: map[string]string{"OK": "${OK}"}},
				{Name: "d"},
			},
			errs: map[string]string{
				"a": `config.yaml:4:10: server "a": field "cmd": want a string, got array`,
				"b": `config.yaml:6:11: server "b": field "type": unknown extension type "websocket" (want stdio, streamable_http or sse)`,
				"c": `config.yaml:13:14: server "c": field "enabled": want true or false, got string`,
				"d": `config.yaml:14:6: server "d": want an object, got string`,
			},
		},
		{
			name: "defined twice",
			in:   "extensions:\n  a:\n    cmd: x\n  a:\n    cmd: y\n",
			want: []config.ServerConfig{{Name: "a", Type: config.TransportStdio, Command: "x"}, {Name: "a", Type: config.TransportStdio, Command: "y"}},
			errs: map[string]string{"a": `config.yaml:4:3: server "a": server defined twice; the first definition, at line 2, wins`},
		},
		{name: "extensions a list", in: "extensions:\n  - developer\n", fileErr: `config.yaml:2:3: field "extensions": want a mapping of extensions by name, got a sequence`},
		{name: "top level a list", in: "- a\n- b\n", fileErr: `config.yaml:1:1: top level must be a mapping, got a sequence`},
		{name: "bad indentation", in: "extensions:\n  a:\n    cmd: x\n   args: []\n", fileErr: `config.yaml:4:4: did not find expected key`},
		{name: "tab indentation", in: "extensions:\n\ta:\n", fileErr: `config.yaml:2:1: found character that cannot start any token`},
		{name: "unclosed flow sequence", in: "extensions:\n  a:\n    args: [x, y\n", fileErr: `config.yaml:4:1: did not find expected ',' or ']'`},
		{name: "unknown alias", in: "extensions:\n  a: *nope\n", fileErr: `config.yaml:2:6: unknown anchor 'nope' referenced`},
		{name: "column counts characters, reported in bytes", in: "é: ü: x\n", fileErr: `config.yaml:1:7: mapping values are not allowed in this context`},
	})
}

func TestGooseAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		b.WriteString("a" + string(rune('0'+i%10)) + string(rune('a'+i)) + ": &a" + string(rune('a'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			if i == 1 {
				b.WriteString("*a0")
			} else {
				b.WriteString("*a" + string(rune('a'+i-1)))
			}
		}
		b.WriteString("]\n")
	}
	b.WriteString("extensions: {}\n")
	start := time.Now()
	_, _, err := parseConfigs(gooseFormat, Location{Path: "config.yaml"}, []byte(b.String()), Env{})
	if err == nil || !strings.Contains(err.Error(), "expands to more than") {
		t.Errorf("err = %v, want the expansion limit", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestGooseLocations(t *testing.T) {
	env := Env{Home: "/home/ada", ProjectDir: "/src/app", Lookup: config.MapLookup(map[string]string{"XDG_CONFIG_HOME": "/xdg"})}
	want := []Location{{Path: "/xdg/goose/config.yaml", Level: config.LevelUser}}
	if diff := cmp.Diff(want, gooseFormat.Locations(env)); diff != "" {
		t.Errorf("Locations (-want +got):\n%s", diff)
	}
	if got := gooseFormat.Locations(Env{Lookup: config.MapLookup(nil)}); len(got) != 0 {
		t.Errorf("Locations without a home = %v, want none", got)
	}
}

func TestGooseSniff(t *testing.T) {
	for _, tt := range []struct {
		path, data string
		want       bool
	}{
		{"/home/ada/.config/goose/config.yaml", "", true},
		{"goose.yaml", "GOOSE_MODEL: x\nextensions:\n  a: {}\n", true},
		{"config.yaml", "name: x\nmcpServers:\n  - name: a\n", false},
		{"goose.json", "extensions:\n", false},
	} {
		if got := gooseFormat.Sniff(tt.path, []byte(tt.data)); got != tt.want {
			t.Errorf("Sniff(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func FuzzGoose(f *testing.F) {
	sample, err := os.ReadFile(filepath.Join("testdata", "goose", "config.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add(sample[:len(sample)/2])
	for _, s := range []string{
		"", "extensions: 1", "extensions:\n  a: ~\n", "a: &a [*a]\nextensions:\n  b: *a\n",
		"x: &x {cmd: y}\nextensions:\n  a:\n    <<: [*x, {type: sse}]\n    args: [1, 2.5, .inf, 0x1F, ~]\n",
		"extensions:\n  ? [complex]\n  : {}\n  a: {type: builtin, cmd: 1}\n  b: {type: inline_python}\n",
		"\xef\xbb\xbfextensions:\n  é:\n    timeout: 1e400\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzForeign(t, gooseFormat, "f.yaml", data)
	})
}
