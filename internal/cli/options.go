package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/secretcmd"
)

// globalOptions are the flags every command shares.
type globalOptions struct {
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
	// secrets runs "!command" secret helpers for every discovery of this
	// process, so a reload does not run them again.
	secrets secretcmd.Runner
}

func (g *globalOptions) register(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringArrayVarP(&g.configs, "config", "c", nil, "read only this config `file`, in any supported format (repeatable)")
	f.BoolVar(&g.noProject, "no-project", false, "read no project-level config files, only the user's")
	f.StringArrayVar(&g.exclude, "exclude", nil, "leave out servers whose name matches this `glob` (repeatable; also $SWITCHBOARD_EXCLUDE, comma-separated)")
	f.BoolVar(&g.noDiscover, "no-discover", false, "read only switchboard's own config files, not other tools'")
	f.StringVar(&g.cacheDir, "cache-dir", "", "tool cache `dir` (default $XDG_CACHE_HOME/switchboard)")
	f.StringVar(&g.stateDir, "state-dir", "", "state `dir` holding trust decisions (default $XDG_STATE_HOME/switchboard)")
	f.BoolVar(&g.noCache, "no-cache", false, "neither read nor write the tool cache")
	f.StringVar(&g.projectDir, "project", "", "project `dir` whose config to read (default: current directory)")
	f.BoolVar(&g.trustProject, "trust-project", false, "trust the project's config for this run (its servers can run programs)")
	f.DurationVar(&g.gate, "gate", host.DefaultStartupGate, "how long to wait for slow servers that have cached tools")
	f.BoolVarP(&g.verbose, "verbose", "v", false, "log what the host does to stderr")
	_ = f.MarkHidden("gate")
}

// loaded is the outcome of reading the configs.
type loaded struct {
	servers []config.ServerConfig
	// demo is set when no config exists anywhere and the embedded demo
	// config stands in.
	demo bool
	// problems are sources that could not be read (and trust store or
	// policy problems); their servers are lost, the rest go on.
	problems []error
	// discovery is what discovery found; nil for the demo.
	discovery *discover.Discovery
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
	// The user's standing exclude list (SPEC F3) lives in the environment,
	// beside the shell profile that knows which servers a person never wants.
	if v, ok := lookup("SWITCHBOARD_EXCLUDE"); ok {
		for _, glob := range strings.Split(v, ",") {
			if glob = strings.TrimSpace(glob); glob != "" {
				opts.ExcludeNames = append(opts.ExcludeNames, glob)
			}
		}
	}
	if g.noDiscover {
		opts.Providers = []*source.Provider{source.ByID(source.NativeName)}
	}
	return opts, nil
}

func (g *globalOptions) stateDirPath() string {
	if g.stateDir != "" {
		return g.stateDir
	}
	return config.StateDir(config.LookupFunc(g.io.LookupEnv))
}

// discover reads the --config files, or discovers every source (only
// ours with --no-discover). mods adjust the options, for a command that
// needs something particular.
func (g *globalOptions) discover(mods ...func(*discover.Options)) (*discover.Discovery, error) {
	opts, err := g.discoverOptions()
	if err != nil {
		return nil, err
	}
	for _, m := range mods {
		m(&opts)
	}
	// The secret helpers are bounded by their own timeout.
	ctx := context.Background()
	if len(g.configs) > 0 {
		return discover.LoadFiles(ctx, g.configs, opts), nil
	}
	return discover.Discover(ctx, opts), nil
}

// load discovers the configs; when no server is found anywhere (and no
// --config was given) it falls back to the embedded demo config (SPEC F45).
func (g *globalOptions) load(mods ...func(*discover.Options)) (*loaded, error) {
	d, err := g.discover(mods...)
	if err != nil {
		return nil, err
	}
	if len(g.configs) == 0 && len(d.Servers) == 0 && len(d.Shadowed) == 0 && len(d.Errors) == 0 {
		servers, err := demoConfig()
		if err != nil {
			return nil, err
		}
		return &loaded{servers: servers, demo: true}, nil
	}
	return &loaded{servers: d.Servers, problems: d.Errors, discovery: d}, nil
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
	return slog.New(slog.NewTextHandler(g.io.Err, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// newHost builds a host from the global options.
func (g *globalOptions) newHost() (*host.Host, error) {
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
	return host.New(&host.Options{
		Logger:       g.logger(),
		StartupGate:  g.gate,
		CacheDir:     cache,
		ProjectDir:   dir,
		TrustProject: g.trustProject,
	}), nil
}

// session is a host started from the configs, with progress shown on a
// terminal while it starts.
type session struct {
	*host.Host
	loaded *loaded
}

// startHost loads the configs and starts a host on them; with wait it also
// waits for every server to settle, for commands that need final states
// rather than the startup gate's answer. The caller closes the host. File
// problems are reported on stderr, one line each, and do not stop the
// other servers.
func (g *globalOptions) startHost(ctx context.Context, wait bool) (*session, error) {
	l, err := g.load()
	if err != nil {
		return nil, err
	}
	g.report(l)
	h, err := g.newHost()
	if err != nil {
		return nil, err
	}
	p := g.progress(h)
	err = h.Start(ctx, l.servers)
	if err == nil && wait {
		err = h.WaitSettled(ctx)
	}
	p.stop()
	if err != nil {
		h.Close()
		return nil, err
	}
	return &session{Host: h, loaded: l}, nil
}

// note tells a person something on stderr, only on a terminal: scripts
// reading stdout or stderr get no chatter.
func (g *globalOptions) note(msg string) {
	if g.io.ErrTTY {
		fmt.Fprintf(g.io.Err, "%s\n", g.dim(msg))
	}
}

// report tells a person what loading found that the listing will not
// show: unreadable sources always (one line each, on stderr); on a
// terminal also warnings, an untrusted project and the demo fallback.
func (g *globalOptions) report(l *loaded) {
	for _, p := range l.problems {
		fmt.Fprintf(g.io.Err, "switchboard: %v\n", oneLine(p.Error()))
	}
	if l.demo {
		g.note("no config found; using the bundled demo server (see 'switchboard --help')")
		return
	}
	d := l.discovery
	for _, w := range d.Warnings {
		g.note("warning: " + oneLine(w.Error()))
	}
	if len(d.ProjectFiles) > 0 && !d.ProjectTrusted {
		g.note(fmt.Sprintf("the project config in %s is not trusted; its servers will not start until you run 'switchboard trust'", d.ProjectDir))
	}
}

// namesOnly is a discovery that only needs names and sources: it runs no
// "!command" (those print secrets, and may ask for a password), so
// completion on Tab or a lookup by name never starts one.
func namesOnly(o *discover.Options) { o.SkipCommands = true }
