// Package discover finds every MCP server a person configured (DESIGN.md
// F1–F9): it reads each source's files, then applies the rules — filters,
// trust, substitution, secret helpers, validation, policy, precedence,
// duplicates — and reports what it found and why (DESIGN.md,
// "Discovery"). It never connects anything.
package discover

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
	"github.com/switchboard-mcp/switchboard/config/policy"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/config/trust"
	"github.com/switchboard-mcp/switchboard/internal/execpath"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// Options says where discovery looks and which rules it applies. The zero
// value reads every provider's files under os.LookupEnv's HOME, with no
// project, no exclusions, the system's policy file, and no secret helpers
// (a "!command" value is an error of its server).
type Options struct {
	// Env is the machine to look at: home, project directory, platform
	// and environment variables (also used for substitution). An empty
	// Home means $HOME from Env.Lookup.
	Env source.Env
	// Providers are the formats to read, in precedence order. Nil means
	// source.All(); --no-discover passes only source.Native.
	Providers []*source.Provider
	// StateDir holds the trust store; "" means $XDG_STATE_HOME/switchboard
	// or ~/.local/state/switchboard.
	StateDir string
	// TrustProject lets the project's servers run without a recorded
	// trust decision (--trust-project). False means the trust store
	// decides.
	TrustProject bool
	// NoProjectConfig drops every project-level entry, as if the project
	// had no config files (DESIGN.md F3). False reads them.
	NoProjectConfig bool
	// ExcludeNames drops servers whose name matches one of these globs
	// (internal/glob), wherever they are defined. Nil drops none.
	ExcludeNames []string
	// Filter, when set, is asked about each server about to win its name,
	// fully substituted; false drops it, and the next definition of the
	// name, if any, is asked in turn. An embedder uses it to take a server
	// over itself (the seeds' native Exa integration). Nil keeps all.
	Filter func(config.ServerConfig) bool
	// PolicyPath is the administrator's policy file; "" means
	// $SWITCHBOARD_POLICY, or /etc/switchboard/policy.json.
	PolicyPath string
	// RunCommand runs a "!command" secret helper and returns what it
	// printed (DESIGN.md F5); secretcmd.Runner.Run is one. It is asked only for
	// servers that win their name and may start, and only where commands
	// are allowed (user level, a file named with --config, a trusted
	// project). Nil runs nothing: such a value is ErrNoCommandRunner.
	// The command runs in dir: the project when it is trusted, else
	// outside it (execpath.OutsideProject: the home directory, or /).
	RunCommand func(ctx context.Context, command, dir string) (string, error)
	// SkipCommands leaves "!command" env and header values as written,
	// for a caller that only lists (switchboard sources): nothing runs,
	// and no error is made of them.
	SkipCommands bool
}

// Discovery is what discovery found (DESIGN.md F9). It never fails as a whole:
// a source that cannot be read is an error of that source, a server that
// cannot be used has its Err, and everything else goes on (DESIGN.md F8).
type Discovery struct {
	// Servers is the winning definition of each name, in precedence
	// order: disabled, untrusted, blocked, invalid (Err) and duplicate
	// servers included, marked as such, so a host can list them.
	Servers []config.ServerConfig
	// Sources reports every location looked at, found or not, in the
	// order they were read.
	Sources []SourceReport
	// Shadowed holds every definition that did not win its name, with
	// the winner and the reason.
	Shadowed []Shadowed
	// Warnings are problems that did not stop a server: an ignored field
	// of the wrong type, an unsupported feature.
	Warnings []*config.Diagnostic
	// Errors are sources that could not be read or parsed (each a
	// *config.Diagnostic naming the file, with line and column when
	// known), a *TrustError, a *PolicyError and an *InterruptedError.
	Errors []error

	// ProjectDir is the project whose files were read ("" for none), and
	// ProjectFiles the project-level files found there: what `switchboard
	// trust` trusts.
	ProjectDir   string
	ProjectFiles []trust.ProjectFile
	// ProjectTrusted says whether anything may run inside the project: its
	// config's servers, and the person's own servers with the project as
	// their working directory. It is true when the project was trusted
	// with exactly these files (none, for a folder without config), when
	// TrustProject was set, or when the project is the home directory;
	// false with no project.
	ProjectTrusted bool
	// Policy is the policy that applied, nil for none.
	Policy *policy.Policy
	// projectBytes counts what the project's files took (projectBudget).
	projectBytes int

	// PolicyPath is the policy file discovery looked at, found or not:
	// the file to watch for one that appears.
	PolicyPath string

	// workDir is where a stdio server without an absolute cwd will start,
	// for policy to judge its program there: the project when it is
	// trusted, else outside it (execpath.OutsideProject), as the host does.
	workDir string
	// rulings are what the files read say about servers other files of
	// their tool define (source.Provider.Rulings), by provider name.
	rulings []ruling
}

// ruling is a source.Ruling of one provider.
type ruling struct {
	provider string
	source.Ruling
}

// TrustError is a trust store that could not be read: nothing in the
// project is trusted.
type TrustError struct{ Err error }

func (e *TrustError) Error() string { return "trust store: " + e.Err.Error() }
func (e *TrustError) Unwrap() error { return e.Err }

// PolicyError is a policy file that could not be read or parsed: every
// server is blocked (fail closed).
type PolicyError struct {
	Path string
	Err  error
}

func (e *PolicyError) Error() string {
	return fmt.Sprintf("policy file %s: %s (every server is blocked)", e.Path, policy.ErrText(e.Err))
}
func (e *PolicyError) Unwrap() error { return e.Err }

// SourceReport is one location discovery looked at.
type SourceReport struct {
	Provider string       `json:"provider"`
	ID       string       `json:"id"`
	Level    config.Level `json:"level"`
	Path     string       `json:"path"`
	// Key names the part of the file read, when it holds several scopes.
	Key   string `json:"key,omitempty"`
	Found bool   `json:"found"`
	// Servers names the definitions from this source that won their name.
	Servers []string `json:"servers"`
	// Lost lists the definitions from this source that did not.
	Lost     []LostServer `json:"lost,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
	Error    string       `json:"error,omitempty"`
}

// LostServer is a definition that did not win its name: To is where the
// winning one is, nil when the definition was dropped by a filter.
type LostServer struct {
	Name   string         `json:"name"`
	To     *config.Source `json:"to,omitempty"`
	Reason string         `json:"reason"`
}

// Shadowed is a server config that lost to an earlier one of the same name
// (DESIGN.md F2: the first definition wins; entries are not merged).
type Shadowed struct {
	Config config.ServerConfig
	By     config.Source // where the winning definition is; zero when it was dropped
	// Reason says why Config lost, for a person ("shadowed by …").
	Reason string
}

// Discover reads every source (DESIGN.md, "Sources") and applies the
// rules. ctx bounds the secret helpers it runs, and is looked at before
// each file: once it is done, discovery stops with what it read, no
// servers, and an *InterruptedError.
func Discover(ctx context.Context, opts Options) *Discovery {
	env := opts.normalizedEnv()
	d, cands := collect(ctx, opts.Providers, env, false)
	if d.interrupted(ctx) {
		return d
	}
	d.decideTrust(opts, env)
	d.decideWorkDir(env)
	d.applyRules(ctx, cands, opts, env)
	return d
}

// ScanProject reads the project-level files Discover would read, for
// `switchboard trust`: nothing is substituted, run or looked up. A ctx
// done before the last file leaves the list short; the caller tells.
func ScanProject(ctx context.Context, opts Options) []trust.ProjectFile {
	d, _ := collect(ctx, opts.Providers, opts.normalizedEnv(), true)
	return d.ProjectFiles
}

// InterruptedError is discovery ended by its context (an interrupt)
// before it had read every file: what it found is not the whole config.
type InterruptedError struct{ Err error }

func (e *InterruptedError) Error() string { return "discovery interrupted: " + e.Err.Error() }
func (e *InterruptedError) Unwrap() error { return e.Err }

// interrupted records ctx's end, once, and reports it.
func (d *Discovery) interrupted(ctx context.Context) bool {
	err := ctx.Err()
	if err == nil {
		return false
	}
	for _, e := range d.Errors {
		if _, ok := e.(*InterruptedError); ok {
			return true
		}
	}
	d.Errors = append(d.Errors, &InterruptedError{Err: err})
	return true
}

// LoadFiles reads only the files named (--config), each in the format
// source.Detect finds, as level explicit: the person chose them, so they
// are trusted. A missing file is an error. The rules are Discover's.
func LoadFiles(ctx context.Context, paths []string, opts Options) *Discovery {
	env := opts.normalizedEnv()
	d := &Discovery{ProjectDir: env.ProjectDir}
	var cands []*candidate
	for _, path := range paths {
		if d.interrupted(ctx) {
			return d
		}
		rep := SourceReport{Path: path, Level: config.LevelExplicit}
		data, ok := d.read(&rep, source.Location{Path: path}, true)
		p := source.Detect(path, data)
		rep.Provider, rep.ID = p.Name, p.ID
		if ok {
			for _, e := range d.parse(&rep, p, source.Location{Path: path, Level: config.LevelExplicit}, data, env) {
				cands = append(cands, &candidate{Entry: e, report: len(d.Sources)})
			}
		}
		d.Sources = append(d.Sources, rep)
	}
	if d.interrupted(ctx) {
		return d
	}
	// The files named are trusted, but the folder they run in may not be:
	// its trust is decided as Discover decides it, from the project-level
	// files that are there, so that servers start in an untrusted clone's
	// folder no more with --config than without.
	if env.ProjectDir != "" {
		scan, _ := collect(ctx, opts.Providers, env, true)
		d.ProjectFiles = scan.ProjectFiles
	}
	d.decideTrust(opts, env)
	d.decideWorkDir(env)
	d.applyRules(ctx, cands, opts, env)
	return d
}

// collect reads every location of the providers (nil: all), or with
// projectOnly only the project-level ones, and parses what it finds,
// without applying any rule, until ctx is done.
func collect(ctx context.Context, providers []*source.Provider, env source.Env, projectOnly bool) (*Discovery, []*candidate) {
	if providers == nil {
		providers = source.All()
	}
	d := &Discovery{ProjectDir: env.ProjectDir}
	type place struct {
		p   *source.Provider
		loc source.Location
	}
	var places []place
	userPaths := map[string]bool{}
	for _, p := range providers {
		locs, err := source.Locations(p, env)
		if err != nil {
			d.Errors = append(d.Errors, fmt.Errorf("%s: %w", p.Name, err))
			continue
		}
		for _, loc := range locs {
			places = append(places, place{p, loc})
			if loc.Level == config.LevelUser {
				userPaths[filepath.Clean(loc.Path)] = true
			}
		}
	}

	var cands []*candidate
	seenProject := map[string]bool{}
	for _, pl := range places {
		if d.interrupted(ctx) {
			break
		}
		// Run in the home directory, a tool's project file is its user
		// file (~/.cursor/mcp.json): it is the person's own, read once,
		// as user level.
		if pl.loc.Level == config.LevelProject && userPaths[filepath.Clean(pl.loc.Path)] {
			continue
		}
		if projectOnly && pl.loc.Level != config.LevelProject {
			continue // only the project's files decide its trust
		}
		rep := SourceReport{Provider: pl.p.Name, ID: pl.p.ID, Level: pl.loc.Level, Path: pl.loc.Path, Key: pl.loc.Key}
		data, ok := d.read(&rep, pl.loc, false)
		if ok {
			entries := d.parse(&rep, pl.p, pl.loc, data, env)
			if pl.loc.Level == config.LevelProject && !seenProject[pl.loc.Path] {
				seenProject[pl.loc.Path] = true
				var names []string
				for _, e := range entries {
					names = append(names, e.Config.Name)
				}
				d.ProjectFiles = append(d.ProjectFiles, trust.ProjectFile{Path: pl.loc.Path, Provider: pl.p.Name, Data: data, Servers: names})
			}
			for _, e := range entries {
				cands = append(cands, &candidate{Entry: e, report: len(d.Sources)})
			}
		}
		d.Sources = append(d.Sources, rep)
	}
	return d, cands
}

func (o *Options) normalizedEnv() source.Env {
	env := o.Env
	if env.Home == "" {
		if env.Lookup != nil {
			env.Home, _ = env.Lookup("HOME")
		} else {
			env.Home = os.Getenv("HOME")
		}
	}
	if env.ProjectDir != "" {
		if abs, err := filepath.Abs(env.ProjectDir); err == nil {
			env.ProjectDir = abs
		}
	}
	return env
}

// read reads a source's file into its report, through safefile.ReadLimited:
// a pipe, a device, a dangling link or a file over loc's size limit is the
// source's error, one line naming the file, and nothing is read from it.
// A missing file is silence unless required.
func (d *Discovery) read(rep *SourceReport, loc source.Location, required bool) ([]byte, bool) {
	err := loc.Err
	var data []byte
	if err == nil {
		limit := loc.MaxSize
		if limit <= 0 {
			limit = safefile.MaxConfigSize
		}
		data, err = safefile.ReadLimited(rep.Path, limit)
	}
	if err == nil && loc.Level == config.LevelProject {
		err = d.projectBudget(len(data), data)
	}
	if err == nil {
		rep.Found = true
		return data, true
	}
	if errors.Is(err, fs.ErrNotExist) && !required {
		return nil, false
	}
	if !errors.Is(err, fs.ErrNotExist) {
		rep.Found = true // it is there, but unreadable
	}
	// The path is already in front.
	diag := &config.Diagnostic{Path: rep.Path, Message: safefile.Reason(err), Err: err}
	rep.Error = diag.Error()
	d.Errors = append(d.Errors, diag)
	return nil, false
}

// A project's files come from a repository someone else wrote, and are
// read before it is trusted: what they may cost is bounded, per file in
// values (each costs a few hundred bytes of tree) and in all in bytes.
const (
	MaxProjectValues = 100_000
	MaxProjectBytes  = 16 << 20
)

// projectBudget charges one project-level file against the budget.
func (d *Discovery) projectBudget(size int, data []byte) error {
	if d.projectBytes += size; d.projectBytes > MaxProjectBytes {
		return fmt.Errorf("the project's config files are more than %d MiB in all, the most switchboard reads from one project", MaxProjectBytes>>20)
	}
	if n := doc.CountValues(data); n > MaxProjectValues {
		return fmt.Errorf("about %d values, more than the %d switchboard reads from a project's file", n, MaxProjectValues)
	}
	return nil
}

// parse runs a provider's parser on one file, turning a panic into an
// error of that source (DESIGN.md F8).
func (d *Discovery) parse(rep *SourceReport, p *source.Provider, loc source.Location, data []byte, env source.Env) (entries []source.Entry) {
	var warnings []*config.Diagnostic
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				entries, warnings = nil, nil
				err = &config.Diagnostic{Path: loc.Path, Message: fmt.Sprintf("internal error reading this %s file: %v\n%s", p.Name, r, debug.Stack())}
			}
		}()
		entries, warnings, err = p.Parse(loc, data, env)
		if err == nil && p.Rulings != nil {
			for _, r := range p.Rulings(loc, data, env) {
				d.rulings = append(d.rulings, ruling{p.Name, r})
			}
		}
	}()
	for _, w := range warnings {
		rep.Warnings = append(rep.Warnings, w.Error())
		d.Warnings = append(d.Warnings, w)
	}
	if err != nil {
		rep.Error = err.Error()
		d.Errors = append(d.Errors, err)
	}
	for i := range entries {
		// An adapter may forget part of the source; the report knows it.
		s := &entries[i].Config.Source
		s.Provider, s.Path, s.Level = p.Name, loc.Path, loc.Level
	}
	return entries
}

// decideTrust sets ProjectTrusted (DESIGN.md F6, "Trust"): a project is
// trusted once the person trusted it with exactly the config files it has
// now, none for a folder without any. Until then nothing in it runs — not
// its config's servers, and not its files through the person's own
// servers, which the host then starts in the home directory. The home
// directory itself is the person's own, not a clone, and is trusted.
func (d *Discovery) decideTrust(opts Options, env source.Env) {
	switch {
	case d.ProjectDir == "":
		return
	case opts.TrustProject, env.Home != "" && samePath(d.ProjectDir, env.Home):
		d.ProjectTrusted = true
		return
	}
	dir := opts.stateDir(env)
	if dir == "" && len(d.ProjectFiles) == 0 {
		return // nowhere to have recorded trust, and no config to worry about
	}
	trusted, err := trust.IsTrusted(dir, d.ProjectDir, d.ProjectFiles)
	if err != nil {
		d.Errors = append(d.Errors, &TrustError{Err: err})
	}
	d.ProjectTrusted = trusted
}

// decideWorkDir sets workDir once trust is known: the project once it is
// trusted, else outside any (no project, or one not trusted).
func (d *Discovery) decideWorkDir(env source.Env) {
	d.workDir = d.ProjectDir
	if d.ProjectDir == "" || !d.ProjectTrusted {
		d.workDir = execpath.OutsideProject(env.Home)
	}
}

// samePath reports whether a and b name the same directory, links
// resolved where they can be.
func samePath(a, b string) bool {
	clean := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	return clean(a) == clean(b)
}

func (o *Options) stateDir(env source.Env) string {
	if o.StateDir != "" {
		return o.StateDir
	}
	if dir := (config.Dirs{Home: env.Home, Lookup: env.Lookup}).StateHome(); dir != "" {
		return filepath.Join(dir, "switchboard")
	}
	return ""
}
