// Package policy is the administrator's say over which servers may run at
// all (DESIGN.md F7), read from a file and checked before any connection; a
// file that cannot be read blocks everything (DESIGN.md, "Policy").
package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
	"github.com/switchboard-mcp/switchboard/internal/glob"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// An administrator's policy (DESIGN.md F7) says which servers may run at all,
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
// url: globs as internal/glob has them: * is any run of characters, /
// included, and ? any one).
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

// Env names the environment variable holding the policy file's path.
const Env = "SWITCHBOARD_POLICY"

// DefaultPath is the policy file used when Env is not set.
const DefaultPath = "/etc/switchboard/policy.json"

// Policy is a parsed policy file.
type Policy struct {
	Path        string
	Allow, Deny []Rule
	AllowStdio  bool
	AllowRemote bool
	// Err is set when the file could not be read or parsed; then every
	// server is blocked with it.
	Err error
}

// Rule matches servers by name, command and url globs; an empty
// field matches anything, and a rule needs at least one field.
type Rule struct {
	Name    string `json:"name,omitempty"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
}

// Path is $SWITCHBOARD_POLICY, or DefaultPath. A nil lookup means
// os.LookupEnv.
func Path(lookup config.LookupFunc) string {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	if p, ok := lookup(Env); ok && p != "" {
		return p
	}
	return DefaultPath
}

// Load reads the policy at path: nil when the file does not exist, a
// Policy with Err when it cannot be read or parsed.
func Load(path string) *Policy {
	// Read as every config file is (DESIGN.md, "Files"): a pipe, a device,
	// a dangling link or more than 4 MiB is an error, and fails closed.
	data, err := safefile.ReadLimited(path, safefile.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &Policy{Path: path, Err: err}
	}
	p, err := Parse(path, data)
	if err != nil {
		return &Policy{Path: path, Err: err}
	}
	return p
}

// Parse parses a policy file. The error is a *Diagnostic with the
// line and column of the problem.
func Parse(path string, data []byte) (*Policy, error) {
	d, err := doc.ParseJSON(path, data, false)
	if err != nil {
		return nil, err
	}
	p := &Policy{Path: path, AllowStdio: true, AllowRemote: true}
	if d.Root == nil {
		return p, nil
	}
	fail := func(off int, field, msg string) error {
		return d.Diag(off, "", field, msg)
	}
	if d.Root.Kind != doc.Object {
		return nil, fail(d.Root.Off, "", fmt.Sprintf("top level must be an object, got %s", d.Root.Kind))
	}
	for _, m := range d.Root.Members {
		v := m.Val
		switch m.Key {
		case "allow", "deny":
			rules, err := parseRules(v, m.Key, fail)
			if err != nil {
				return nil, err
			}
			if m.Key == "allow" {
				p.Allow = rules
			} else {
				p.Deny = rules
			}
		case "allowStdio", "allowRemote":
			if v.Kind != doc.Bool {
				return nil, fail(v.Off, m.Key, fmt.Sprintf("want true or false, got %s", v.Kind))
			}
			if m.Key == "allowStdio" {
				p.AllowStdio = v.Bool
			} else {
				p.AllowRemote = v.Bool
			}
		case "$schema", "description":
		default:
			return nil, fail(m.Off, m.Key, "unknown field (want allow, deny, allowStdio or allowRemote)")
		}
	}
	return p, nil
}

func parseRules(v *doc.Value, field string, fail func(int, string, string) error) ([]Rule, error) {
	if v.Kind != doc.Array {
		return nil, fail(v.Off, field, fmt.Sprintf("want an array of rules, got %s", v.Kind))
	}
	var rules []Rule
	for i, e := range v.Elems {
		f := fmt.Sprintf("%s[%d]", field, i)
		if e.Kind != doc.Object {
			return nil, fail(e.Off, f, fmt.Sprintf("want a rule object like {\"name\": \"…\"}, got %s", e.Kind))
		}
		var r Rule
		for _, m := range e.Members {
			if m.Val.Kind != doc.String {
				return nil, fail(m.Val.Off, f+"."+m.Key, fmt.Sprintf("want a string, got %s", m.Val.Kind))
			}
			switch m.Key {
			case "name":
				r.Name = m.Val.Str
			case "command":
				r.Command = m.Val.Str
			case "url":
				r.URL = m.Val.Str
			default:
				return nil, fail(m.Off, f+"."+m.Key, "unknown field (want name, command or url)")
			}
		}
		if r == (Rule{}) {
			return nil, fail(e.Off, f, "a rule needs a name, command or url")
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// Check returns why c may not run, or "" when it may.
func (p *Policy) Check(c *config.ServerConfig) string {
	if p == nil {
		return ""
	}
	if p.Err != nil {
		return fmt.Sprintf("policy file %s: %s", p.Path, ErrText(p.Err))
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

// ErrText is a policy file's error without the path, for a message that
// names the path first.
func ErrText(err error) string {
	var d *config.Diagnostic
	if errors.As(err, &d) {
		dd := *d
		dd.Path = ""
		return dd.Error()
	}
	return safefile.Reason(err)
}

// String renders a rule as it was written: (name "x*", url "…").
func (r Rule) String() string {
	var parts []string
	for _, f := range []struct{ k, v string }{{"name", r.Name}, {"command", r.Command}, {"url", r.URL}} {
		if f.v != "" {
			parts = append(parts, fmt.Sprintf("%s %q", f.k, f.v))
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (r Rule) matches(c *config.ServerConfig) bool {
	if r.Name != "" && !glob.Match(r.Name, c.Name) {
		return false
	}
	if r.Command != "" {
		if c.Command == "" {
			return false
		}
		line := strings.Join(append([]string{c.Command}, c.Args...), " ")
		if !glob.Match(r.Command, c.Command) && !glob.Match(r.Command, filepath.Base(c.Command)) && !glob.Match(r.Command, line) {
			return false
		}
	}
	if r.URL != "" && (c.URL == "" || !glob.Match(r.URL, c.URL)) {
		return false
	}
	return true
}
