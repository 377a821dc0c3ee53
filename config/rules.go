package config

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// candidate is one definition of a server on its way through the rules.
type candidate struct {
	c      ServerConfig
	report int // index into Discovery.Sources
	done   bool
}

// claims reports whether a definition may take its name from a later one
// (SPEC F2): an untrusted or blocked one may not, or a cloned repository
// could hijack a name the person defined elsewhere. A disabled or invalid
// one does: that is how a person turns a server off.
func (k *candidate) claims() bool { return !k.c.Untrusted && k.c.Blocked == "" }

// applyRules turns the definitions, in precedence order, into d.Servers
// and d.Shadowed (SPEC F2–F7).
func (d *Discovery) applyRules(cands []*candidate, opts DiscoverOptions, env Env) {
	policyPath := opts.PolicyPath
	if policyPath == "" {
		policyPath = PolicyPath(env.Lookup)
	}
	d.Policy = LoadPolicy(policyPath)
	if d.Policy != nil && d.Policy.Err != nil {
		d.Errors = append(d.Errors, fmt.Errorf("policy file %s: %s (every server is blocked)", policyPath, policyErrText(d.Policy.Err)))
	}

	// Filters that need nothing but the name and level, then trust,
	// substitution, validation and policy for what is left.
	var live []*candidate
	for _, k := range cands {
		c := &k.c
		if c.Source.Level == LevelProject && opts.NoProjectConfig {
			d.lose(k, nil, "project config is turned off")
			continue
		}
		if pat := matchesGlob(opts.ExcludeNames, c.Name); pat != "" {
			d.lose(k, nil, fmt.Sprintf("excluded by the pattern %q", pat))
			continue
		}
		if c.Source.Level == LevelProject && !d.ProjectTrusted {
			c.Untrusted = true
		}
		if c.Err == nil {
			if err := substitute(c, env.Lookup, true); err != nil {
				c.Err = err
			} else if err := Validate(c); err != nil {
				c.Err = err
			}
		}
		c.Blocked = d.Policy.Check(c)
		live = append(live, k)
	}

	// Precedence: per name, the first definition that claims it and
	// survives the Filter wins; failing that, the first that does not
	// claim, so it is still listed (as untrusted or blocked).
	byName := map[string][]*candidate{}
	var names []string
	for _, k := range live {
		if byName[k.c.Name] == nil {
			names = append(names, k.c.Name)
		}
		byName[k.c.Name] = append(byName[k.c.Name], k)
	}
	var winners []*candidate
	for _, name := range names {
		defs := byName[name]
		var winner *candidate
		for _, pass := range []bool{true, false} {
			for _, k := range defs {
				if winner != nil || k.done || k.claims() != pass {
					continue
				}
				d.finish(k, opts.SkipCommands)
				if opts.Filter != nil && !safeFilter(opts.Filter, k.c) {
					d.lose(k, nil, "dropped by the discovery filter")
					k.done = true
					continue
				}
				winner = k
			}
		}
		if winner == nil {
			continue
		}
		winner.done = true
		winners = append(winners, winner)
		for _, k := range defs {
			if !k.done {
				k.done = true
				d.lose(k, &winner.c.Source, lossReason(k, winner))
			}
		}
	}
	slices.SortStableFunc(winners, func(a, b *candidate) int {
		return slices.Index(cands, a) - slices.Index(cands, b)
	})

	// Duplicates: the same server under a second name is listed but
	// connected once, under the first name.
	identities := map[string]string{}
	for _, k := range winners {
		c := &k.c
		if id := identity(c); id != "" && c.Err == nil && !c.Disabled && !c.Untrusted && c.Blocked == "" {
			if first, dup := identities[id]; dup {
				c.DuplicateOf = first
			} else {
				identities[id] = c.Name
			}
		}
		d.Servers = append(d.Servers, *c)
		rep := &d.Sources[k.report]
		rep.Servers = append(rep.Servers, c.Name)
	}
}

// finish runs a definition's "!command"s, now that it may win (SPEC F5):
// only for one that would start, and only where commands are allowed —
// user level, a file named with --config, or a trusted project.
func (d *Discovery) finish(k *candidate, skip bool) {
	c := &k.c
	if skip || c.Err != nil || c.Disabled || c.Blocked != "" || !hasCommands(c) {
		return
	}
	allowed := c.Source.Level != LevelProject || d.ProjectTrusted
	if err := resolveCommands(c, allowed); err != nil {
		c.Err = err
		return
	}
	// A command's output may not be a valid header value.
	if err := Validate(c); err != nil {
		c.Err = err
	}
}

// lose records a definition that did not win: by is the winner, nil when
// it was dropped.
func (d *Discovery) lose(k *candidate, by *Source, reason string) {
	rep := &d.Sources[k.report]
	lost := LostServer{Name: k.c.Name, Reason: reason}
	sh := Shadowed{Config: k.c, Reason: reason}
	if by != nil {
		to := *by
		lost.To = &to
		sh.By = to
	}
	rep.Lost = append(rep.Lost, lost)
	d.Shadowed = append(d.Shadowed, sh)
}

func lossReason(k, winner *candidate) string {
	w := winner.c.Source
	where := fmt.Sprintf("%s, %s", w.Label(), w)
	switch {
	case !k.claims() && winner.claims():
		why := "the project is not trusted"
		if k.c.Blocked != "" {
			why = "it is blocked by policy: " + k.c.Blocked
		}
		return fmt.Sprintf("%s, so the name goes to the definition in %s", why, where)
	case k.c.Source.Path == w.Path && k.c.Source.Level == w.Level:
		return fmt.Sprintf("defined again in the same file; the first definition, at line %d, wins", w.Line)
	}
	return fmt.Sprintf("shadowed by the definition in %s, which comes first", where)
}

// identity is what makes two definitions the same server: the command
// line, or the url. "" for a server that has neither.
func identity(c *ServerConfig) string {
	switch {
	case c.Command != "":
		return "stdio\x00" + strings.Join(append([]string{c.Command}, c.Args...), "\x00")
	case c.URL != "":
		return "url\x00" + c.URL
	}
	return ""
}

// matchesGlob returns the first pattern name matches, or "".
func matchesGlob(patterns []string, name string) string {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return p
		}
	}
	return ""
}

func safeFilter(f func(ServerConfig) bool, c ServerConfig) (keep bool) {
	defer func() {
		if recover() != nil {
			keep = false
		}
	}()
	return f(c)
}
