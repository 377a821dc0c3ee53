package config

import (
	"testing"
)

func TestParsePolicyErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"deny": {}}`, `p.json:1:10: field "deny": want an array of rules, got object`},
		{`{"deny": ["x"]}`, `p.json:1:11: field "deny[0]": want a rule object like {"name": "…"}, got string`},
		{`{"allow": [{}]}`, `p.json:1:12: field "allow[0]": a rule needs a name, command or url`},
		{`{"allow": [{"name": 3}]}`, `p.json:1:21: field "allow[0].name": want a string, got number`},
		{`{"allowStdio": "no"}`, `p.json:1:16: field "allowStdio": want true or false, got string`},
		{`{"denny": []}`, `p.json:1:2: field "denny": unknown field (want allow, deny, allowStdio or allowRemote)`},
		{`{"deny": [`, `p.json:1:11: unexpected end of input (is the file truncated?)`},
		{`[]`, `p.json:1:1: top level must be an object, got array`},
	}
	for _, tt := range tests {
		_, err := ParsePolicy("p.json", []byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParsePolicy(%s) = %v, want %s", tt.in, err, tt.want)
		}
	}
	p, err := ParsePolicy("p.json", nil)
	if err != nil || !p.AllowStdio || !p.AllowRemote || p.Check(&ServerConfig{Name: "x", Command: "x"}) != "" {
		t.Errorf("empty policy: %+v, %v", p, err)
	}
}

func TestPolicyRules(t *testing.T) {
	p, err := ParsePolicy("p.json", []byte(`{
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
		c    ServerConfig
		want string
	}{
		{ServerConfig{Name: "d", Command: "/usr/bin/docker", Args: []string{"run"}}, `deny rule 1 (command "docker")`},
		{ServerConfig{Name: "e", Command: "npx", Args: []string{"-y", "@evil/server"}}, `deny rule 2 (command "npx -y @evil/*")`},
		{ServerConfig{Name: "ok", Command: "npx", Args: []string{"-y", "@good/server"}}, ""},
		{ServerConfig{Name: "plain", URL: "http://insecure.example/mcp"}, `deny rule 3 (url "http://*")`},
		{ServerConfig{Name: "tls", URL: "https://secure.example/mcp"}, ""},
		{ServerConfig{Name: "scratch-1", Command: "x"}, `deny rule 4 (name "scratch-*", command "*")`},
		{ServerConfig{Name: "scratch-2", URL: "https://x"}, ""}, // the command part does not match a remote server
	}
	for _, tt := range tests {
		if got := p.Check(&tt.c); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.c.Name, got, tt.want)
		}
	}
	var none *Policy
	if none.Check(&ServerConfig{Name: "x"}) != "" {
		t.Error("nil policy blocks")
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		p, s string
		want bool
	}{
		{"", "", true}, {"*", "", true}, {"*", "a/b", true}, {"a*c", "abbbc", true}, {"a*c", "abbb", false},
		{"?", "é", true}, {"a?c", "abc", true}, {"https://*.example.com/*", "https://mcp.example.com/v1/mcp", true},
		{"https://*.example.com/*", "https://example.com/", false}, {"*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.p, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v", tt.p, tt.s, got)
		}
	}
}

// FuzzParsePolicy: the policy parser never panics, and a file it rejects
// is a positioned error.
func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"allow": [{"name": "a*"}], "deny": [{"url": "http://*", "command": "x"}], "allowStdio": false}`,
		`{"deny": [{}]}`, `{"deny": [{"nmae": 1}]}`, `{"x": 1}`, `[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePolicy("f.json", data)
		if err != nil {
			checkDiagnostic(t, err)
			return
		}
		_ = p.Check(&ServerConfig{Name: "n", Command: "c", Args: []string{"a"}})
		_ = p.Check(&ServerConfig{Name: "n", URL: "https://u"})
	})
}
