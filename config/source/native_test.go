package source

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/switchboard-mcp/switchboard/config"
)

var testEnv = config.MapLookup(map[string]string{
	"HOME":         "/home/ada",
	"GITHUB_TOKEN": "ghp_secret",
	"PROJECT_ROOT": "/src/app",
	"LINEAR_KEY":   "lin_key",
	"EMPTY":        "",
})

// ignoreErr compares configs without their Err, which tests check as text.
var ignoreErr = cmpopts.IgnoreFields(config.ServerConfig{}, "Err")

// errText renders each server's Err, "" for none.
func errText(servers []config.ServerConfig) []string {
	var out []string
	for _, c := range servers {
		s := ""
		if c.Err != nil {
			s = c.Err.Error()
		}
		out = append(out, s)
	}
	return out
}

func TestParseNativeSample(t *testing.T) {
	data, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	const path = "testdata/sample.json"
	got, _, err := ParseNative(path, data, config.LevelProject, testEnv)
	if err != nil {
		t.Fatalf("ParseNative: %v", err)
	}
	src := func(line int) config.Source {
		return config.Source{Provider: "switchboard", Path: path, Level: config.LevelProject, Line: line}
	}
	want := []config.ServerConfig{{
		Name:    "github",
		Command: "npx",
		Args:    []string{"-y", "@modelcontextprotocol/server-github"},
		Env: map[string]string{
			"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret",
			"LOG_LEVEL":                    "info",
		},
		StartupTimeout: 2 * time.Minute,
		AutoApprove:    []string{"search_repositories", "get_file_contents"},
		Tools:          config.ToolFilter{Allow: []string{"*"}, Deny: []string{"delete_*", "push_files"}},
		Source:         src(4),
		Substituted:    map[string]string{"GITHUB_TOKEN": "ghp_secret"},
	}, {
		Name:           "filesystem",
		Type:           config.TransportStdio,
		Command:        "/home/ada/bin/mcp-fs",
		Args:           []string{"--root", "/src/app", "--price", "$5", "$$"},
		Cwd:            "/home/ada/work",
		Lazy:           true,
		PingInterval:   15 * time.Second,
		MaxMessageSize: 128 << 20,
		Source:         src(15),
		Substituted:    map[string]string{"PROJECT_ROOT": "/src/app"},
	}, {
		Name:           "linear",
		Type:           config.TransportHTTP,
		URL:            "https://mcp.linear.app/mcp",
		Headers:        map[string]string{"Authorization": "Bearer lin_key"},
		Timeout:        90 * time.Second,
		MaxMessageSize: 100_000_000,
		Source:         src(23),
		Substituted:    map[string]string{"LINEAR_KEY": "lin_key"},
	}, {
		Name:     "legacy",
		Type:     config.TransportSSE,
		URL:      "http://localhost:8931/sse",
		Disabled: true,
		Source:   src(29),
	}, {
		Name:     "old-tool",
		Command:  "old-mcp",
		Disabled: true,
		Source:   src(34),
	}}
	if diff := cmp.Diff(want, got, ignoreErr); diff != "" {
		t.Errorf("ParseNative mismatch (-want +got):\n%s", diff)
	}
	for _, c := range got {
		if c.Err != nil {
			t.Errorf("server %q: unexpected error: %v", c.Name, c.Err)
		}
	}
}

func TestParseNativeNoServers(t *testing.T) {
	for _, in := range []string{
		"",
		" \n\t\r\n",
		"{}",
		"\xef\xbb\xbf{}",
		`{"other": [1, 2, {"x": null}]}`,
		`{"mcpServers": {}}`,
		`{"mcpServers": null}`,
	} {
		got, _, err := ParseNative("mcp.json", []byte(in), config.LevelUser, testEnv)
		if err != nil || len(got) != 0 {
			t.Errorf("ParseNative(%q) = %v, %v; want no servers, no error", in, got, err)
		}
	}
}

func TestParseNativeFileErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "missing comma",
			in:   "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}",
			want: `mcp.json:4:5: invalid character '"' after object value (expecting ',' or '}')`,
		},
		{
			name: "truncated",
			in:   "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"",
			want: `mcp.json:3:25: unexpected end of input (is the file truncated?)`,
		},
		{
			name: "truncated with trailing newlines",
			in:   "{\n  \"mcpServers\": {\n    \"a\": {\n\n",
			want: `mcp.json:3:11: unexpected end of input (is the file truncated?)`,
		},
		{
			name: "garbage after value",
			in:   "{}\n}",
			want: `mcp.json:2:1: invalid character '}' after top-level value`,
		},
		{
			name: "bad escape",
			in:   `{"mcpServers": {"a\q": {}}}`,
			want: `mcp.json:1:20: invalid character 'q' in string escape code`,
		},
		{
			name: "BOM does not shift columns",
			in:   "\xef\xbb\xbf{,}",
			want: `mcp.json:1:2: invalid character ',' at start of value`,
		},
		{
			name: "top level array",
			in:   "\n  [{\"mcpServers\": {}}]",
			want: `mcp.json:2:3: top level must be an object, got array`,
		},
		{
			name: "top level string",
			in:   `"mcpServers"`,
			want: `mcp.json:1:1: top level must be an object, got string`,
		},
		{
			name: "mcpServers array",
			in:   "{\n  \"mcpServers\": [\"a\"]\n}",
			want: `mcp.json:2:17: field "mcpServers": want an object of server configs by name, got array`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := ParseNative("mcp.json", []byte(tt.in), config.LevelUser, testEnv)
			if got != nil {
				t.Errorf("got servers %v, want none", got)
			}
			var d *config.Diagnostic
			if !errors.As(err, &d) {
				t.Fatalf("err = %v (%T), want a *config.Diagnostic", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("err = %s\nwant  %s", err, tt.want)
			}
		})
	}
}

// TestParseNativeServerErrors checks that a bad server gets a positioned
// Err and that the server after it in the file is unaffected.
func TestParseNativeServerErrors(t *testing.T) {
	tests := []struct {
		name   string
		server string // the value of "bad", on line 3, starting at column 12
		want   string
	}{
		{"args not array", `{"command": "x", "args": "-y"}`, `mcp.json:3:37: server "bad": field "args": want an array of strings, got string`},
		{"args element", `{"command": "x", "args": ["-p", 80]}`, `mcp.json:3:44: server "bad": field "args[1]": want a string, got number`},
		{"command number", `{"command": 7}`, `mcp.json:3:24: server "bad": field "command": want a string, got number`},
		{"env value array", `{"command": "x", "env": {"PORT": [8080]}}`, `mcp.json:3:45: server "bad": field "env.PORT": want a string, got array`},
		{"headers array", `{"url": "https://h", "headers": ["a"]}`, `mcp.json:3:44: server "bad": field "headers": want an object of strings, got array`},
		{"enabled string", `{"command": "x", "enabled": "no"}`, `mcp.json:3:40: server "bad": field "enabled": want true or false, got string`},
		// A switch with a safe default is a warning, and the server starts.
		{"timeout number", `{"command": "x", "timeout": 30}`, `mcp.json:3:40: server "bad": field "timeout": want a duration string like "30s", got the number 30 (which unit?); ignored`},
		{"bad duration", `{"command": "x", "startupTimeout": "30"}`, `mcp.json:3:47: server "bad": field "startupTimeout": invalid duration "30" (want a string like "30s" or "2m"); ignored`},
		{"zero duration", `{"command": "x", "timeout": "0s"}`, `mcp.json:3:40: server "bad": field "timeout": 0s is out of range (want more than 0s and at most 24h0m0s); ignored`},
		{"huge duration", `{"command": "x", "timeout": "25h"}`, `mcp.json:3:40: server "bad": field "timeout": 25h0m0s is out of range (want more than 0s and at most 24h0m0s); ignored`},
		{"size number", `{"command": "x", "maxMessageSize": 64}`, `mcp.json:3:47: server "bad": field "maxMessageSize": 64 B is out of range (want at least 64 KiB and at most 1 GiB); ignored`},
		{"size unit", `{"command": "x", "maxMessageSize": "64 MB/s"}`, `mcp.json:3:47: server "bad": field "maxMessageSize": invalid size "64 MB/s": unknown unit "MB/s" (want B, KiB, MiB, GiB, kB, MB or GB); ignored`},
		{"size huge", `{"command": "x", "maxMessageSize": "2GiB"}`, `mcp.json:3:47: server "bad": field "maxMessageSize": 2 GiB is out of range (want at least 64 KiB and at most 1 GiB); ignored`},
		{"size negative", `{"command": "x", "maxMessageSize": -1}`, `mcp.json:3:47: server "bad": field "maxMessageSize": -1 bytes is out of range (want at least 64 KiB and at most 1 GiB); ignored`},
		{"size bool", `{"command": "x", "maxMessageSize": true}`, `mcp.json:3:47: server "bad": field "maxMessageSize": want a size like "64MiB" or a number of bytes, got boolean; ignored`},
		{"autoApprove string", `{"command": "x", "autoApprove": "all"}`, `mcp.json:3:44: server "bad": field "autoApprove": want an array of strings, got string; ignored`},
		{"oauth string", `{"url": "https://h", "oauth": "yes"}`, `mcp.json:3:42: server "bad": field "oauth": want an object of OAuth client settings, got string`},
		{"oauth port", `{"url": "https://h", "oauth": {"callbackPort": 70000}}`, `mcp.json:3:59: server "bad": field "oauth.callbackPort": want a port number from 1 to 65535, got number`},
		{"oauth port string", `{"url": "https://h", "oauth": {"callbackPort": "8976"}}`, `mcp.json:3:59: server "bad": field "oauth.callbackPort": want a port number from 1 to 65535, got string`},
		{"oauth scopes", `{"url": "https://h", "oauth": {"scopes": "read"}}`, `mcp.json:3:53: server "bad": field "oauth.scopes": want an array of strings, got string`},
		{"tools allow", `{"command": "x", "tools": {"allow": "*"}}`, `mcp.json:3:48: server "bad": field "tools.allow": want an array of strings, got string`},
		{"server not object", `["npx"]`, `mcp.json:3:12: server "bad": want an object, got array`},
		{"both command and url", `{"command": "x", "url": "https://h"}`, `mcp.json:3:36: server "bad": field "url": both command and url are set (want exactly one)`},
		{"neither", `{"args": ["x"]}`, `mcp.json:3:5: server "bad": neither command nor url is set (want a command for a local server or a url for a remote one)`},
		{"bad type", `{"type": "streamable", "url": "https://h"}`, `mcp.json:3:21: server "bad": field "type": unknown type "streamable" (want stdio, http or sse)`},
		{"stdio with url", `{"type": "stdio", "url": "https://h"}`, `mcp.json:3:21: server "bad": field "type": type stdio needs a command, not a url`},
		{"http with command", `{"type": "http", "command": "x"}`, `mcp.json:3:21: server "bad": field "type": type http needs a url, not a command`},
		{"url scheme", `{"url": "ftp://h/x"}`, `mcp.json:3:20: server "bad": field "url": url scheme "ftp" is not supported (want http or https)`},
		{"url no host", `{"url": "https:///x"}`, `mcp.json:3:20: server "bad": field "url": url has no host`},
		{"url no scheme", `{"url": "localhost:8080/mcp"}`, `mcp.json:3:20: server "bad": field "url": url scheme "localhost" is not supported (want http or https)`},
		{"url does not parse", `{"url": "https://h/%zz?k=${GITHUB_TOKEN}"}`, `mcp.json:3:20: server "bad": field "url": url does not parse: invalid URL escape "%zz"`},
		{"unset variable", `{"command": "x", "env": {"T": "${NOPE}"}}`, `mcp.json:3:42: server "bad": field "env.T": variable NOPE is not set (use ${NOPE:-default} to give a default)`},
		{"unset in args", `{"command": "x", "args": ["a", "--t=${env:NOPE}"]}`, `mcp.json:3:43: server "bad": field "args[1]": variable NOPE is not set (use ${NOPE:-default} to give a default)`},
		{"unset in header", `{"url": "https://h", "headers": {"X-Key": "${NOPE}"}}`, `mcp.json:3:54: server "bad": field "headers.X-Key": variable NOPE is not set (use ${NOPE:-default} to give a default)`},
		{"unterminated", `{"url": "https://h/${GITHUB_TOKEN"}`, `mcp.json:3:20: server "bad": field "url": unterminated "${GITHUB_TOKEN" (missing "}")`},
		{"unsupported input", `{"command": "x", "cwd": "${input:dir}"}`, `mcp.json:3:36: server "bad": field "cwd": unsupported variable "${input:dir}" (only ${VAR}, ${VAR:-default} and ${env:VAR} are supported)`},
		{"empty name", `{"command": "x", "args": ["${}"]}`, `mcp.json:3:38: server "bad": field "args[0]": invalid variable reference "${}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "{\"mcpServers\": {\n  \"ok1\": {\"command\": \"a\"},\n    \"bad\": " + tt.server + ",\n  \"ok2\": {\"url\": \"https://b\"}\n}}"
			got, warnings, err := ParseNative("mcp.json", []byte(in), config.LevelUser, testEnv)
			if err != nil {
				t.Fatalf("file error: %v", err)
			}
			wantErrs, wantWarnings := []string{"", tt.want, ""}, []string(nil)
			if strings.HasSuffix(tt.want, "; ignored") {
				wantErrs, wantWarnings = []string{"", "", ""}, []string{tt.want}
			}
			if diff := cmp.Diff(wantErrs, errText(got)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			var warned []string
			for _, w := range warnings {
				warned = append(warned, w.Error())
			}
			if diff := cmp.Diff(wantWarnings, warned); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if wantWarnings != nil {
				return // the server is usable; its Err is checked above
			}
			if len(got) == 3 {
				var d *config.Diagnostic
				if !errors.As(got[1].Err, &d) {
					t.Errorf("Err is %T, want *config.Diagnostic", got[1].Err)
				}
				if got[1].Source.Line != 3 || got[2].Source.Line != 4 {
					t.Errorf("source lines %d, %d; want 3, 4", got[1].Source.Line, got[2].Source.Line)
				}
			}
		})
	}
}

func TestParseNativeUnsetVariableIsTyped(t *testing.T) {
	got, _, err := ParseNative("mcp.json", []byte(`{"mcpServers": {"s": {"command": "${NOPE}"}}}`), config.LevelUser, testEnv)
	if err != nil {
		t.Fatal(err)
	}
	var unset *config.UnsetVariableError
	if !errors.As(got[0].Err, &unset) || unset.Name != "NOPE" {
		t.Errorf("Err = %v; want an *config.UnsetVariableError for NOPE", got[0].Err)
	}
}

func TestParseNativeOrderAndDuplicates(t *testing.T) {
	in := `{"mcpServers": {
  "zeta": {"command": "z"},
  "alpha": {"command": "a"},
  "mid": {"command": "m", "enabled": true, "disabled": false},
  "": {"command": "e"},
  "alpha": {"command": "a2"}
}, "mcpServers2": {"x": {}}}`
	got, _, err := ParseNative("p/mcp.json", []byte(in), config.LevelExplicit, testEnv)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var lines []int
	for _, c := range got {
		names = append(names, c.Name)
		lines = append(lines, c.Source.Line)
	}
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid", "", "alpha"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{2, 3, 4, 5, 6}, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	wantErrs := []string{"", "", "", `p/mcp.json:5:3: server name is empty`,
		`p/mcp.json:6:3: server "alpha": server defined twice; the first definition, at line 3, wins`}
	if diff := cmp.Diff(wantErrs, errText(got)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestParseNativeDisabled(t *testing.T) {
	tests := []struct {
		fields string
		want   bool
	}{
		{``, false},
		{`, "enabled": true`, false},
		{`, "enabled": false`, true},
		{`, "disabled": true`, true},
		{`, "disabled": false`, false},
		{`, "enabled": true, "disabled": true`, true},
		{`, "disabled": true, "disabled": false`, false}, // the last one wins, as in encoding/json
		{`, "enabled": null`, false},
	}
	for _, tt := range tests {
		in := `{"mcpServers": {"s": {"command": "x"` + tt.fields + `}}}`
		got, _, err := ParseNative("mcp.json", []byte(in), config.LevelUser, testEnv)
		if err != nil || len(got) != 1 || got[0].Err != nil {
			t.Fatalf("%s: %v, %v", in, err, got)
		}
		if got[0].Disabled != tt.want {
			t.Errorf("%s: Disabled = %v, want %v", tt.fields, got[0].Disabled, tt.want)
		}
	}
}

// TestParseNativeSecretsStayOut checks that messages about a bad url do not
// repeat a substituted secret.
func TestParseNativeSecretsStayOut(t *testing.T) {
	for _, u := range []string{"ftp://h/?k=${GITHUB_TOKEN}", "https://h/%zz${GITHUB_TOKEN}", "${GITHUB_TOKEN}"} {
		in := `{"mcpServers": {"s": {"url": "` + u + `"}}}`
		got, _, err := ParseNative("mcp.json", []byte(in), config.LevelUser, testEnv)
		if err != nil || len(got) != 1 || got[0].Err == nil {
			t.Fatalf("%s: %v, %v; want a server error", u, err, got)
		}
		if msg := got[0].Err.Error(); strings.Contains(msg, "ghp_secret") {
			t.Errorf("%s: error leaks the secret: %s", u, msg)
		}
	}
}

// The oauth block is read whole, its secrets substituted and recorded
// (the host masks them), never quoted in an error.
func TestParseNativeOAuth(t *testing.T) {
	in := `{"mcpServers": {"s": {"url": "https://h/mcp", "oauth": {"clientId": "c", "clientSecret": "${GITHUB_TOKEN}",
		"scopes": ["read", "write"], "callbackPort": 8976, "clientMetadataUrl": "https://app/c.json"}}}}`
	got, _, err := ParseNative("mcp.json", []byte(in), config.LevelUser, testEnv)
	if err != nil || len(got) != 1 || got[0].Err != nil {
		t.Fatalf("%v, %v", err, got)
	}
	want := &config.OAuth{ClientID: "c", ClientSecret: "ghp_secret", Scopes: []string{"read", "write"}, CallbackPort: 8976, ClientMetadataURL: "https://app/c.json"}
	if diff := cmp.Diff(want, got[0].OAuth); diff != "" {
		t.Errorf("oauth (-want +got):\n%s", diff)
	}
	if got[0].Substituted["GITHUB_TOKEN"] != "ghp_secret" {
		t.Error("the client secret's variable is not recorded as a secret")
	}
	in = `{"mcpServers": {"s": {"url": "https://h/mcp", "oauth": {"clientSecret": "${GITHUB_TOKEN}"}}}}`
	got, _, _ = ParseNative("mcp.json", []byte(in), config.LevelUser, testEnv)
	if got[0].Err == nil || strings.Contains(got[0].Err.Error(), "ghp_secret") {
		t.Errorf("a secret without its client id: %v", got[0].Err)
	}
}

// TestParseNativeJSONC: our own file is JSONC, as VS Code's mcp.json is;
// positions stay those of the file as written.
func TestParseNativeJSONC(t *testing.T) {
	in := "{\n  // my servers\n  \"mcpServers\": {\n    /* the one I use */\n    \"a\": {\"command\": \"x\",},\n    \"b\": {\"url\": 7},\n  },\n}\n"
	got, _, err := ParseNative("mcp.json", []byte(in), config.LevelUser, testEnv)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"", `mcp.json:6:18: server "b": field "url": want a string, got number`}, errText(got)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if len(got) != 2 || got[0].Command != "x" || got[0].Source.Line != 5 {
		t.Errorf("servers = %+v", got)
	}
}
