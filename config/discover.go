package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
)

// DiscoverOptions says where discovery looks and which rules it applies
// (SPEC F1–F9). The zero value reads every registered provider's files
// under os.LookupEnv's HOME, with no project, no exclusions and the
// system's policy file.
type DiscoverOptions struct {
	// Env is the machine to look at: home, project directory, platform
	// and environment variables (also used for substitution). An empty
	// Home means $HOME from Env.Lookup.
	Env Env
	// Providers are the formats to read, in precedence order. Nil means
	// every registered provider (Providers()); --no-discover passes only
	// the native one.
	Providers []*Provider
	// StateDir holds the trust store; "" means $XDG_STATE_HOME/switchboard
	// or ~/.local/state/switchboard.
	StateDir string
	// TrustProject lets the project's servers run without a recorded
	// trust decision (--trust-project). False means trust.json decides.
	TrustProject bool
	// NoProjectConfig drops every project-level entry, as if the project
	// had no config files (SPEC F3). False reads them.
	NoProjectConfig bool
	// ExcludeNames drops servers whose name matches one of these globs
	// (path.Match syntax), wherever they are defined. Nil drops none.
	ExcludeNames []string
	// Filter, when set, is asked about each server about to win its name,
	// fully substituted; false drops it, and the next definition of the
	// name, if any, is asked in turn. An embedder uses it to take a server
	// over itself (the seeds' native Exa integration). Nil keeps all.
	Filter func(ServerConfig) bool
	// PolicyPath is the administrator's policy file; "" means
	// $SWITCHBOARD_POLICY, or /etc/switchboard/policy.json.
	PolicyPath string
	// SkipCommands leaves "!command" env and header values as written,
	// for a caller that only lists (switchboard sources): nothing runs.
	// False runs them for the servers that win, where allowed.
	SkipCommands bool
}

// Discovery is what discovery found (SPEC F9). It never fails as a whole:
// a source that cannot be read is an error of that source, a server that
// cannot be used has its Err, and everything else goes on (SPEC F8).
type Discovery struct {
	// Servers is the winning definition of each name, in precedence
	// order: disabled, untrusted, blocked, invalid (Err) and duplicate
	// servers included, marked as such, so a host can list them.
	Servers []ServerConfig
	// Sources reports every location looked at, found or not, in the
	// order they were read.
	Sources []SourceReport
	// Shadowed holds every definition that did not win its name, with
	// the winner and the reason.
	Shadowed []Shadowed
	// Warnings are problems that did not stop a server: an ignored field
	// of the wrong type, an unsupported feature.
	Warnings []*Diagnostic
	// Errors are sources that could not be read or parsed (each a
	// *Diagnostic naming the file, with line and column when known) and
	// trust store problems.
	Errors []error

	// ProjectDir is the project whose files were read ("" for none), and
	// ProjectFiles the project-level files found there: what `switchboard
	// trust` trusts.
	ProjectDir   string
	ProjectFiles []ProjectFile
	// ProjectTrusted says whether project-level servers may run: the
	// project was trusted with exactly these files, or TrustProject was
	// set. It is false when there are no project files.
	ProjectTrusted bool
	// Policy is the policy that applied, nil for none.
	Policy *Policy
}

// SourceReport is one location discovery looked at.
type SourceReport struct {
	Provider string `json:"provider"`
	ID       string `json:"id"`
	Level    Level  `json:"level"`
	Path     string `json:"path"`
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
	Name   string  `json:"name"`
	To     *Source `json:"to,omitempty"`
	Reason string  `json:"reason"`
}

// Discover reads every source (SPEC §8) and applies the rules: filters,
// trust, substitution, validation, policy, precedence, duplicates.
func Discover(opts DiscoverOptions) *Discovery {
	env := opts.normalizedEnv()
	d, cands := collect(opts.Providers, env)
	d.decideTrust(opts, env)
	d.applyRules(cands, opts, env)
	return d
}

// ScanProject reads the project-level files Discover would read, for
// `switchboard trust`: nothing is substituted, run or looked up.
func ScanProject(opts DiscoverOptions) []ProjectFile {
	d, _ := collect(opts.Providers, opts.normalizedEnv())
	return d.ProjectFiles
}

// collect reads every location of the providers (nil: all) and parses what
// it finds, without applying any rule.
func collect(providers []*Provider, env Env) (*Discovery, []*candidate) {
	if providers == nil {
		providers = Providers()
	}
	d := &Discovery{ProjectDir: env.ProjectDir}
	type place struct {
		p   *Provider
		loc Location
	}
	var places []place
	userPaths := map[string]bool{}
	for _, p := range providers {
		locs, err := safeLocations(p, env)
		if err != nil {
			d.Errors = append(d.Errors, fmt.Errorf("%s: %w", p.Name, err))
			continue
		}
		for _, loc := range locs {
			places = append(places, place{p, loc})
			if loc.Level == LevelUser {
				userPaths[filepath.Clean(loc.Path)] = true
			}
		}
	}

	var cands []*candidate
	seenProject := map[string]bool{}
	for _, pl := range places {
		// Run in the home directory, a tool's project file is its user
		// file (~/.cursor/mcp.json): it is the person's own, read once,
		// as user level.
		if pl.loc.Level == LevelProject && userPaths[filepath.Clean(pl.loc.Path)] {
			continue
		}
		rep := SourceReport{Provider: pl.p.Name, ID: pl.p.ID, Level: pl.loc.Level, Path: pl.loc.Path, Key: pl.loc.Key}
		data, ok := d.read(&rep, false)
		if ok {
			servers := d.parse(&rep, pl.p, pl.loc, data, env)
			if pl.loc.Level == LevelProject && !seenProject[pl.loc.Path] {
				seenProject[pl.loc.Path] = true
				var names []string
				for _, c := range servers {
					names = append(names, c.Name)
				}
				d.ProjectFiles = append(d.ProjectFiles, ProjectFile{Path: pl.loc.Path, Provider: pl.p.Name, Data: data, Servers: names})
			}
			for _, c := range servers {
				cands = append(cands, &candidate{c: c, report: len(d.Sources)})
			}
		}
		d.Sources = append(d.Sources, rep)
	}
	return d, cands
}

// LoadFiles reads only the files named (--config), each in the format
// Sniff detects (see DetectProvider), as level explicit: the person chose
// them, so they are trusted. A missing file is an error. The rules are
// Discover's.
func LoadFiles(paths []string, opts DiscoverOptions) *Discovery {
	env := opts.normalizedEnv()
	d := &Discovery{ProjectDir: env.ProjectDir}
	var cands []*candidate
	for _, path := range paths {
		rep := SourceReport{Path: path, Level: LevelExplicit}
		data, ok := d.read(&rep, true)
		p := DetectProvider(path, data)
		rep.Provider, rep.ID = p.Name, p.ID
		if ok {
			for _, c := range d.parse(&rep, p, Location{Path: path, Level: LevelExplicit}, data, env) {
				cands = append(cands, &candidate{c: c, report: len(d.Sources)})
			}
		}
		d.Sources = append(d.Sources, rep)
	}
	d.applyRules(cands, opts, env)
	return d
}

// DetectProvider returns the provider whose format a file is in: the first
// (in precedence order) whose Sniff recognises the path alone, else the
// first that recognises the content, else the native format, which reads
// any mcpServers file.
func DetectProvider(path string, data []byte) *Provider {
	providers := Providers()
	passes := [][]byte{nil}
	if data != nil {
		passes = append(passes, data)
	}
	for _, content := range passes {
		for _, p := range providers {
			if safeSniff(p, path, content) {
				return p
			}
		}
	}
	if p := ProviderByID(ProviderNative); p != nil {
		return p
	}
	return providers[0]
}

func (o *DiscoverOptions) normalizedEnv() Env {
	env := o.Env
	if env.Home == "" {
		env.Home, _ = env.lookup("HOME")
	}
	if env.ProjectDir != "" {
		if abs, err := filepath.Abs(env.ProjectDir); err == nil {
			env.ProjectDir = abs
		}
	}
	return env
}

// read reads a source's file into its report. A missing file is silence
// unless required.
func (d *Discovery) read(rep *SourceReport, required bool) ([]byte, bool) {
	data, err := os.ReadFile(rep.Path)
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
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Op + ": " + pe.Err.Error() // the path is already in front
	}
	diag := &Diagnostic{Path: rep.Path, Message: msg, Err: err}
	rep.Error = diag.Error()
	d.Errors = append(d.Errors, diag)
	return nil, false
}

// parse runs a provider's parser on one file, turning a panic into an
// error of that source (SPEC F8).
func (d *Discovery) parse(rep *SourceReport, p *Provider, loc Location, data []byte, env Env) (servers []ServerConfig) {
	var warnings []*Diagnostic
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				servers, warnings = nil, nil
				err = &Diagnostic{Path: loc.Path, Message: fmt.Sprintf("internal error reading this %s file: %v\n%s", p.Name, r, debug.Stack())}
			}
		}()
		servers, warnings, err = p.Parse(loc, data, env)
	}()
	for _, w := range warnings {
		rep.Warnings = append(rep.Warnings, w.Error())
		d.Warnings = append(d.Warnings, w)
	}
	if err != nil {
		rep.Error = err.Error()
		d.Errors = append(d.Errors, err)
	}
	for i := range servers {
		// An adapter may forget part of the source; the report knows it.
		s := &servers[i].Source
		s.Provider, s.Path, s.Level = p.Name, loc.Path, loc.Level
	}
	return servers
}

func safeLocations(p *Provider, env Env) (locs []Location, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error listing locations: %v", r)
		}
	}()
	return p.Locations(env), nil
}

func safeSniff(p *Provider, path string, data []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return p.Sniff(path, data)
}

// decideTrust sets ProjectTrusted from the trust store (SPEC F6).
func (d *Discovery) decideTrust(opts DiscoverOptions, env Env) {
	if len(d.ProjectFiles) == 0 || opts.NoProjectConfig {
		return
	}
	if opts.TrustProject {
		d.ProjectTrusted = true
		return
	}
	trusted, err := IsTrusted(opts.stateDir(env), d.ProjectDir, d.ProjectFiles)
	if err != nil {
		d.Errors = append(d.Errors, fmt.Errorf("trust store: %w", err))
	}
	d.ProjectTrusted = trusted
}

func (o *DiscoverOptions) stateDir(env Env) string {
	if o.StateDir != "" {
		return o.StateDir
	}
	if v, ok := env.lookup("XDG_STATE_HOME"); ok && filepath.IsAbs(v) {
		return filepath.Join(v, "switchboard")
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".local", "state", "switchboard")
}

// Shadowed is a server config that lost to an earlier one of the same name
// (SPEC F2: the first definition wins; entries are not merged).
type Shadowed struct {
	Config ServerConfig
	By     Source // where the winning definition is; zero when it was dropped
	// Reason says why Config lost, for a person ("shadowed by …").
	Reason string
}
