package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// globalOptions are the flags every command shares.
type globalOptions struct {
	io           IO
	configs      []string
	cacheDir     string
	noCache      bool
	projectDir   string
	trustProject bool
	gate         time.Duration
	verbose      bool
}

func (g *globalOptions) register(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringArrayVarP(&g.configs, "config", "c", nil, "read only this config `file` (repeatable)")
	f.StringVar(&g.cacheDir, "cache-dir", "", "tool cache `dir` (default $XDG_CACHE_HOME/switchboard)")
	f.BoolVar(&g.noCache, "no-cache", false, "neither read nor write the tool cache")
	f.StringVar(&g.projectDir, "project", "", "project `dir` whose config to read (default: current directory)")
	f.BoolVar(&g.trustProject, "trust-project", false, "connect the project's servers too (they can run programs)")
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
	// problems are files that could not be read; their servers are lost,
	// the rest go on.
	problems []error
}

// load reads --config files, or the default locations; with neither
// present it falls back to the embedded demo config (SPEC F45).
func (g *globalOptions) load() (*loaded, error) {
	lookup := config.LookupFunc(g.io.LookupEnv)
	var files []config.FileRef
	if len(g.configs) > 0 {
		for _, p := range g.configs {
			files = append(files, config.FileRef{Path: p, Level: config.LevelExplicit, Required: true})
		}
	} else {
		dir, err := g.project()
		if err != nil {
			return nil, err
		}
		files = config.DefaultFiles(dir, lookup)
		if !anyExists(files) {
			servers, err := demoConfig()
			if err != nil {
				return nil, err
			}
			return &loaded{servers: servers, demo: true}, nil
		}
	}
	res := config.Load(files, lookup) // parses, substitutes and validates
	return &loaded{servers: res.Servers, problems: res.FileErrors}, nil
}

func anyExists(files []config.FileRef) bool {
	for _, f := range files {
		if _, err := os.Stat(f.Path); err == nil {
			return true
		}
	}
	return false
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
	for _, p := range l.problems {
		fmt.Fprintf(g.io.Err, "switchboard: %v\n", oneLine(p.Error()))
	}
	if l.demo {
		g.note("no config found; using the bundled demo server (see 'switchboard --help')")
	}
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
