package source

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// Each tool names variables in its own way, and resolves them itself:
// Claude Code writes ${VAR} and ${VAR:-default}, VS Code ${env:VAR} (an
// unset one is empty), opencode {env:VAR}, Gemini CLI $VAR, Continue
// ${{ secrets.VAR }}, Zed and Claude Desktop nothing at all. A file is
// read the way its tool reads it (DESIGN.md F5): its adapter gives each
// entry its tool's syntax, and Entry.Substitute applies it once
// discovery knows the server may start, so a disabled or shadowed entry
// never has a variable looked up. A form a tool does not know is text to
// it, and stays text here: "${HOME}" in a Continue argument reaches the
// server as written. Only switchboard's own files run "!command" secret
// helpers; in any other tool's file a value that starts with "!" is
// literal.

// syntax is how one tool's files refer to variables.
type syntax struct {
	// expand resolves the references in s, the value of field (a
	// config.MapStrings name: "args[0]", "env.TOKEN"). Nil takes every
	// string as written.
	expand func(field, s string, lookup config.LookupFunc) (string, error)
	// commands: an env or header value that starts with "!" once
	// expanded is a secret helper for discovery to run ("!!" for a
	// literal "!"). Our own files write them so; Crush's expand makes
	// its $(…) one, and keeps its literal "!" as "!!".
	commands bool
}

// noVariables expands nothing: the files of Claude Desktop, Zed and LM
// Studio, whose tools document no references, and of Codex and Goose,
// which take variables by name instead (see ref).
var noVariables = &syntax{}

// nativeSyntax is our own: every form config.Expand knows, and "!command"
// values, left as written for the shell to expand their variables.
var nativeSyntax = &syntax{
	expand: func(field, s string, lookup config.LookupFunc) (string, error) {
		if config.IsCommandValue(field, s) {
			return s, nil
		}
		return config.Expand(s, lookup)
	},
	commands: true,
}

// ref is a value a tool takes from the environment by the variable's
// name rather than from a reference in the text: Codex's env_vars,
// env_http_headers and bearer_token_env_var, Goose's env_keys. The entry
// shows it as a reference ("${NAME}"); Substitute resolves it by the
// tool's rule.
type ref struct {
	name   string
	prefix string // put before the value ("Bearer ")
	// emptyIsUnset: an empty value counts as unset (Codex's headers).
	emptyIsUnset bool
	// fallback, when set, is the value when the variable is unset
	// (Codex's http_headers value under an env_http_headers one).
	fallback *string
	// required: unset is the server's error, with hint; otherwise the
	// field is left out, as the tool leaves it out.
	required bool
	hint     string
}

// Substitute resolves the entry's variables by its tool's own rules: the
// references its syntax knows, the values it takes by name, and a
// leading "~" in command and cwd. lookup nil means os.LookupEnv. An error
// leaves the config as it was and is a *config.Diagnostic positioned at
// the field. An entry from no file (a test's) has our own syntax.
func (e *Entry) Substitute(lookup config.LookupFunc) error {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	syn := e.syntax
	if syn == nil {
		syn = nativeSyntax
	}
	c := e.Config
	// What the fields that may carry secrets take from the environment is
	// remembered, for the host's redactor (ServerConfig.Substituted).
	used, recorded := config.RecordLookups(c.Substituted, lookup)
	if err := e.resolveRefs(&c, recorded); err != nil {
		return e.Locate(err)
	}
	err := config.MapStrings(&c, func(field, s string) (string, error) {
		if _, byName := e.refs[field]; byName {
			return s, nil
		}
		expand := func(s string, lookup config.LookupFunc) (string, error) {
			if syn.expand == nil {
				return s, nil
			}
			return syn.expand(field, s, lookup)
		}
		if field == "command" || field == "cwd" {
			return config.ExpandHome(s, lookup, func(s string) (string, error) { return expand(s, lookup) })
		}
		return expand(s, recorded)
	})
	if err != nil {
		return e.Locate(err)
	}
	if len(used) > 0 {
		c.Substituted = used
	}
	e.Config = c
	return nil
}

// RunsCommands reports whether the entry's "!command" env and header
// values are secret helpers (DESIGN.md, "Secrets"): only in our own
// files, and Crush's $(…).
func (e *Entry) RunsCommands() bool {
	return e.syntax == nil || e.syntax.commands
}

// resolveRefs replaces the values taken by name in c's maps, cloned.
func (e *Entry) resolveRefs(c *config.ServerConfig, lookup config.LookupFunc) error {
	if len(e.refs) == 0 {
		return nil
	}
	c.Env, c.Headers = maps.Clone(c.Env), maps.Clone(c.Headers)
	for _, field := range slices.Sorted(maps.Keys(e.refs)) {
		r := e.refs[field]
		m, key := &c.Env, strings.TrimPrefix(field, "env.")
		if k, ok := strings.CutPrefix(field, "headers."); ok {
			m, key = &c.Headers, k
		}
		v, ok := lookup(r.name)
		if r.emptyIsUnset && v == "" {
			ok = false
		}
		switch {
		case ok:
			*m = setKey(*m, key, r.prefix+v)
		case r.fallback != nil:
			*m = setKey(*m, key, *r.fallback)
		case r.required:
			err := &config.UnsetVariableError{Name: r.name, Hint: r.hint}
			return &config.Diagnostic{Path: c.Source.Path, Line: c.Source.Line, Server: c.Name, Field: field, Message: err.Error(), Err: err}
		default:
			delete(*m, key)
		}
	}
	return nil
}

// replaceRefs replaces each match of re in s by what fn makes of its
// submatches, linearly, stopping at fn's first error.
func replaceRefs(s string, re *regexp.Regexp, fn func(m []string) (string, error)) (string, error) {
	locs := re.FindAllStringSubmatchIndex(s, -1)
	if locs == nil {
		return s, nil
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		m := make([]string, len(loc)/2)
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = s[loc[2*i]:loc[2*i+1]]
			}
		}
		v, err := fn(m)
		if err != nil {
			return "", err
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(v)
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

// braceRE is "${…}" up to the first "}", as Claude Code, Kiro and VS Code
// match it.
var braceRE = regexp.MustCompile(`\$\{([^}]*)\}`)

// claudeSyntax is Claude Code's: ${VAR} and ${VAR:-default} (the default
// taken as written) in command, args, env, url and headers, "VAR if set,
// otherwise default". Claude Code now loads a server whose variable is
// unset and sends the reference as written; switchboard does not send
// it, so it is the server's error.
var claudeSyntax = &syntax{expand: func(_, s string, lookup config.LookupFunc) (string, error) {
	return replaceRefs(s, braceRE, func(m []string) (string, error) {
		name, def, hasDef := strings.Cut(m[1], ":-")
		if !config.IsVariableName(name) {
			return "", fmt.Errorf("Claude Code reads %q as the variable %q, which no environment can set; write ${NAME} or ${NAME:-default}", clip.Text(m[0]), clip.Text(name))
		}
		if v, ok := lookup(name); ok {
			return v, nil
		}
		if hasDef {
			return def, nil
		}
		return "", &config.UnsetVariableError{Name: name, Hint: fmt.Sprintf("use ${%s:-default} to give a default", name)}
	})
}}

// kiroSyntax is Kiro's: ${VAR}, with no default.
var kiroSyntax = &syntax{expand: func(_, s string, lookup config.LookupFunc) (string, error) {
	return replaceRefs(s, braceRE, func(m []string) (string, error) {
		name := m[1]
		if !config.IsVariableName(name) {
			return "", fmt.Errorf("%q is not a variable Kiro expands (it knows only ${NAME})", clip.Text(m[0]))
		}
		if v, ok := lookup(name); ok {
			return v, nil
		}
		return "", &config.UnsetVariableError{Name: name}
	})
}}

// envVarSyntax is the VS Code family's ${env:NAME} and, for the editors,
// their own variables; any other ${…} is text, as VS Code leaves it.
// unsetEmpty makes an unset variable "" (VS Code); otherwise it is the
// server's error, rather than the reference sent as written (Cline,
// Windsurf, Cursor). editor, when set, names the editor whose variables
// (${workspaceFolder}, ${userHome}, ${input:…}) apply, resolved from env.
func envVarSyntax(tool string, unsetEmpty bool, editor bool, env Env) *syntax {
	return &syntax{expand: func(_, s string, lookup config.LookupFunc) (string, error) {
		return replaceRefs(s, braceRE, func(m []string) (string, error) {
			kind, arg, _ := strings.Cut(m[1], ":")
			switch {
			case kind == "env" && arg != "":
				if v, ok := lookup(arg); ok {
					return v, nil
				}
				if unsetEmpty {
					return "", nil
				}
				return "", &config.UnsetVariableError{Name: arg}
			case kind == "file" && tool == "Windsurf":
				return "", fmt.Errorf("Windsurf file references like %q are not supported; put the value in an environment variable and use ${env:NAME}", clip.Text(m[0]))
			case !editor:
				return m[0], nil
			case kind == "input":
				return "", fmt.Errorf("%s input variables like %q are not supported: switchboard cannot prompt for them; put the value in an environment variable and use ${env:NAME}", tool, clip.Text(m[0]))
			}
			switch m[1] {
			case "workspaceFolder", "workspaceFolderBasename":
				if env.ProjectDir == "" {
					return "", fmt.Errorf("${%s} needs a project directory, and there is none", m[1])
				}
				if m[1] == "workspaceFolder" {
					return env.ProjectDir, nil
				}
				return filepath.Base(env.ProjectDir), nil
			case "userHome":
				return env.Home, nil
			case "pathSeparator", "/":
				return string(filepath.Separator), nil
			}
			return m[0], nil
		})
	}}
}

// geminiRE is Gemini CLI's $NAME (\w: a leading digit too) or ${NAME}.
var geminiRE = regexp.MustCompile(`\$(?:(\w+)|\{([^}]+)\})`)

// geminiSyntax is Gemini CLI's resolveEnvVarsInString, applied to every
// string of its settings: $NAME and ${NAME}, no defaults. Gemini leaves
// an unset one as written; switchboard does not send it, so it is the
// server's error.
var geminiSyntax = &syntax{expand: func(_, s string, lookup config.LookupFunc) (string, error) {
	return replaceRefs(s, geminiRE, func(m []string) (string, error) {
		name := m[1] + m[2]
		if v, ok := lookup(name); ok {
			return v, nil
		}
		return "", &config.UnsetVariableError{Name: name}
	})
}}

var (
	opencodeEnvRE  = regexp.MustCompile(`\{env:([^}]+)\}`)
	opencodeFileRE = regexp.MustCompile(`\{file:[^}]+\}`)
)

// opencodeSyntax is opencode's (ConfigVariable.substitute): {env:NAME}
// anywhere, the variable's value or "" when it is unset or empty; ${…}
// is text. {file:path} reads a file into the value, which switchboard
// does not do: it is the server's error rather than sent as written.
var opencodeSyntax = &syntax{expand: func(_, s string, lookup config.LookupFunc) (string, error) {
	if f := opencodeFileRE.FindString(s); f != "" {
		return "", fmt.Errorf("opencode file references like %q are not supported; put the value in an environment variable and use {env:NAME}", clip.Text(f))
	}
	return replaceRefs(s, opencodeEnvRE, func(m []string) (string, error) {
		v, _ := lookup(m[1])
		return v, nil
	})
}}

// continueRE is Continue's template, "${{ secrets.NAME }}" and the like
// (config-yaml's TEMPLATE_VAR_REGEX).
var continueRE = regexp.MustCompile(`\$\{\{\s*([^}\s]+)\s*\}\}`)

// continueSyntax is Continue's: its templates are rendered in every
// string of the file, and nothing else is; "${VAR}" is text. A secret or
// input named by a plain variable name is taken from the environment
// (Continue also reads .env files, which switchboard does not); any other
// template, such as a hub secret "${{ secrets.org/block/NAME }}", only
// Continue can resolve.
var continueSyntax = &syntax{expand: func(_, s string, lookup config.LookupFunc) (string, error) {
	return replaceRefs(s, continueRE, func(m []string) (string, error) {
		scope, name, _ := strings.Cut(m[1], ".")
		if (scope != "secrets" && scope != "inputs") || !config.IsVariableName(name) {
			return "", fmt.Errorf("Continue template %q can only be resolved by Continue; use ${{ secrets.NAME }} with NAME set in the environment", clip.Text(m[0]))
		}
		if v, ok := lookup(name); ok {
			return v, nil
		}
		return "", &config.UnsetVariableError{Name: name, Hint: "Continue also reads it from its .env files; switchboard only from the environment"}
	})
}}

// crushSyntax is Crush's shell-like expansion: $VAR, ${VAR} and
// ${VAR:-default}, and $(command). A whole env or header value "$(cmd)"
// becomes our "!cmd", run as a secret helper; $(…) anywhere else is not
// supported and fails the server. A value that starts with "!" is literal
// to Crush, so it is kept as our "!!…".
var crushSyntax = &syntax{commands: true, expand: func(field, s string, lookup config.LookupFunc) (string, error) {
	helperField := strings.HasPrefix(field, "env.") || strings.HasPrefix(field, "headers.")
	switch {
	case helperField && strings.HasPrefix(s, "$(") && strings.HasSuffix(s, ")") && strings.Count(s, "$(") == 1:
		return "!" + s[2:len(s)-1], nil
	case strings.Contains(s, "$("):
		return "", errors.New("command substitution $(…) is supported only as a whole env or header value")
	}
	v, err := bareVariables(s)
	if err == nil {
		v, err = config.Expand(v, lookup)
	}
	if helperField && strings.HasPrefix(v, "!") {
		v = "!" + v
	}
	return v, err
}}

// bareVariables rewrites the shell-style "$NAME" into "${NAME}", which
// config.Expand knows. "$$" and "${…}" are left as they are.
func bareVariables(s string) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch next := s[i+1]; {
		case next == '$':
			b.WriteString("$$")
			i++
		case nameByte(next, true):
			j := i + 2
			for j < len(s) && nameByte(s[j], false) {
				j++
			}
			b.WriteString("${" + s[i+1:j] + "}")
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// nameByte reports whether c may stand in a variable name (first: as its
// first byte), as config.IsVariableName says of a whole name.
func nameByte(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
}
