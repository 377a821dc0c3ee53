package config

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// LookupFunc returns the value of a variable and whether it is set.
// os.LookupEnv is one; tests pass a map's lookup. A nil LookupFunc given to
// this package means os.LookupEnv.
type LookupFunc func(name string) (string, bool)

// MapLookup is a LookupFunc over a map: a fixed environment, for tests
// and for embedders that do not want the process's own.
func MapLookup(m map[string]string) LookupFunc {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

func orEnv(lookup LookupFunc) LookupFunc {
	if lookup == nil {
		return os.LookupEnv
	}
	return lookup
}

// UnsetVariableError is a reference to a variable that is not set and has
// no default. The server must not start: it would get a literal "${TOKEN}".
type UnsetVariableError struct {
	Name string
	// Hint says what to do about it in the syntax of the file that has
	// the reference ("use ${TOKEN:-default} to give a default" in ours);
	// "" for none, where the file's tool has no defaults.
	Hint string
}

func (e *UnsetVariableError) Error() string {
	if e.Hint == "" {
		return fmt.Sprintf("variable %s is not set", e.Name)
	}
	return fmt.Sprintf("variable %s is not set (%s)", e.Name, e.Hint)
}

// unset is the error of a reference in our own syntax, which has defaults.
func unset(name string) error {
	return &UnsetVariableError{Name: name, Hint: fmt.Sprintf("use ${%s:-default} to give a default", name)}
}

// Expand substitutes variable references in s:
//
//	${VAR}            the value of VAR; an error if VAR is not set
//	${VAR:-default}   VAR, or default when VAR is unset or empty (default may
//	                  itself hold references, expanded only when used)
//	${env:VAR}        the same as ${VAR}, as VS Code and Cline write it
//	{env:VAR}         the same again, as opencode writes it
//
// A "$" not followed by "{" is literal, and "$$" is kept as written ("$${X}"
// stays "$${X}"), so shell snippets like "echo $$" or "$HOME" survive. An
// unterminated "${" and a malformed reference are errors; a "{" that does
// not start a well-formed "{env:VAR}" is literal. An unset variable is an
// *UnsetVariableError.
func Expand(s string, lookup LookupFunc) (string, error) {
	return expand(s, orEnv(lookup), 0)
}

// maxNesting bounds defaults within defaults. Each level rescans the rest
// of the string, and project files come from repositories someone else
// wrote: without a bound, one line of "${A:-${A:-…" costs quadratic time.
const maxNesting = 8

func expand(s string, lookup LookupFunc, depth int) (string, error) {
	if !strings.Contains(s, "${") && !strings.Contains(s, "{env:") {
		return s, nil
	}
	if depth > maxNesting {
		return "", fmt.Errorf("defaults nested more than %d deep", maxNesting)
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.IndexAny(s[i:], "${")
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+j])
		i += j
		if s[i] == '{' {
			name, n := braceEnvRef(s[i:])
			if n == 0 {
				b.WriteByte('{')
				i++
				continue
			}
			v, ok := lookup(name)
			if !ok {
				return "", unset(name)
			}
			b.WriteString(v)
			i += n
			continue
		}
		switch {
		case strings.HasPrefix(s[i:], "$$"):
			b.WriteString("$$")
			i += 2
		case strings.HasPrefix(s[i:], "${"):
			end := closingBrace(s, i+2)
			if end < 0 {
				return "", fmt.Errorf("unterminated %q (missing \"}\")", clip.Text(s[i:]))
			}
			v, err := expandRef(s[i+2:end], lookup, depth)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			i = end + 1
		default:
			b.WriteByte('$')
			i++
		}
	}
	return b.String(), nil
}

// closingBrace returns the index of the "}" that closes a reference whose
// body starts at i, skipping nested references, or -1.
func closingBrace(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], "$$"):
			i += 2
		case strings.HasPrefix(s[i:], "${"):
			depth++
			i += 2
		case strings.HasPrefix(s[i:], "{env:"):
			_, n := braceEnvRef(s[i:])
			i += max(n, 1)
		case s[i] == '}':
			if depth == 0 {
				return i
			}
			depth--
			i++
		default:
			i++
		}
	}
	return -1
}

// expandRef expands the body of one "${…}".
func expandRef(body string, lookup LookupFunc, depth int) (string, error) {
	ref := body
	ref = strings.TrimPrefix(ref, "env:")
	n := 0
	for n < len(ref) && isNameByte(ref[n], n == 0) {
		n++
	}
	name, rest := ref[:n], ref[n:]
	hasDefault := strings.HasPrefix(rest, ":-")
	switch {
	case strings.HasPrefix(rest, ":") && !hasDefault:
		// ${input:…}, ${workspaceFolder:…}, … belong to other tools.
		return "", fmt.Errorf("unsupported variable %q (only ${VAR}, ${VAR:-default} and ${env:VAR} are supported)", clip.Text("${"+body+"}"))
	case name == "" || rest != "" && !hasDefault:
		return "", fmt.Errorf("invalid variable reference %q", clip.Text("${"+body+"}"))
	}
	v, ok := lookup(name)
	if hasDefault {
		if ok && v != "" {
			return v, nil
		}
		return expand(rest[2:], lookup, depth+1)
	}
	if !ok {
		return "", unset(name)
	}
	return v, nil
}

// braceEnvRef reads opencode's "{env:NAME}" at the start of s and returns
// the name and the reference's length, or 0 when s does not start with a
// well-formed one.
func braceEnvRef(s string) (name string, n int) {
	const prefix = "{env:"
	if !strings.HasPrefix(s, prefix) {
		return "", 0
	}
	i := len(prefix)
	for i < len(s) && isNameByte(s[i], i == len(prefix)) {
		i++
	}
	if i == len(prefix) || i >= len(s) || s[i] != '}' {
		return "", 0
	}
	return s[len(prefix):i], i + 1
}

// isNameByte reports whether c may appear in a variable name, as in the
// shell: letters, digits and underscores, not starting with a digit.
func isNameByte(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
}

// IsVariableName reports whether s can be referenced as ${s}: letters,
// digits and underscores, not starting with a digit.
func IsVariableName(s string) bool {
	for i := range len(s) {
		if !isNameByte(s[i], i == 0) {
			return false
		}
	}
	return s != ""
}

// expandPath is Expand plus a leading "~" or "~/" for the home directory,
// for command and cwd. "~user" is left alone.
func expandPath(s string, lookup LookupFunc) (string, error) {
	return ExpandHome(s, lookup, func(s string) (string, error) { return Expand(s, lookup) })
}

// ExpandHome is expand for a path (a command, a cwd): a leading "~" or
// "~/" is the home directory, $HOME from lookup (nil: os.LookupEnv), and
// expand is applied to the rest. "~user" is left to expand whole.
func ExpandHome(s string, lookup LookupFunc, expand func(string) (string, error)) (string, error) {
	if s != "~" && !strings.HasPrefix(s, "~/") {
		return expand(s)
	}
	home, ok := orEnv(lookup)("HOME")
	if !ok || home == "" {
		return "", fmt.Errorf("cannot expand \"~\": HOME is not set")
	}
	rest, err := expand(s[1:])
	if err != nil {
		return "", err
	}
	return home + rest, nil
}

// Substitute expands variables (see Expand) in c's command, args, env
// values, cwd, url and header values, and a leading "~" in command and cwd.
// On failure it returns a *Diagnostic naming the field, positioned at
// c.Source, and leaves c unchanged; it never mutates c's slices or maps in
// place, since a caller may share them.
func Substitute(c *ServerConfig, lookup LookupFunc) error {
	return substitute(c, lookup, false)
}

// SubstituteKeepingCommands is Substitute, except that env and header
// values that are "!command"s are left as written, for discovery to run:
// the shell expands the command's own variables.
func SubstituteKeepingCommands(c *ServerConfig, lookup LookupFunc) error {
	return substitute(c, lookup, true)
}

// substitute is Substitute; with keepCommands, env and header values that
// are "!command"s are left as written, for resolveCommands: the shell
// expands the command's own variables.
func substitute(c *ServerConfig, lookup LookupFunc, keepCommands bool) error {
	lookup = orEnv(lookup)
	used, recorded := RecordLookups(c.Substituted, lookup)
	err := MapStrings(c, func(field, s string) (string, error) {
		switch {
		case field == "command" || field == "cwd":
			return expandPath(s, lookup)
		case keepCommands && IsCommandValue(field, s):
			return s, nil
		}
		return Expand(s, recorded)
	})
	if err == nil && len(used) > 0 {
		c.Substituted = used
	}
	return err
}

// RecordLookups returns a lookup that notes each variable it finds set in
// used (a copy of prev), for ServerConfig.Substituted: the values the
// fields that may carry secrets took from the environment. Command and
// cwd take places (HOME), not secrets, and use the plain lookup.
func RecordLookups(prev map[string]string, lookup LookupFunc) (used map[string]string, recorded LookupFunc) {
	used = maps.Clone(prev)
	if used == nil {
		used = map[string]string{}
	}
	return used, func(name string) (string, bool) {
		v, ok := lookup(name)
		if ok {
			used[name] = v
		}
		return v, ok
	}
}

// IsCommandValue reports whether s, the value of field, is a "!command"
// where our own files allow one: an env or header value starting with
// "!" (DESIGN.md, "Secrets").
func IsCommandValue(field, s string) bool {
	return strings.HasPrefix(s, "!") && (strings.HasPrefix(field, "env.") || strings.HasPrefix(field, "headers.") || secretField(field))
}

// secretField reports whether field is one of the oauth secrets that take
// a "!command" like an env value.
func secretField(field string) bool {
	switch field {
	case "oauth.clientSecret", "oauth.privateKey", "oauth.identityProvider.clientSecret", "oauth.identityProvider.idToken":
		return true
	}
	return false
}

// MapStrings applies fn to every string substitution reads, each named by
// its field: "command", "args[0]", "env.TOKEN", "cwd", "url",
// "headers.Authorization", in that order (map keys sorted, so an error
// always names the same field). It is the one walk over those strings,
// for our substitution and for each tool's own. An empty command, cwd or
// url is left alone. On failure it returns a *Diagnostic naming the field,
// positioned at c.Source, and leaves c unchanged; c's slices and maps are
// replaced, never changed in place, since a caller may share them.
func MapStrings(c *ServerConfig, fn func(field, s string) (string, error)) error {
	fail := func(field string, err error) error {
		return &Diagnostic{Path: c.Source.Path, Line: c.Source.Line, Server: c.Name, Field: field, Message: err.Error(), Err: err}
	}
	one := func(field, s string) (string, error) {
		if s == "" {
			return "", nil
		}
		return fn(field, s)
	}
	out := *c
	var err error
	if out.Command, err = one("command", c.Command); err != nil {
		return fail("command", err)
	}
	out.Args = nil
	for i, a := range c.Args {
		f := fmt.Sprintf("args[%d]", i)
		v, err := fn(f, a)
		if err != nil {
			return fail(f, err)
		}
		out.Args = append(out.Args, v)
	}
	if out.Env, err = mapValues("env", c.Env, fn); err != nil {
		return fail(err.(*fieldError).field, err.(*fieldError).err)
	}
	if out.Cwd, err = one("cwd", c.Cwd); err != nil {
		return fail("cwd", err)
	}
	if out.URL, err = one("url", c.URL); err != nil {
		return fail("url", err)
	}
	if out.Headers, err = mapValues("headers", c.Headers, fn); err != nil {
		return fail(err.(*fieldError).field, err.(*fieldError).err)
	}
	if c.OAuth != nil {
		o := *c.OAuth
		if o.ClientID, err = one("oauth.clientId", o.ClientID); err != nil {
			return fail("oauth.clientId", err)
		}
		if o.ClientSecret, err = one("oauth.clientSecret", o.ClientSecret); err != nil {
			return fail("oauth.clientSecret", err)
		}
		if o.PrivateKey, err = one("oauth.privateKey", o.PrivateKey); err != nil {
			return fail("oauth.privateKey", err)
		}
		if o.IdentityProvider != nil {
			p := *o.IdentityProvider
			for _, f := range []struct {
				name string
				val  *string
			}{{"issuer", &p.Issuer}, {"tokenEndpoint", &p.TokenEndpoint}, {"clientId", &p.ClientID}, {"clientSecret", &p.ClientSecret}, {"idToken", &p.IDToken}} {
				field := "oauth.identityProvider." + f.name
				if *f.val, err = one(field, *f.val); err != nil {
					return fail(field, err)
				}
			}
			o.IdentityProvider = &p
		}
		out.OAuth = &o
	}
	*c = out
	return nil
}

type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.err.Error() }

// mapValues applies fn to a map's values in key order.
func mapValues(field string, m map[string]string, fn func(field, s string) (string, error)) (map[string]string, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		f := field + "." + k
		v, err := fn(f, m[k])
		if err != nil {
			return nil, &fieldError{f, err}
		}
		out[k] = v
	}
	return out, nil
}
