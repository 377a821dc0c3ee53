package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// An administrator's policy (SPEC F7) says which servers may run at all,
// before any connection. It is a JSON file:
//
//	{
//	  "allow": [{"name": "github"}, {"url": "https://*.example.com/*"}],
//	  "deny":  [{"command": "docker"}, {"name": "scratch-*"}],
//	  "allowStdio": true,
//	  "allowRemote": true
//	}
//
// A rule matches a server when every field it gives matches (name, command,
// url: globs where * is any run of characters, / included, and ? any one).
// A command pattern is tried on the command as configured, on its base
// name, and on the whole command line (command and args joined by spaces),
// so "npx" matches /usr/local/bin/npx. A server that matches a deny rule is
// blocked; with a non-empty allow list, a server that matches no allow rule
// is blocked; "allowStdio": false blocks every local server and
// "allowRemote": false every remote one (absent switches allow). Unknown
// fields are errors: a misspelt "deny" must not silently allow.
//
// A missing file is no policy. A file that cannot be read or parsed blocks
// every server (fail closed), naming the file and the line and column.

// PolicyEnv names the environment variable holding the policy file's path.
const PolicyEnv = "SWITCHBOARD_POLICY"

// DefaultPolicyPath is the policy file used when PolicyEnv is not set.
const DefaultPolicyPath = "/etc/switchboard/policy.json"

// Policy is a parsed policy file.
type Policy struct {
	Path        string
	Allow, Deny []PolicyRule
	AllowStdio  bool
	AllowRemote bool
	// Err is set when the file could not be read or parsed; then every
	// server is blocked with it.
	Err error
}

// PolicyRule matches servers by name, command and url globs; an empty
// field matches anything, and a rule needs at least one field.
type PolicyRule struct {
	Name    string `json:"name,omitempty"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
}

// PolicyPath is $SWITCHBOARD_POLICY, or DefaultPolicyPath.
func PolicyPath(lookup LookupFunc) string {
	if p, ok := orEnv(lookup)(PolicyEnv); ok && p != "" {
		return p
	}
	return DefaultPolicyPath
}

// LoadPolicy reads the policy at path: nil when the file does not exist, a
// Policy with Err when it cannot be read or parsed.
func LoadPolicy(path string) *Policy {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &Policy{Path: path, Err: err}
	}
	p, err := ParsePolicy(path, data)
	if err != nil {
		return &Policy{Path: path, Err: err}
	}
	return p
}

// ParsePolicy parses a policy file. The error is a *Diagnostic with the
// line and column of the problem.
func ParsePolicy(path string, data []byte) (*Policy, error) {
	doc, err := parseJSONDoc("policy", Location{Path: path}, data, false)
	if err != nil {
		return nil, err
	}
	p := &Policy{Path: path, AllowStdio: true, AllowRemote: true}
	if doc.root == nil {
		return p, nil
	}
	fail := func(off int, field, msg string) error {
		return doc.lines.diag(path, off, "", field, msg)
	}
	for _, m := range doc.root.members {
		v := m.val
		switch m.key {
		case "allow", "deny":
			rules, err := parseRules(v, m.key, fail)
			if err != nil {
				return nil, err
			}
			if m.key == "allow" {
				p.Allow = rules
			} else {
				p.Deny = rules
			}
		case "allowStdio", "allowRemote":
			if v.kind != jsonBool {
				return nil, fail(v.off, m.key, fmt.Sprintf("want true or false, got %s", v.kind))
			}
			if m.key == "allowStdio" {
				p.AllowStdio = v.b
			} else {
				p.AllowRemote = v.b
			}
		case "$schema", "description":
		default:
			return nil, fail(m.off, m.key, "unknown field (want allow, deny, allowStdio or allowRemote)")
		}
	}
	return p, nil
}

func parseRules(v *jsonValue, field string, fail func(int, string, string) error) ([]PolicyRule, error) {
	if v.kind != jsonArray {
		return nil, fail(v.off, field, fmt.Sprintf("want an array of rules, got %s", v.kind))
	}
	var rules []PolicyRule
	for i, e := range v.elems {
		f := fmt.Sprintf("%s[%d]", field, i)
		if e.kind != jsonObject {
			return nil, fail(e.off, f, fmt.Sprintf("want a rule object like {\"name\": \"…\"}, got %s", e.kind))
		}
		var r PolicyRule
		for _, m := range e.members {
			if m.val.kind != jsonString {
				return nil, fail(m.val.off, f+"."+m.key, fmt.Sprintf("want a string, got %s", m.val.kind))
			}
			switch m.key {
			case "name":
				r.Name = m.val.str
			case "command":
				r.Command = m.val.str
			case "url":
				r.URL = m.val.str
			default:
				return nil, fail(m.off, f+"."+m.key, "unknown field (want name, command or url)")
			}
		}
		if r == (PolicyRule{}) {
			return nil, fail(e.off, f, "a rule needs a name, command or url")
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// Check returns why c may not run, or "" when it may.
func (p *Policy) Check(c *ServerConfig) string {
	if p == nil {
		return ""
	}
	if p.Err != nil {
		return fmt.Sprintf("policy file %s: %s", p.Path, policyErrText(p.Err))
	}
	for i, r := range p.Deny {
		if r.matches(c) {
			return fmt.Sprintf("deny rule %d %s", i+1, r)
		}
	}
	if len(p.Allow) > 0 {
		allowed := false
		for _, r := range p.Allow {
			if r.matches(c) {
				allowed = true
				break
			}
		}
		if !allowed {
			return "not in the policy's allow list"
		}
	}
	switch {
	case c.Command != "" && !p.AllowStdio:
		return "the policy forbids local (stdio) servers"
	case c.URL != "" && !p.AllowRemote:
		return "the policy forbids remote servers"
	}
	return ""
}

// policyErrText is the error without the path, which Check puts first.
func policyErrText(err error) string {
	var d *Diagnostic
	if errors.As(err, &d) {
		dd := *d
		dd.Path = ""
		return dd.Error()
	}
	return err.Error()
}

// String renders a rule as it was written: (name "x*", url "…").
func (r PolicyRule) String() string {
	var parts []string
	for _, f := range []struct{ k, v string }{{"name", r.Name}, {"command", r.Command}, {"url", r.URL}} {
		if f.v != "" {
			parts = append(parts, fmt.Sprintf("%s %q", f.k, f.v))
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (r PolicyRule) matches(c *ServerConfig) bool {
	if r.Name != "" && !globMatch(r.Name, c.Name) {
		return false
	}
	if r.Command != "" {
		if c.Command == "" {
			return false
		}
		line := strings.Join(append([]string{c.Command}, c.Args...), " ")
		if !globMatch(r.Command, c.Command) && !globMatch(r.Command, filepath.Base(c.Command)) && !globMatch(r.Command, line) {
			return false
		}
	}
	if r.URL != "" && (c.URL == "" || !globMatch(r.URL, c.URL)) {
		return false
	}
	return true
}

// globMatch matches s against pattern, where * is any run of characters
// and ? any one character; everything else is literal. It runs in
// O(len(pattern)·len(s)) however the stars fall.
func globMatch(pattern, s string) bool {
	p, n := []rune(pattern), []rune(s)
	pi, ni := 0, 0
	star, mark := -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ni
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			ni = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
