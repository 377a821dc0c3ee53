package discover

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/policy"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/internal/glob"
)

// candidate is one definition of a server on its way through the rules.
type candidate struct {
	source.Entry
	report int // index into Discovery.Sources
	done   bool
}

// claims reports whether a definition may take its name from a later one
// (DESIGN.md F2): an untrusted or blocked one may not, or a cloned repository
// could hijack a name the person defined elsewhere. A disabled or invalid
// one does: that is how a person turns a server off.
func (k *candidate) claims() bool { return !k.Config.Untrusted && k.Config.Blocked == "" }

// applyRules turns the definitions, in precedence order, into d.Servers
// and d.Shadowed (DESIGN.md F2–F7).
func (d *Discovery) applyRules(ctx context.Context, cands []*candidate, opts Options, env source.Env) {
	policyPath := opts.PolicyPath
	if policyPath == "" {
		policyPath = policy.Path(env.Lookup)
	}
	d.PolicyPath = policyPath
	d.Policy = policy.Load(policyPath)
	if d.Policy != nil && d.Policy.Err != nil {
		d.Errors = append(d.Errors, &PolicyError{Path: policyPath, Err: d.Policy.Err})
	}

	// Filters that need nothing but the name and level, then trust,
	// substitution, validation and policy for what is left.
	var live []*candidate
	for _, k := range cands {
		c := &k.Config
		if c.Source.Level == config.LevelProject && opts.NoProjectConfig {
			d.lose(k, nil, "project config is turned off")
			continue
		}
		if pat := glob.First(opts.ExcludeNames, c.Name); pat != "" {
			d.lose(k, nil, fmt.Sprintf("excluded by the pattern %q", pat))
			continue
		}
		if c.Source.Level == config.LevelProject && !d.ProjectTrusted {
			c.Untrusted = true
		}
		if d.ruledOff(c) {
			c.Disabled = true
		}
		// Each file's variables by its own tool's rules; nothing is
		// looked up for a server that is off, and what it would not use
		// is not its error.
		if c.Err == nil && !c.Disabled {
			if err := k.Substitute(env.Lookup); err != nil {
				c.Err = err
			} else if err := config.Validate(c); err != nil {
				c.Err = k.Locate(err)
			}
		}
		if c.Err == nil && StartsSwitchboardServe(c.Command, c.Args) {
			// Started, it would discover the same file and start itself
			// again. In a client app's own config it is how the app
			// reaches switchboard ('client connect', DESIGN.md F59): not a
			// server of ours, so it is left out, as a shadowed definition
			// is, and no listing shows it failed. In our own file it is a
			// mistake, the server's error.
			if c.Source.Provider != source.NativeName {
				d.lose(k, nil, "this entry starts 'switchboard serve', switchboard itself: it is how "+c.Source.Provider+" reaches switchboard, not one of its servers")
				continue
			}
			c.Err = k.Locate(&config.Diagnostic{Field: "command", Message: "this entry starts 'switchboard serve', switchboard itself, which does not run inside itself"})
		}
		if c.Err == nil && !c.Untrusted && d.reachesUntrustedProject(c, env.Home) {
			// A user-level server whose command, cwd, args or env name the
			// untrusted project (${workspaceFolder}, ${PWD}) would run its
			// files: it waits for trust like the project's own servers.
			c.Untrusted = true
		}
		if c.TransportKind() == config.TransportStdio {
			c.WorkDir = d.workDir
			c.WorkDirTrusted = d.ProjectDir != "" && d.ProjectTrusted && d.workDir == d.ProjectDir
		}
		d.CheckPolicy(c)
		live = append(live, k)
	}

	// Precedence: per name, the first definition that claims it and
	// survives the Filter wins; failing that, the first that does not
	// claim, so it is still listed (as untrusted or blocked).
	byName := map[string][]*candidate{}
	var names []string
	for _, k := range live {
		if byName[k.Config.Name] == nil {
			names = append(names, k.Config.Name)
		}
		byName[k.Config.Name] = append(byName[k.Config.Name], k)
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
				d.finish(ctx, k, opts)
				if opts.Filter != nil && !safeFilter(opts.Filter, k.Config) {
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
				d.lose(k, &winner.Config.Source, lossReason(k, winner))
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
		c := &k.Config
		if id := c.Identity(); id != "" && c.Err == nil && !c.Disabled && !c.Untrusted && c.Blocked == "" {
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

// reachesUntrustedProject reports whether c's command, cwd, args or env
// reach a path inside the project while it is untrusted: whatever the
// server does with it, it would do with the project's files (DESIGN.md,
// "Trust"). Two readings, either enough: the project's path anywhere in
// the text (namesPath, which sees it inside a shell line or a list), and
// every path-like word of the text resolved as the server would (from its
// working directory, ~ as home, . and .. and links followed) falling
// inside the project (pathsReach).
func (d *Discovery) reachesUntrustedProject(c *config.ServerConfig, home string) bool {
	dir := filepath.Clean(d.ProjectDir)
	if d.ProjectDir == "" || d.ProjectTrusted || dir == string(filepath.Separator) {
		return false
	}
	texts := append([]string{c.Command, c.Cwd}, c.Args...)
	for _, v := range c.Env {
		// PATH, PYTHONPATH, NODE_PATH and the like make a program load
		// what they name: every value counts, whatever its variable.
		texts = append(texts, v)
	}
	for _, t := range texts {
		if namesPath(t, dir) {
			return true
		}
	}
	project := realPath(dir)
	if c.Cwd != "" && inside(realPath(resolvePath(c.Cwd, d.workDir, home)), project) {
		return true
	}
	for _, t := range texts {
		if pathsReach(t, d.workDir, home, project) {
			return true
		}
	}
	return false
}

// pathsReach reports whether a word of text that is a path (absolute, or
// from ~) names project or a path inside it, once cleaned and its links
// followed. Words are split where a shell line, a list or a flag would
// split them (spaces, = : ; , & | quotes and brackets), so file:///p,
// -I/p and PATH lists are seen. (A relative word is the server's own
// business in its working directory, which is outside the project while
// it is untrusted; a relative cwd is resolved by the caller.)
func pathsReach(text, cwd, home, project string) bool {
	for _, word := range strings.FieldsFunc(text, func(r rune) bool {
		return strings.ContainsRune(" \t\n\r=:;,&|\"'`()<>{}$", r)
	}) {
		if strings.HasPrefix(word, "-") {
			i := strings.IndexByte(word, '/')
			if i < 0 {
				continue
			}
			word = word[i:] // -I/p: the flag's path
		}
		if !filepath.IsAbs(word) && word != "~" && !strings.HasPrefix(word, "~/") {
			continue
		}
		if inside(realPath(resolvePath(word, cwd, home)), project) {
			return true
		}
	}
	return false
}

// resolvePath is p as an absolute path, relative ones taken from cwd and
// ~ as home, cleaned.
func resolvePath(p, cwd, home string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return filepath.Clean(p)
		}
		p = filepath.Join(home, p[1:])
	case !filepath.IsAbs(p):
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// realPath is p with its links followed, as far as it exists: the
// deepest existing folder resolved, the rest joined on.
func realPath(p string) string {
	rest := ""
	for cur := p; ; cur = filepath.Dir(cur) {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(cur) == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

// inside reports whether p is dir or under it.
func inside(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// namesPath reports whether s names dir or a path inside it anywhere in
// its text: alone, in a list (PATH's ":"), after "--flag=", or in a
// shell line ("cd DIR&&./run.sh"). It does not where dir is only part of
// another name: "/a/DIR", "DIR-old", "DIR.bak".
func namesPath(s, dir string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], dir)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(dir)
		before := i == 0 || !pathByte(s[i-1]) && s[i-1] != '/' && s[i-1] != filepath.Separator
		after := end == len(s) || !pathByte(s[end])
		if before && after {
			return true
		}
		from = i + 1
	}
}

// pathByte reports whether c continues a file name: a path that goes on
// with one of these after dir's last letter names a sibling of dir.
func pathByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._-~+", c) >= 0
}

// StartsSwitchboardServe reports whether a command line runs
// `switchboard serve`, directly or through env, whatever flags come
// between. Spellings this misses (a shell line, another name) are caught
// when they start: a switchboard started by switchboard refuses to serve
// (host.EnvStartedBy, and its parent processes, read the same way).
func StartsSwitchboardServe(command string, args []string) bool {
	for range 4 {
		base := command[strings.LastIndexAny(command, `/\`)+1:] // a Windows path read anywhere
		base = strings.TrimSuffix(strings.ToLower(base), ".exe")
		switch base {
		case "switchboard":
			return firstWord(args, switchboardValueFlags) == "serve"
		case "env":
			i := skipFlags(args, envValueFlags, true)
			if i == len(args) {
				return false
			}
			command, args = args[i], args[i+1:]
		default:
			return false
		}
	}
	return false
}

// The flags of env and of switchboard that take the next word as their
// value, so that it is not the program or the command.
var (
	envValueFlags         = []string{"-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P"}
	switchboardValueFlags = []string{"-c", "--config", "--exclude", "--cache-dir", "--state-dir", "--project", "--root", "--gate"}
)

// firstWord is the first word of args that is not a flag or a flag's value.
func firstWord(args, valueFlags []string) string {
	if i := skipFlags(args, valueFlags, false); i < len(args) {
		return args[i]
	}
	return ""
}

// skipFlags is the index of the first word of args that is neither a flag
// nor the value of one of valueFlags; with assignments, NAME=value words
// (env's) are skipped too.
func skipFlags(args, valueFlags []string, assignments bool) int {
	i := 0
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--":
			return i + 1
		case slices.Contains(valueFlags, a):
			i += 2
		case strings.HasPrefix(a, "-"), assignments && strings.Contains(a, "="):
			i++
		default:
			return i
		}
	}
	return i
}

// CheckPolicy sets c.Blocked from the policy discovery applied, judged as
// for every server discovery found: from where the host will start it (the
// project, or outside it while it is untrusted), through
// the PATH a stdio server would get (DESIGN.md, "Policy"). It is for a
// server that did not come from discovery, the command line's bundled
// demo, so that nothing starts around the policy.
func (d *Discovery) CheckPolicy(c *config.ServerConfig) {
	c.Blocked = d.Policy.Check(c, policy.Runtime{Dir: d.workDir})
}

// finish runs a definition's "!command"s, now that it may win (DESIGN.md F5):
// only for one that would start, only in a file whose tool runs them (our
// own; in another tool's a "!" value is literal), and only where commands
// are allowed — user level, a file named with --config, or a trusted
// project.
func (d *Discovery) finish(ctx context.Context, k *candidate, opts Options) {
	c := &k.Config
	if opts.SkipCommands || c.Err != nil || c.Disabled || c.Blocked != "" || !k.RunsCommands() || !hasCommands(c) {
		return
	}
	allowed := c.Source.Level != config.LevelProject || d.ProjectTrusted
	// Not in an untrusted project: a script of the repository's could
	// stand in for the helper ("!./token.sh", npx's node_modules).
	if err := resolveCommands(ctx, c, allowed, d.workDir, opts.RunCommand); err != nil {
		c.Err = k.Locate(err)
		return
	}
	// A command's output may not be a valid header value.
	if err := config.Validate(c); err != nil {
		c.Err = k.Locate(err)
	}
}

// ruledOff reports whether another file of c's tool turned c off (Claude
// Code's settings rejecting a .mcp.json server).
func (d *Discovery) ruledOff(c *config.ServerConfig) bool {
	for _, r := range d.rulings {
		if r.provider == c.Source.Provider && filepath.Clean(r.Path) == filepath.Clean(c.Source.Path) && slices.Contains(r.Names, c.Name) {
			return true
		}
	}
	return false
}

// lose records a definition that did not win: by is the winner, nil when
// it was dropped.
func (d *Discovery) lose(k *candidate, by *config.Source, reason string) {
	rep := &d.Sources[k.report]
	lost := LostServer{Name: k.Config.Name, Reason: reason}
	sh := Shadowed{Config: k.Config, Reason: reason}
	if by != nil {
		to := *by
		lost.To = &to
		sh.By = to
	}
	rep.Lost = append(rep.Lost, lost)
	d.Shadowed = append(d.Shadowed, sh)
}

func lossReason(k, winner *candidate) string {
	w := winner.Config.Source
	where := fmt.Sprintf("%s, %s", w.Label(), w)
	switch {
	case !k.claims() && winner.claims():
		why := "the project is not trusted"
		if k.Config.Blocked != "" {
			why = "it is blocked by policy: " + k.Config.Blocked
		}
		return fmt.Sprintf("%s, so the name goes to the definition in %s", why, where)
	case k.Config.Source.Path == w.Path && k.Config.Source.Level == w.Level:
		return fmt.Sprintf("defined again in the same file; the first definition, at line %d, wins", w.Line)
	}
	return fmt.Sprintf("shadowed by the definition in %s, which comes first", where)
}

func safeFilter(f func(config.ServerConfig) bool, c config.ServerConfig) (keep bool) {
	defer func() {
		if recover() != nil {
			keep = false
		}
	}()
	return f(c)
}
