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
}

func (e *UnsetVariableError) Error() string {
	return fmt.Sprintf("variable %s is not set (use ${%s:-default} to give a default)", e.Name, e.Name)
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
				return "", &UnsetVariableError{Name: name}
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
		return "", &UnsetVariableError{Name: name}
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
	if s != "~" && !strings.HasPrefix(s, "~/") {
		return Expand(s, lookup)
	}
	home, ok := orEnv(lookup)("HOME")
	if !ok || home == "" {
		return "", fmt.Errorf("cannot expand \"~\": HOME is not set")
	}
	rest, err := Expand(s[1:], lookup)
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
	fail := func(field string, err error) error {
		return &Diagnostic{Path: c.Source.Path, Line: c.Source.Line, Server: c.Name, Field: field, Message: err.Error(), Err: err}
	}
	// What the fields that may carry secrets took from the environment
	// (ServerConfig.Substituted).
	used := maps.Clone(c.Substituted)
	recorded := func(name string) (string, bool) {
		v, ok := lookup(name)
		if ok {
			if used == nil {
				used = map[string]string{}
			}
			used[name] = v
		}
		return v, ok
	}
	command, err := expandPath(c.Command, lookup)
	if err != nil {
		return fail("command", err)
	}
	var args []string
	for i, a := range c.Args {
		v, err := Expand(a, recorded)
		if err != nil {
			return fail(fmt.Sprintf("args[%d]", i), err)
		}
		args = append(args, v)
	}
	env, err := expandMap("env", c.Env, recorded, keepCommands, fail)
	if err != nil {
		return err
	}
	cwd, err := expandPath(c.Cwd, lookup)
	if err != nil {
		return fail("cwd", err)
	}
	u, err := Expand(c.URL, recorded)
	if err != nil {
		return fail("url", err)
	}
	headers, err := expandMap("headers", c.Headers, recorded, keepCommands, fail)
	if err != nil {
		return err
	}
	c.Command, c.Args, c.Env, c.Cwd, c.URL, c.Headers = command, args, env, cwd, u, headers
	c.Substituted = used
	return nil
}

// expandMap expands a map's values in key order, so the error reported
// for several bad values is always the same one.
func expandMap(field string, m map[string]string, lookup LookupFunc, keepCommands bool, fail func(string, error) error) (map[string]string, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if keepCommands && strings.HasPrefix(m[k], "!") {
			out[k] = m[k]
			continue
		}
		v, err := Expand(m[k], lookup)
		if err != nil {
			return nil, fail(field+"."+k, err)
		}
		out[k] = v
	}
	return out, nil
}
