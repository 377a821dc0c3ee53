package policy

import (
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/glob"
)

// Runtime is where the host would start a server, which command rules need
// to find the program a command names (DESIGN.md, "Policy").
type Runtime struct {
	// Dir is the directory a server with no cwd starts in, and a relative
	// cwd is taken from: the host's project directory. "" is the current
	// directory.
	Dir string
	// LookupEnv reads the host's environment, whose PATH a stdio server
	// inherits when its env sets none. Nil means os.LookupEnv, which is
	// what internal/transport gives a child.
	LookupEnv func(string) (string, bool)
}

// Check returns why c may not run, or "" when it may.
func (p *Policy) Check(c *config.ServerConfig, rt Runtime) string {
	if p == nil {
		return ""
	}
	if p.Err != nil {
		return fmt.Sprintf("policy file %s: %s", p.Path, ErrText(p.Err))
	}
	if why := p.checkEnv(c); why != "" {
		return why
	}
	var prog *program
	if c.Command != "" {
		if p.hasCommandRules() {
			prog = resolve(c, rt)
		} else {
			// Nothing but names and urls to judge: no need to look.
			prog = &program{layers: []layer{{command: c.Command, args: c.Args}}}
		}
	}
	for i, r := range p.Deny {
		if ok, via := r.denies(c, prog); ok {
			msg := fmt.Sprintf("deny rule %d %s", i+1, r)
			if via != "" {
				msg += ": the command runs " + via
			}
			return msg
		}
	}
	if prog != nil && prog.opaque != "" && !p.AllowWrappers && p.hasCommandRules() {
		return fmt.Sprintf(`the policy's command rules cannot judge what the command runs: %s ("allowWrappers": true admits it)`, prog.opaque)
	}
	if len(p.Allow) > 0 {
		if why := p.admits(c, prog); why != "" {
			return why
		}
		if why := p.pathOutsideAllowed(c); why != "" {
			return why
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

// checkEnv says why the variables c's config sets are not allowed, or "".
func (p *Policy) checkEnv(c *config.ServerConfig) string {
	if len(p.EnvAllow) == 0 && len(p.EnvDeny) == 0 {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		if pat := glob.First(p.EnvDeny, k); pat != "" {
			return fmt.Sprintf("the policy denies setting %s (env deny %q)", k, pat)
		}
		if len(p.EnvAllow) > 0 && glob.First(p.EnvAllow, k) == "" {
			return fmt.Sprintf("the policy's env allow list does not name %s", k)
		}
	}
	return ""
}

// pathOutsideAllowed says why a config's own PATH is refused under an
// allow list, or "": a program the admitted one starts by name (npx runs
// node) is looked up there, so each folder of it must be one the allow
// rules admit programs from (an allow command's folder).
func (p *Policy) pathOutsideAllowed(c *config.ServerConfig) string {
	path, ok := c.Env["PATH"]
	if !ok || !p.hasCommandRules() || p.AllowWrappers {
		return ""
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		admitted := false
		for _, r := range p.Allow {
			if r.Command != "" && (glob.Match(filepath.Dir(r.Command), dir) || glob.Match(filepath.Dir(r.Command), filepath.Clean(dir))) {
				admitted = true
				break
			}
		}
		if !admitted {
			return fmt.Sprintf("not in the policy's allow list: its env PATH names %s, where no allow rule admits programs, and a program the command starts could come from there", dir)
		}
	}
	return ""
}

func (p *Policy) hasCommandRules() bool {
	for _, rules := range [][]Rule{p.Allow, p.Deny} {
		for _, r := range rules {
			if r.Command != "" {
				return true
			}
		}
	}
	return false
}

// denies reports whether r blocks c, and, when its command pattern matched
// a name the config does not say, the program that name is.
func (r Rule) denies(c *config.ServerConfig, prog *program) (bool, string) {
	if r.Name != "" && !glob.Match(r.Name, c.Name) {
		return false, ""
	}
	if r.URL != "" && (c.URL == "" || !urlMatch(r.URL, c.URL)) {
		return false, ""
	}
	if r.Command == "" {
		return true, ""
	}
	if prog == nil {
		return false, ""
	}
	for i, l := range prog.layers {
		for _, n := range l.names() {
			if !l.matches(r.Command, n) {
				continue
			}
			if i == 0 && (n == c.Command || n == filepath.Base(c.Command)) {
				return true, ""
			}
			return true, l.String()
		}
	}
	return false, ""
}

// admits returns "" when every program c's command line runs is admitted
// by an allow rule, else why not. A remote server needs a rule with no
// command.
func (p *Policy) admits(c *config.ServerConfig, prog *program) string {
	if prog == nil {
		for _, r := range p.Allow {
			if r.Command == "" && r.nameAndURL(c) {
				return ""
			}
		}
		return "not in the policy's allow list"
	}
	for i, l := range prog.layers {
		if p.admitsLayer(c, l) {
			continue
		}
		if !p.hasCommandRules() {
			return "not in the policy's allow list"
		}
		var why string
		switch {
		case l.err != nil:
			why = fmt.Sprintf("%q is not found (%v), so no allow rule can admit it by its path", l.command, l.err)
		case i > 0:
			why = fmt.Sprintf("%s, which %s runs, is not admitted", l, prog.layers[i-1])
		case len(prog.layers) > 1:
			why = fmt.Sprintf("%s is not admitted (it runs %s)", l, prog.layers[len(prog.layers)-1])
		default:
			why = "the command runs " + l.String()
		}
		return "not in the policy's allow list: " + why
	}
	return ""
}

func (p *Policy) admitsLayer(c *config.ServerConfig, l layer) bool {
	for _, r := range p.Allow {
		if !r.nameAndURL(c) || r.URL != "" {
			continue
		}
		if r.Command == "" {
			return true
		}
		for _, path := range l.paths {
			if l.matches(r.Command, path) {
				return true
			}
		}
	}
	return false
}

func (r Rule) nameAndURL(c *config.ServerConfig) bool {
	if r.Name != "" && !glob.Match(r.Name, c.Name) {
		return false
	}
	return r.URL == "" || c.URL != "" && urlMatch(r.URL, c.URL)
}

// matches tries a command pattern on one name of the layer's program,
// alone and followed by the args: "npx -y @evil/*".
func (l layer) matches(pattern, name string) bool {
	if glob.Match(pattern, name) {
		return true
	}
	return len(l.args) > 0 && glob.Match(pattern, name+" "+strings.Join(l.args, " "))
}

// urlMatch matches a url rule against a server's url by its parts, not as
// one string: the scheme and host case-folded (HTTP://Host is http://host,
// as the client will treat it), the host matched on its own, so that
// "http://*.example.com/*" cannot be met by a path that contains
// ".example.com"; then the path and query. A pattern with no path matches
// any path. A pattern or url that does not parse as one with a scheme and
// host is matched as a whole string, as before.
func urlMatch(pattern, raw string) bool {
	scheme, rest, ok := strings.Cut(pattern, "://")
	u, err := url.Parse(raw)
	if !ok || err != nil || u.Host == "" {
		return glob.Match(pattern, raw)
	}
	// A pattern's host may hold a star where a port goes ("127.0.0.1:*"),
	// which url.Parse refuses, so it is split by hand.
	host, path := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	if !glob.Match(strings.ToLower(scheme), strings.ToLower(u.Scheme)) ||
		!glob.Match(strings.ToLower(host), strings.ToLower(u.Host)) {
		return false
	}
	if path == "" {
		return true
	}
	got := u.EscapedPath()
	if u.RawQuery != "" {
		got += "?" + u.RawQuery
	}
	return glob.Match(path, got)
}
