package source

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// rewriteAll applies rewrite to the strings of every entry without Err.
func rewriteAll(entries []Entry, rewrite func(string) (string, error)) {
	for i := range entries {
		en := &entries[i]
		if en.Config.Err == nil {
			if err := rewriteStrings(&en.Config, rewrite); err != nil {
				en.Config.Err = en.Locate(err)
			}
		}
	}
}

// rewriteStrings applies fn to every string substitution would expand:
// command, args, env values, cwd, url and header values. It is how an
// adapter translates its tool's own variables (VS Code's
// ${workspaceFolder}) before discovery substitutes the common ones. On
// failure it returns a *config.Diagnostic naming the field and leaves c
// alone.
func rewriteStrings(c *config.ServerConfig, fn func(string) (string, error)) error {
	fail := func(field string, err error) error {
		return &config.Diagnostic{Path: c.Source.Path, Line: c.Source.Line, Server: c.Name, Field: field, Message: err.Error(), Err: err}
	}
	out := *c
	var err error
	if out.Command, err = fn(c.Command); err != nil {
		return fail("command", err)
	}
	out.Args = nil
	for i, a := range c.Args {
		v, err := fn(a)
		if err != nil {
			return fail(fmt.Sprintf("args[%d]", i), err)
		}
		out.Args = append(out.Args, v)
	}
	if out.Cwd, err = fn(c.Cwd); err != nil {
		return fail("cwd", err)
	}
	if out.URL, err = fn(c.URL); err != nil {
		return fail("url", err)
	}
	for _, m := range []struct {
		field string
		src   map[string]string
		dst   *map[string]string
	}{{"env", c.Env, &out.Env}, {"headers", c.Headers, &out.Headers}} {
		if m.src == nil {
			continue
		}
		*m.dst = make(map[string]string, len(m.src))
		// In key order, so an error always names the same field.
		for _, k := range slices.Sorted(maps.Keys(m.src)) {
			nv, err := fn(m.src[k])
			if err != nil {
				return fail(m.field+"."+k, err)
			}
			(*m.dst)[k] = nv
		}
	}
	*c = out
	return nil
}

// editorVariables returns a rewrite for the variables VS Code and Cursor
// resolve themselves: ${workspaceFolder}, ${workspaceFolderBasename},
// ${userHome}, ${pathSeparator} and ${/}. ${input:…} asks the person in
// the editor's UI, which a host without one cannot do: it is an error that
// says so. ${env:NAME} and the rest are left for discovery's substitution.
func editorVariables(tool string, env Env) func(string) (string, error) {
	return func(s string) (string, error) {
		if !strings.Contains(s, "${") {
			return s, nil
		}
		if i := strings.Index(s, "${input:"); i >= 0 {
			ref := s[i:]
			if j := strings.IndexByte(ref, '}'); j >= 0 {
				ref = ref[:j+1]
			}
			return "", fmt.Errorf("%s input variables like %q are not supported: switchboard cannot prompt for them; put the value in an environment variable and use ${env:NAME}", tool, clip.Text(ref))
		}
		for _, name := range []string{"${workspaceFolder}", "${workspaceFolderBasename}"} {
			if strings.Contains(s, name) && env.ProjectDir == "" {
				return "", fmt.Errorf("%s needs a project directory, and there is none", name)
			}
		}
		return strings.NewReplacer(
			"${workspaceFolder}", env.ProjectDir,
			"${workspaceFolderBasename}", filepath.Base(env.ProjectDir),
			"${userHome}", env.Home,
			"${pathSeparator}", string(filepath.Separator),
			"${/}", string(filepath.Separator),
		).Replace(s), nil
	}
}

// bareVariables rewrites the shell-style "$NAME" that Gemini CLI and Crush
// accept into "${NAME}", which discovery's substitution knows. "$$" and
// "${…}" are left as they are.
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
