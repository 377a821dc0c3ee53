package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
)

func TestParsePolicyErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"deny": {}}`, `p.json:1:10: field "deny": want an array of rules, got object`},
		{`{"deny": ["x"]}`, `p.json:1:11: field "deny[0]": want a rule object like {"name": "…"}, got string`},
		{`{"allow": [{}]}`, `p.json:1:12: field "allow[0]": a rule needs a name, command or url`},
		{`{"allow": [{"name": 3}]}`, `p.json:1:21: field "allow[0].name": want a string, got number`},
		{`{"allowStdio": "no"}`, `p.json:1:16: field "allowStdio": want true or false, got string`},
		{`{"denny": []}`, `p.json:1:2: field "denny": unknown field (want allow, deny, allowStdio, allowRemote, allowWrappers or env)`},
		{`{"deny": [`, `p.json:1:11: unexpected end of input (is the file truncated?)`},
		{`[]`, `p.json:1:1: top level must be an object, got array`},
		{`{"allowWrappers": 1}`, `p.json:1:19: field "allowWrappers": want true or false, got number`},
		// Everything ambiguous fails closed, saying why.
		{``, `p.json:1:1: the file is empty; a policy must say what it allows ({} allows everything)`},
		{" \n\t\n", `p.json:1:1: the file is empty; a policy must say what it allows ({} allows everything)`},
		{`{"deny": [{"command": "docker"}],` + "\n" + `"deny": []}`, `p.json:2:1: field "deny": given twice (first at line 1); say it once`},
		{`{"allowStdio": false, "allowStdio": true}`, `p.json:1:23: field "allowStdio": given twice (first at line 1); say it once`},
		{`{"deny": [{"name": "a", "name": "b"}]}`, `p.json:1:25: field "deny[0].name": given twice (first at line 1); say it once`},
		{`{"allow": []}`, `p.json:1:11: field "allow": an empty allow list is ambiguous: to block every server write "deny": [{"name": "*"}], to allow every one leave "allow" out`},
		{`{"deny": [{"name": "x", "command": ""}]}`, `p.json:1:36: field "deny[0].command": an empty pattern matches nothing but an empty value; leave the field out`},
		{`{"allow": [{"command": "npx"}]}`, `p.json:1:24: field "allow[0].command": "npx" is not an absolute path: an allow rule admits a program by where it is, like "/usr/bin/npx" or "/opt/mcp/bin/*" (a bare name would admit any program of that name anywhere)`},
		{`{"allow": [{"command": "*/npx"}]}`, `p.json:1:24: field "allow[0].command": "*/npx" is not an absolute path`},
	}
	for _, tt := range tests {
		_, err := Parse("p.json", []byte(tt.in))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want %s", tt.in, err, tt.want)
		}
	}
	p, err := Parse("p.json", []byte(`{}`))
	if err != nil || !p.AllowStdio || !p.AllowRemote || p.AllowWrappers || p.Check(&config.ServerConfig{Name: "x", Command: "sh", Args: []string{"-c", "x"}}, Runtime{}) != "" {
		t.Errorf("{} allows everything: %+v, %v", p, err)
	}
	if _, err := Parse("p.json", []byte(`{"allow": [{"command": "/usr/bin/npx"}, {"command": "/opt/*"}]}`)); err != nil {
		t.Errorf("absolute allow commands: %v", err)
	}
}

func TestRules(t *testing.T) {
	p, err := Parse("p.json", []byte(`{
  "deny": [
    {"command": "docker"},
    {"command": "npx -y @evil/*"},
    {"url": "http://*"},
    {"name": "scratch-*", "command": "*"}
  ]
}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		c    config.ServerConfig
		want string
	}{
		{config.ServerConfig{Name: "d", Command: "/usr/bin/docker", Args: []string{"run"}}, `deny rule 1 (command "docker")`},
		{config.ServerConfig{Name: "e", Command: "npx", Args: []string{"-y", "@evil/server"}}, `deny rule 2 (command "npx -y @evil/*")`},
		{config.ServerConfig{Name: "ok", Command: "npx", Args: []string{"-y", "@good/server"}}, ""},
		{config.ServerConfig{Name: "plain", URL: "http://insecure.example/mcp"}, `deny rule 3 (url "http://*")`},
		{config.ServerConfig{Name: "tls", URL: "https://secure.example/mcp"}, ""},
		{config.ServerConfig{Name: "scratch-1", Command: "x"}, `deny rule 4 (name "scratch-*", command "*")`},
		{config.ServerConfig{Name: "scratch-2", URL: "https://x"}, ""}, // the command part does not match a remote server
	}
	for _, tt := range tests {
		if got := p.Check(&tt.c, Runtime{}); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.c.Name, got, tt.want)
		}
	}
	var none *Policy
	if none.Check(&config.ServerConfig{Name: "x"}, Runtime{}) != "" {
		t.Error("nil policy blocks")
	}
}

// FuzzParsePolicy: the policy parser never panics, and a file it rejects
// is a positioned error.
func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"allow": [{"name": "a*"}], "deny": [{"url": "http://*", "command": "x"}], "allowStdio": false}`,
		`{"allow": [{"command": "/usr/bin/*"}], "deny": [{"command": "docker"}], "allowWrappers": true}`, `{"deny": [], "deny": []}`,
		`{"deny": [{}]}`, `{"deny": [{"nmae": 1}]}`, `{"x": 1}`, `[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.json", data)
		if err != nil {
			var d *config.Diagnostic
			if !errors.As(err, &d) || d.Line < 1 || d.Column < 1 || d.Path != "f.json" || d.Message == "" {
				t.Fatalf("error %v is not a positioned diagnostic", err)
			}
			return
		}
		_ = p.Check(&config.ServerConfig{Name: "n", Command: "c", Args: []string{"a"}}, Runtime{})
		_ = p.Check(&config.ServerConfig{Name: "n", Command: "env", Args: []string{"-u", "X", "A=b", "c"}}, Runtime{})
		_ = p.Check(&config.ServerConfig{Name: "n", URL: "https://u"}, Runtime{})
	})
}

// TestURLRules: a url rule is judged by the url's parts (found by an
// attacker's pass: the README's own allow pattern admitted a path that
// held ".example.com", and a deny was dodged by an upper-case scheme).
func TestURLRules(t *testing.T) {
	for _, tc := range []struct {
		pattern, url string
		want         bool
	}{
		{"https://*.example.com/*", "https://api.example.com/v1/mcp", true},
		{"https://*.example.com/*", "https://127.0.0.1:8080/.example.com/mcp", false},
		{"http://*.example.com/*", "http://127.0.0.1:18777/.example.com/mcp", false},
		{"http://127.0.0.1:*", "HTTP://127.0.0.1:18777/mcp", true},
		{"http://127.0.0.1:*", "http://127.0.0.1:18777/mcp?x=1", true},
		{"https://mcp.example.com/sse", "https://MCP.Example.com/sse", true},
		{"https://mcp.example.com/sse", "https://mcp.example.com/other", false},
		{"*example.com*", "https://evil.test/example.com", true}, // no scheme: a whole-string glob
	} {
		if got := urlMatch(tc.pattern, tc.url); got != tc.want {
			t.Errorf("urlMatch(%q, %q) = %v, want %v", tc.pattern, tc.url, got, tc.want)
		}
	}
}
