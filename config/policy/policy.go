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
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// An administrator's policy (DESIGN.md F7) says which servers may run at all,
// before any connection. It is a JSON file:
//
//	{
//	  "allow": [{"name": "github"}, {"command": "/usr/bin/npx"}, {"url": "https://*.example.com/*"}],
//	  "deny":  [{"command": "docker"}, {"name": "scratch-*"}],
//	  "allowStdio": true,
//	  "allowRemote": true,
//	  "allowWrappers": false,
//	  "env": {"allow": ["GITHUB_*", "LOG_LEVEL"], "deny": ["AWS_*"]}
//	}
//
// A rule matches a server when every field it gives matches (name, command,
// url: globs as internal/glob has them: * is any run of characters, /
// included, and ? any one). A server that matches a deny rule is blocked;
// with an allow list, a server that matches no allow rule is blocked;
// "allowStdio": false blocks every local server and "allowRemote": false
// every remote one (absent switches allow). "env" restricts the names of
// the variables a local server's config may set: one that matches a deny
// glob, or none of the allow globs when there are any, blocks the server.
//
// Command rules judge what will run, not what the config says (check.go,
// program.go): the command is found as the transport finds it
// (internal/execpath: the server's env PATH, then the host's) and its
// symbolic links followed. A deny pattern is tried on every name of the
// program (as configured, the file found, each link on the way, the file
// at the end, and their base names), alone and followed by the args, so
// "docker" blocks a link named dockr to it. An allow pattern must be an
// absolute path (a bare "npx" is an error): it admits a program by where
// it is, tried on the file found, each link and the file at the end, so
// it cannot admit any program of that name anywhere. With any command
// rule, a shell or launcher that can start any program (sh -c, sudo,
// xargs, node -e, ...) is blocked unless "allowWrappers": true; env is
// seen through, and both env and the program it runs are judged.
//
// A missing file is no policy. Anything else that does not say clearly
// what is allowed blocks every server (fail closed), naming the file and,
// when it is in the text, the line and column: a file that cannot be read
// (a pipe, a device, a dangling link, over 4 MiB), an empty file, a syntax
// error, an unknown or duplicated field, an empty pattern, an empty allow
// list, a relative allow command.

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
	// AllowWrappers lets a policy with command rules admit shells and
	// launchers whose program it cannot see (sh -c "..."); false blocks
	// them, since no rule could judge what they start.
	AllowWrappers bool
	// EnvAllow and EnvDeny are the "env" globs: the names of variables a
	// server's config may set. Empty EnvAllow allows any name not denied.
	EnvAllow, EnvDeny []string
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
	fail := func(off int, field, msg string) error {
		return d.Diag(off, "", field, msg)
	}
	if d.Root == nil {
		// An administrator who means "allow everything" can say {}; an
		// empty file is as likely a truncated copy.
		return nil, fail(0, "", "the file is empty; a policy must say what it allows ({} allows everything)")
	}
	if d.Root.Kind != doc.Object {
		return nil, fail(d.Root.Off, "", fmt.Sprintf("top level must be an object, got %s", d.Root.Kind))
	}
	if err := noDuplicates(d, d.Root, ""); err != nil {
		return nil, err
	}
	for _, m := range d.Root.Members {
		v := m.Val
		switch m.Key {
		case "allow", "deny":
			rules, err := parseRules(d, v, m.Key, fail)
			if err != nil {
				return nil, err
			}
			if m.Key == "allow" {
				p.Allow = rules
			} else {
				p.Deny = rules
			}
		case "allowStdio", "allowRemote", "allowWrappers":
			if v.Kind != doc.Bool {
				return nil, fail(v.Off, m.Key, fmt.Sprintf("want true or false, got %s", v.Kind))
			}
			switch m.Key {
			case "allowStdio":
				p.AllowStdio = v.Bool
			case "allowRemote":
				p.AllowRemote = v.Bool
			default:
				p.AllowWrappers = v.Bool
			}
		case "env":
			if err := parseEnvField(d, v, p, fail); err != nil {
				return nil, err
			}
		case "$schema", "description":
		default:
			return nil, fail(m.Off, m.Key, "unknown field (want allow, deny, allowStdio, allowRemote, allowWrappers or env)")
		}
	}
	return p, nil
}

// noDuplicates refuses an object that gives a field twice: JSON readers
// disagree on which copy holds (encoding/json takes the last), so either
// reading could be the one the administrator did not mean.
func noDuplicates(d *doc.Doc, obj *doc.Value, prefix string) error {
	first := map[string]int{}
	for _, m := range obj.Members {
		if off, dup := first[m.Key]; dup {
			return d.Diag(m.Off, "", prefix+m.Key, fmt.Sprintf("given twice (first at line %d); say it once", d.Lines.Line(off)))
		}
		first[m.Key] = m.Off
	}
	return nil
}

func parseRules(d *doc.Doc, v *doc.Value, field string, fail func(int, string, string) error) ([]Rule, error) {
	if v.Kind != doc.Array {
		return nil, fail(v.Off, field, fmt.Sprintf("want an array of rules, got %s", v.Kind))
	}
	if field == "allow" && len(v.Elems) == 0 {
		return nil, fail(v.Off, field, `an empty allow list is ambiguous: to block every server write "deny": [{"name": "*"}], to allow every one leave "allow" out`)
	}
	var rules []Rule
	for i, e := range v.Elems {
		f := fmt.Sprintf("%s[%d]", field, i)
		if e.Kind != doc.Object {
			return nil, fail(e.Off, f, fmt.Sprintf(`want a rule object like {"name": "…"}, got %s`, e.Kind))
		}
		if err := noDuplicates(d, e, f+"."); err != nil {
			return nil, err
		}
		var r Rule
		for _, m := range e.Members {
			if m.Val.Kind != doc.String {
				return nil, fail(m.Val.Off, f+"."+m.Key, fmt.Sprintf("want a string, got %s", m.Val.Kind))
			}
			if m.Val.Str == "" {
				return nil, fail(m.Val.Off, f+"."+m.Key, "an empty pattern matches nothing but an empty value; leave the field out")
			}
			switch m.Key {
			case "name":
				r.Name = m.Val.Str
			case "command":
				r.Command = m.Val.Str
				if field == "allow" && !isAbsPattern(r.Command) {
					return nil, fail(m.Val.Off, f+"."+m.Key, fmt.Sprintf(
						`%q is not an absolute path: an allow rule admits a program by where it is, like "/usr/bin/npx" or "/opt/mcp/bin/*" (a bare name would admit any program of that name anywhere)`, r.Command))
				}
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

// parseEnvField reads "env": {"allow": [globs], "deny": [globs]}.
func parseEnvField(d *doc.Doc, v *doc.Value, p *Policy, fail func(int, string, string) error) error {
	if v.Kind != doc.Object {
		return fail(v.Off, "env", fmt.Sprintf(`want an object like {"deny": ["AWS_*"]}, got %s`, v.Kind))
	}
	if err := noDuplicates(d, v, "env."); err != nil {
		return err
	}
	for _, m := range v.Members {
		f := "env." + m.Key
		if m.Key != "allow" && m.Key != "deny" {
			return fail(m.Off, f, "unknown field (want allow or deny)")
		}
		if m.Val.Kind != doc.Array {
			return fail(m.Val.Off, f, fmt.Sprintf("want an array of name globs, got %s", m.Val.Kind))
		}
		if m.Key == "allow" && len(m.Val.Elems) == 0 {
			return fail(m.Val.Off, f, `an empty allow list is ambiguous: to forbid every variable write "deny": ["*"], to allow every one leave "allow" out`)
		}
		var globs []string
		for i, e := range m.Val.Elems {
			if e.Kind != doc.String || e.Str == "" {
				return fail(e.Off, fmt.Sprintf("%s[%d]", f, i), "want a non-empty name glob")
			}
			globs = append(globs, e.Str)
		}
		if m.Key == "allow" {
			p.EnvAllow = globs
		} else {
			p.EnvDeny = globs
		}
	}
	return nil
}

// isAbsPattern reports whether an allow command pattern starts with an
// absolute path: /... everywhere, or C:\... on Windows.
func isAbsPattern(pat string) bool {
	return strings.HasPrefix(pat, "/") || filepath.IsAbs(pat)
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
