package cli

import (
	"context"
	"encoding/json"
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

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/config/edit"
	"github.com/switchboard-mcp/switchboard/config/trust"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/execpath"
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
// Every call into discovery (package app), trust and editing is in this
// file, behind these fields, so that where discovery lives is this file's
// business only.
type Factory struct {
	// IO is where commands read and write.
	IO IO

	// Discover reads the server configs: the --config files, or every
	// source discovery knows (only switchboard's own with --no-discover),
	// with the global flags' project, trust and exclusions applied.
	Discover func(discoverMode) (*discover.Discovery, error)
	// Load is Discover, and what the command line makes of it
	// (app.Load): the bundled demo standing in when nothing is configured
	// anywhere (DESIGN.md F45; never with --config: the person named the
	// files, and an empty one is empty), the files to watch.
	Load func(discoverMode) (*app.Loaded, error)
	// HostOptions are the options of a host on the global flags (tool
	// cache, startup gate, project, roots, --trust-project, --verbose).
	// untrustedProject says the project has not been trusted: the host
	// starts the person's own servers outside it (host.Options).
	HostOptions func(untrustedProject bool) (*host.Options, error)
	// Logger is where the host and the config watcher log: stderr with
	// --verbose, nil (discard) without.
	Logger func() *slog.Logger
	// TokenFile is where OAuth grants are kept (DESIGN.md F42), "" when
	// there is no state directory.
	TokenFile func() string
	// StateDir is the state directory, "" when there is none.
	StateDir func() string
	// GlobalArgs are the global flags given, as arguments again: what a
	// daemon this command starts is started with.
	GlobalArgs func() []string
	// NoDaemon says --no-daemon: commands run their own host, never a
	// daemon's (daemon.go).
	NoDaemon func() bool

	// ScanProject finds the project's config files: what trust trusts.
	ScanProject func() (dir string, files []trust.ProjectFile, err error)
	// TrustProject records that exactly these files of dir may start
	// servers.
	TrustProject func(dir string, files []trust.ProjectFile) error
	// ListTrust is every trust decision recorded.
	ListTrust func() ([]trust.Trusted, error)
	// Untrust forgets the decision for dir ("": the project, or the
	// current directory), saying which folder and whether there was one.
	Untrust func(dir string) (string, bool, error)

	// ConfigPath is switchboard's own config file that an edit's --scope
	// names: "user" or "project"; anything else is a usage error.
	ConfigPath func(scope string) (string, error)
	// Edit changes switchboard's own config files.
	Edit Editor
	// Mask hides the secrets of every config discovered so far in a text
	// to print (DESIGN.md F44).
	Mask func(string) string
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
	// AddServerJSON adds an entry given as a JSON object.
	AddServerJSON(path, name string, value json.RawMessage) error
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
	noDaemon     bool
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
	f.BoolVar(&g.noDaemon, "no-daemon", false, "never use or start the per-user daemon: run the servers in this process")
	_ = f.MarkHidden("gate")
}

// factory is the Factory over these flags. It is made before cobra parses
// them, so every function reads the flags when it is called.
func (g *globalOptions) factory() *Factory {
	return &Factory{
		IO:           g.io,
		Discover:     g.discover,
		Load:         g.load,
		HostOptions:  g.hostOptions,
		Logger:       g.logger,
		TokenFile:    g.tokenFile,
		StateDir:     g.stateDirPath,
		NoDaemon:     func() bool { return g.noDaemon },
		ScanProject:  g.scanProject,
		TrustProject: g.trustProjectFiles,
		ListTrust:    func() ([]trust.Trusted, error) { return trust.List(g.stateDirPath()) },
		Untrust:      g.untrust,
		ConfigPath:   g.configPath,
		Edit:         configEditor{},
		Mask:         g.redactor.String,
	}
}

// loadOptions are the discovery settings the flags and environment make:
// the project directory, the state directory, trust, exclusions. Every
// discovery of this process shares one runner of secret helpers, and
// teaches its secrets to the redactor.
func (g *globalOptions) loadOptions(mode discoverMode) *app.LoadOptions {
	return &app.LoadOptions{
		ProjectDir:   g.projectDir,
		Files:        g.configs,
		NativeOnly:   g.noDiscover,
		NoProject:    g.noProject,
		Exclude:      g.exclude,
		TrustProject: g.trustProject,
		StateDir:     g.stateDirPath(),
		Lookup:       config.LookupFunc(g.io.LookupEnv),
		RunCommand:   g.secrets.Run,
		SkipCommands: mode == namesOnly,
		Demo:         demoServers,
		Discovered:   func(d *discover.Discovery) { maskDiscovery(&g.redactor, d) },
	}
}

// discover and load end with an error on an interrupt: what was read is
// not the config, and nothing should start from it.
func (g *globalOptions) discover(mode discoverMode) (*discover.Discovery, error) {
	return app.Discover(g.ctx, g.loadOptions(mode))
}

func (g *globalOptions) load(mode discoverMode) (*app.Loaded, error) {
	return app.Load(g.ctx, g.loadOptions(mode))
}

func (g *globalOptions) stateDirPath() string {
	if g.stateDir != "" {
		return g.stateDir
	}
	return config.StateDir(config.LookupFunc(g.io.LookupEnv))
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

// pinFile is where tool definitions are remembered (DESIGN.md F66), in
// the state directory; "" when there is none.
func (g *globalOptions) pinFile() string {
	dir := g.stateDirPath()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, host.PinFileName)
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

func (g *globalOptions) hostOptions(untrustedProject bool) (*host.Options, error) {
	dir, err := g.loadOptions(namesOnly).Project()
	if err != nil {
		return nil, err
	}
	roots, err := g.rootsFor(dir, untrustedProject)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		// No project: servers start in the home directory, as outside an
		// untrusted one, and nothing is offered as a root unasked.
		home, _ := g.io.LookupEnv("HOME")
		dir = execpath.OutsideProject(home)
	}
	cache := g.cacheDir
	if cache == "" {
		cache = config.CacheDir(config.LookupFunc(g.io.LookupEnv))
	}
	if g.noCache {
		cache = ""
	}
	return &host.Options{
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
		PinFile:   g.pinFile(),
	}, nil
}

// rootsFor is what servers that ask for roots (roots/list) are offered, so
// that a filesystem server knows which folders it may use: --root's
// folders, exactly; without --root, the project. An untrusted project is
// offered by the host itself (host.Options.UntrustedProject), with --root
// too, since servers start outside it and may still read it as data:
// without --root it is left to the host, so that it is offered once.
func (g *globalOptions) rootsFor(project string, untrustedProject bool) ([]*mcp.Root, error) {
	if len(g.roots) == 0 {
		if untrustedProject || project == "" {
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
	opts, err := g.loadOptions(namesOnly).DiscoverOptions()
	if err != nil {
		return "", nil, err
	}
	if opts.Env.ProjectDir == "" {
		return "", nil, usagef("this folder is not a project (no repository, no project config here): there is nothing to trust; --project DIR names one")
	}
	files := discover.ScanProject(g.ctx, opts)
	// Interrupted, the list may be short: trusting it would trust less
	// than the project holds, and the hash would never match.
	if err := g.ctx.Err(); err != nil {
		return "", nil, err
	}
	return opts.Env.ProjectDir, files, nil
}

func (g *globalOptions) untrust(dir string) (string, bool, error) {
	var err error
	switch {
	case dir != "":
		dir, err = filepath.Abs(dir)
	default:
		if dir, err = g.loadOptions(namesOnly).Project(); err == nil && dir == "" {
			dir, err = os.Getwd()
		}
	}
	if err != nil {
		return "", false, err
	}
	revoked, err := trust.Revoke(g.stateDirPath(), dir)
	return dir, revoked, err
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

func (configEditor) AddServerJSON(path, name string, value json.RawMessage) error {
	return edit.AddServerJSON(path, name, value)
}

func (configEditor) RemoveServer(path, name string) error { return edit.RemoveServer(path, name) }

func (configEditor) SetDisabled(path, name string, disabled bool) error {
	return edit.SetDisabled(path, name, disabled)
}

func (configEditor) ClaimDisabled(path, name string) error { return edit.ClaimDisabled(path, name) }

func (configEditor) IsClaim(path, name string) (bool, error) { return edit.IsClaim(path, name) }
