package config

import (
	"fmt"
	"slices"
	"strings"
)

// Identity is what makes a server the server it is, resolved: for a
// process its command, args, environment and working directory (WorkDir
// when DependsOnWorkDir); for a
// remote server its url and headers. Two entries with the same identity
// are one server under two names (DESIGN.md, "Discovery"), and the tool
// cache keys a server's tools by it (F15). Two memory servers that differ
// only in MEMORY_FILE_PATH, or one url with two tokens, are two servers.
// Name, source, timeouts and filters are not part of it. The string holds
// secrets: compare or hash it, never print it.
func (c *ServerConfig) Identity() string { return c.identity(true) }

// Place is Identity without the values of the environment and headers
// (their names stay): where a server is and what runs, not the
// credentials it is given. Tool pins are kept by it, so a rotated token
// keeps a server's pins, and a change of tools that comes with it is
// still a change. It holds no secret values, but is hashed where kept.
func (c *ServerConfig) Place() string { return c.identity(false) }

func (c *ServerConfig) identity(values bool) string {
	var b strings.Builder
	field := func(s string) { fmt.Fprintf(&b, "%d:%s;", len(s), s) }
	fields := func(m map[string]string) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		field(fmt.Sprint(len(keys)))
		for _, k := range keys {
			field(k)
			if values {
				field(m[k])
			}
		}
	}
	switch {
	case c.Command != "":
		field("stdio")
		field(c.Command)
		field(fmt.Sprint(len(c.Args)))
		for _, a := range c.Args {
			field(a)
		}
		field(c.Cwd)
		if c.DependsOnWorkDir() {
			// Else the same server wherever it runs: trusting the
			// project keeps its cached tools.
			field(c.WorkDir)
		}
		fields(c.Env)
	case c.URL != "":
		// A url with a type and the same url without one are the same
		// server: the type only says how to speak to it.
		field("remote")
		field(c.URL)
		fields(c.Headers)
	default:
		return ""
	}
	return b.String()
}
