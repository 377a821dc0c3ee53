package cli

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/config/edit"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/config/trust"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/redact"
	"github.com/switchboard-mcp/switchboard/internal/secretcmd"
)

// Factory is what a command is built from: where it reads and writes, and
// the constructors of what it works on, in the manner of gh's cmdutil
// Factory. The root command makes one from the global flags (see
// globalOptions.factory); a test makes one with fakes and calls a command's
// run function without cobra. Each command uses only the fields it needs;
// one a test leaves nil is one the command under test must not touch.
//
// Every call into package config's discovery, trust and editing functions
// is in this file, behind these fields, so that where discovery lives is
// this file's business only.
type Factory struct {
	// IO is where commands read and write.
	IO IO

	// Discover reads the server configs: the --config files, or every
	// source discovery knows (only switchboard's own with --no-discover),
	// with the global flags' project, trust and exclusions applied.
	Discover func(discoverMode) (*discover.Discovery, error)
	// Demo is the config that stands in when discovery found nothing at
	// all (DESIGN.md F45). It returns no servers when nothing may stand in:
	// with --config the person named the files, and an empty one is empty.
	// Nil means no demo.
	Demo func() ([]config.ServerConfig, error)
	// NewHost builds a host on the global flags (tool cache, startup gate,
	// project, --trust-project, --verbose), not yet started: a command may
	// subscribe to its events first.
	// untrustedProject says the project has not been trusted: the host
	// starts the person's own servers outside it (host.Options).
	NewHost func(untrustedProject bool, adjust ...func(*host.Options)) (*host.Host, error)
	// Logger is where the host and the config watcher log: stderr with
	// --verbose, nil (discard) without.
	Logger func() *slog.Logger
	// TrustStore is the file that holds trust decisions, whose changes
	// watch reloads on; "" when there is no state directory.
	TrustStore func() string
	// TokenFile is where OAuth grants are kept (DESIGN.md F42), "" when
	// there is no state directory.
	TokenFile func() string
	// StateDir is the state directory, "" when there is none.
	StateDir func() string

	// ScanProject finds the project's config files: what trust trusts.
	ScanProject func() (dir string, files []trust.ProjectFile, err error)
	// TrustProject records that exactly these files of dir may start
	// servers.
	TrustProject func(dir string, files []trust.ProjectFile) error

	// ConfigPath is switchboard's own config file that an edit's --scope
	// names: "user" or "project"; anything else is a usage error.
	ConfigPath func(scope string) (string, error)
	// Edit changes switchboard's own config files.
	Edit Editor
}

// discoverMode says whether discovery may run "!command" values.
type discoverMode int

const (
	// forHost runs the winners' "!command" values: a host needs them.
	forHost discoverMode = iota
	// namesOnly runs none (they print secrets, and may ask for a
	// password): listing sources, completing a name on Tab or finding a
	// definition never starts one.
	namesOnly
)

// Editor edits switchboard's own config files (package config: each edit
// locks the file and replaces it in one step).
type Editor interface {
	AddServer(path, name string, entry edit.EntryFields) error
	RemoveServer(path, name string) error
	SetDisabled(path, name string, disabled bool) error
	// ClaimDisabled adds a disabled entry that only claims a name defined
	// in another tool's config; IsClaim tells such an entry.
	ClaimDisabled(path, name string) error
	IsClaim(path, name string) (bool, error)
}

// globalOptions are the flags every command shares, and the environment
// they are read against.
type globalOptions struct {
	// ctx is the command line's, cancelled by SIGINT and SIGTERM (Main):
	// an interrupt ends discovery between files and the secret helpers it
	// runs.
	ctx          context.Context
	io           IO
	configs      []string
	noDiscover   bool
	noProject    bool
	exclude      []string
	cacheDir     string
	stateDir     string
	noCache      bool
	projectDir   string
	trustProject bool
	gate         time.Duration
	verbose      bool
	// roots are --root's folders; none means the project.
	roots []string
	// secrets runs "!command" secret helpers for every discovery of this
	// process, so a reload does not run them again (DESIGN.md F5).
	secrets secretcmd.Runner
	// redactor knows the secrets of every config this process discovered,
	// and masks them in what the command line prints from discovery, in
	// its log and in the error Run prints last (DESIGN.md F44).
	redactor redact.Redactor
}

func (g *globalOptions) register(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringArrayVarP(&g.configs, "config", "c", nil, "read only this config `file`, in any supported format (repeatable)")
	f.BoolVar(&g.noProject, "no-project", false, "read no project-level config files, only the user's")
	f.StringArrayVar(&g.exclude, "exclude", nil, "leave out servers whose name matches this `glob` (repeatable; also $SWITCHBOARD_EXCLUDE, comma-separated)")
	f.BoolVar(&g.noDiscover, "no-discover", false, "read only switchboard's own config files, not other tools'")
	f.StringVar(&g.cacheDir, "cache-dir", "", "tool cache `dir` (default $XDG_CACHE_HOME/switchboard)")
	f.StringVar(&g.stateDir, "state-dir", "", "state `dir` holding trust decisions and OAuth tokens (default $XDG_STATE_HOME/switchboard)")
	f.BoolVar(&g.noCache, "no-cache", false, "neither read nor write the tool cache")
	f.StringVar(&g.projectDir, "project", "", "project `dir` whose config to read (default: current directory)")
	f.BoolVar(&g.trustProject, "trust-project", false, "trust the project's config for this run (its servers can run programs)")
	f.DurationVar(&g.gate, "gate", host.DefaultStartupGate, "how long to wait for slow servers that have cached tools")
	f.BoolVarP(&g.verbose, "verbose", "v", false, "log what the host does to stderr")
	f.StringArrayVar(&g.roots, "root", nil, "offer this `dir` to servers as a root, instead of the project (repeatable)")
	_ = f.MarkHidden("gate")
}

// factory is the Factory over these flags. It is made before cobra parses
// them, so every function reads the flags when it is called.
func (g *globalOptions) factory() *Factory {
	return &Factory{
		IO:           g.io,
		Discover:     g.discover,
		Demo:         g.demo,
		NewHost:      g.newHost,
		Logger:       g.logger,
		TrustStore:   g.trustStore,
		TokenFile:    g.tokenFile,
		StateDir:     g.stateDirPath,
		ScanProject:  g.scanProject,
		TrustProject: g.trustProjectFiles,
		ConfigPath:   g.configPath,
		Edit:         configEditor{},
	}
}

// discoverOptions are the discovery settings the flags and environment
// make: the project directory, $HOME, the state directory, trust.
func (g *globalOptions) discoverOptions() (discover.Options, error) {
	dir, err := g.project()
	if err != nil {
		return discover.Options{}, err
	}
	lookup := config.LookupFunc(g.io.LookupEnv)
	home, _ := lookup("HOME")
	opts := discover.Options{
		Env:             source.Env{Home: home, ProjectDir: dir, Lookup: lookup},
		StateDir:        g.stateDirPath(),
		TrustProject:    g.trustProject,
		NoProjectConfig: g.noProject,
		ExcludeNames:    g.exclude,
		RunCommand:      g.secrets.Run,
	}
	// The user's standing exclude list (DESIGN.md F3) lives in the environment,
	// beside the shell profile that knows which servers a person never wants.
	if v, ok := lookup("SWITCHBOARD_EXCLUDE"); ok {
		for _, glob := range strings.Split(v, ",") {
			if glob = strings.TrimSpace(glob); glob != "" {
				opts.ExcludeNames = append(opts.ExcludeNames, glob)
			}
		}
	}
	if g.noDiscover {
		opts.Providers = []*source.Provider{source.Native}
	}
	return opts, nil
}

func (g *globalOptions) discover(mode discoverMode) (*discover.Discovery, error) {
	opts, err := g.discoverOptions()
	if err != nil {
		return nil, err
	}
	opts.SkipCommands = mode == namesOnly
	var d *discover.Discovery
	if len(g.configs) > 0 {
		d = discover.LoadFiles(g.ctx, g.configs, opts)
	} else {
		d = discover.Discover(g.ctx, opts)
	}
	// An interrupt during discovery ends the command: what was read is
	// not the config, and nothing should start from it.
	if err := g.ctx.Err(); err != nil {
		return nil, err
	}
	maskDiscovery(&g.redactor, d)
	return d, nil
}

func (g *globalOptions) demo() ([]config.ServerConfig, error) {
	if len(g.configs) > 0 {
		return nil, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	lookup := func(name string) (string, bool) {
		if name == "SWITCHBOARD_SELF" {
			return self, true
		}
		return os.LookupEnv(name)
	}
	servers, _, err := source.ParseNative(demoPath, demoJSON, config.LevelUser, lookup)
	for i := range servers {
		servers[i].Source.Provider = "demo"
		servers[i].Source.Line = 0 // a line in a file nobody can open says nothing
	}
	return servers, err
}

func (g *globalOptions) stateDirPath() string {
	if g.stateDir != "" {
		return g.stateDir
	}
	return config.StateDir(config.LookupFunc(g.io.LookupEnv))
}

func (g *globalOptions) trustStore() string {
	dir := g.stateDirPath()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, trust.FileName)
}

// tokenFile is the OAuth token file, in a folder of its own under the
// state directory (mode 0700; the file 0600).
func (g *globalOptions) tokenFile() string {
	dir := g.stateDirPath()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "oauth", "tokens.json")
}

func (g *globalOptions) project() (string, error) {
	if g.projectDir != "" {
		return filepath.Abs(g.projectDir)
	}
	return os.Getwd()
}

func (g *globalOptions) logger() *slog.Logger {
	if !g.verbose {
		return nil
	}
	return slog.New(g.redactor.Handler(slog.NewTextHandler(g.io.Err, &slog.HandlerOptions{Level: slog.LevelDebug})))
}

func (g *globalOptions) newHost(untrustedProject bool, adjust ...func(*host.Options)) (*host.Host, error) {
	dir, err := g.project()
	if err != nil {
		return nil, err
	}
	cache := g.cacheDir
	if cache == "" {
		cache = config.CacheDir(config.LookupFunc(g.io.LookupEnv))
	}
	if g.noCache {
		cache = ""
	}
	roots, err := g.rootsFor(dir, untrustedProject)
	if err != nil {
		return nil, err
	}
	opts := &host.Options{
		Logger:           g.logger(),
		StartupGate:      g.gate,
		CacheDir:         cache,
		ProjectDir:       dir,
		TrustProject:     g.trustProject,
		UntrustedProject: untrustedProject,
		Roots:            roots,
		// The command line is the whole process: orphans its servers
		// leave are its own to end and reap (DESIGN.md F17).
		Subreaper: true,
		TokenFile: g.tokenFile(),
	}
	for _, fn := range adjust {
		fn(opts)
	}
	return host.New(opts), nil
}

// rootsFor is what servers that ask for roots (roots/list) are offered, so
// that a filesystem server knows which folders it may use: --root's
// folders, exactly; without --root, the project. An untrusted project is
// offered by the host itself (host.Options.UntrustedProject), with --root
// too, since servers start outside it and may still read it as data:
// without --root it is left to the host, so that it is offered once.
func (g *globalOptions) rootsFor(project string, untrustedProject bool) ([]*mcp.Root, error) {
	if len(g.roots) == 0 {
		if untrustedProject {
			return nil, nil
		}
		return []*mcp.Root{fileRoot(project)}, nil
	}
	var roots []*mcp.Root
	for _, r := range g.roots {
		dir, err := filepath.Abs(r)
		if err != nil {
			return nil, usagef("--root %s: %v", r, err)
		}
		switch fi, err := os.Stat(dir); {
		case err != nil:
			return nil, usagef("--root %s: no such folder", r)
		case !fi.IsDir():
			return nil, usagef("--root %s: not a folder", r)
		}
		root := fileRoot(dir)
		if !slices.ContainsFunc(roots, func(o *mcp.Root) bool { return o.URI == root.URI }) {
			roots = append(roots, root)
		}
	}
	return roots, nil
}

// fileRoot is the root for an absolute folder: a file:// URI (with the
// third slash before a Windows drive letter, file:///C:/dir) and the
// folder's name.
func fileRoot(dir string) *mcp.Root {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return &mcp.Root{URI: (&url.URL{Scheme: "file", Path: p}).String(), Name: filepath.Base(dir)}
}

func (g *globalOptions) scanProject() (string, []trust.ProjectFile, error) {
	opts, err := g.discoverOptions()
	if err != nil {
		return "", nil, err
	}
	files := discover.ScanProject(g.ctx, opts)
	// Interrupted, the list may be short: trusting it would trust less
	// than the project holds, and the hash would never match.
	if err := g.ctx.Err(); err != nil {
		return "", nil, err
	}
	return opts.Env.ProjectDir, files, nil
}

func (g *globalOptions) trustProjectFiles(dir string, files []trust.ProjectFile) error {
	return trust.Record(g.stateDirPath(), dir, files)
}

func (g *globalOptions) configPath(scope string) (string, error) {
	switch scope {
	case "user":
		p := config.UserConfigPath(config.LookupFunc(g.io.LookupEnv))
		if p == "" {
			return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set: no place for the user config")
		}
		return p, nil
	case "project":
		dir, err := g.project()
		if err != nil {
			return "", err
		}
		return config.ProjectConfigPath(dir), nil
	}
	return "", usagef("--scope must be user or project, not %q", scope)
}

// configEditor is the Editor over package edit.
type configEditor struct{}

func (configEditor) AddServer(path, name string, entry edit.EntryFields) error {
	return edit.AddServer(path, name, entry)
}

func (configEditor) RemoveServer(path, name string) error { return edit.RemoveServer(path, name) }

func (configEditor) SetDisabled(path, name string, disabled bool) error {
	return edit.SetDisabled(path, name, disabled)
}

func (configEditor) ClaimDisabled(path, name string) error { return edit.ClaimDisabled(path, name) }

func (configEditor) IsClaim(path, name string) (bool, error) { return edit.IsClaim(path, name) }
