package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/config/trust"
)

// LoadOptions say where the configs come from: what the command line's
// global flags say. Nil means defaults: every known tool's files, with the
// current directory as the project, and no demo.
type LoadOptions struct {
	// ProjectDir is the project whose config is read, and where servers
	// run once it is trusted. A relative path is taken from the current
	// directory. "" means the current directory when it is a project (a
	// project config of any tool, or a repository: discover.Project), and
	// no project otherwise.
	ProjectDir string
	// Files, when set, are the only config files read (--config), each in
	// the format source.Detect finds, and no demo stands in for them: the
	// person named the files, and an empty one is empty. Nil discovers.
	Files []string
	// NativeOnly reads only switchboard's own files, not other tools'
	// (--no-discover). False reads every tool's.
	NativeOnly bool
	// NoProject reads no project-level file (--no-project). False reads
	// them.
	NoProject bool
	// Exclude leaves out servers whose name matches one of these globs
	// (--exclude), besides the comma-separated globs of
	// $SWITCHBOARD_EXCLUDE. Nil leaves out only those.
	Exclude []string
	// TrustProject lets the project's servers start without a recorded
	// trust decision (--trust-project). False means the trust store
	// decides.
	TrustProject bool
	// StateDir holds the trust store. "" means config.StateDir's
	// ($XDG_STATE_HOME/switchboard).
	StateDir string
	// Lookup reads environment variables: HOME, XDG_*,
	// SWITCHBOARD_EXCLUDE, SWITCHBOARD_POLICY and every substitution. Nil
	// means os.LookupEnv.
	Lookup config.LookupFunc
	// RunCommand runs "!command" secret helpers (discover.Options;
	// secretcmd.Runner.Run is one, and one per process keeps a reload
	// from running them again). Nil runs none: such a value is its
	// server's error.
	RunCommand func(ctx context.Context, command, dir string) (string, error)
	// SkipCommands leaves "!command" values as written, for a caller that
	// only lists names. False runs them.
	SkipCommands bool
	// Demo returns the servers that stand in when discovery found nothing
	// at all (DESIGN.md F45). They obey the policy like any server. Nil
	// means nothing stands in.
	Demo func() ([]config.ServerConfig, error)
	// Discovered is called with each discovery before anything is taken
	// from it: the command line masks its secrets there (DESIGN.md F44).
	// Nil does nothing.
	Discovered func(*discover.Discovery)
}

// Loaded is what one reading of the configs found.
type Loaded struct {
	// Servers are the configs to run: discovery's winners (disabled,
	// blocked and untrusted ones included, marked), or the demo's.
	Servers []config.ServerConfig
	// Demo says the demo stands in: nothing is configured anywhere.
	Demo bool
	// Problems are what could not be read: sources (each a
	// *config.Diagnostic naming its file), the trust store and the policy
	// (discover.TrustError, discover.PolicyError). Their servers are
	// lost; the others go on.
	Problems []error
	// Discovery is what discovery found, nothing at all when the demo
	// stands in. Nil for a Loaded made by hand.
	Discovery *discover.Discovery
	// UntrustedProject says the configs came from a project nobody has
	// trusted yet: nothing may run inside it (host.Options).
	UntrustedProject bool
	// Files are every file whose change may change what a reading finds,
	// sorted: each source looked at, found or not (so one that appears is
	// read), the policy file and the trust store (DESIGN.md F36).
	Files []string
}

// SourceErrors are the Problems that hold the last good config on a
// reload: a half-written file must not stop the servers it defines. A
// broken policy or trust store fails closed instead: the configs it
// blocks or distrusts are applied, and their servers stop.
func (l *Loaded) SourceErrors() []error {
	var errs []error
	for _, err := range l.Problems {
		if IsSourceError(err) {
			errs = append(errs, err)
		}
	}
	return errs
}

// IsSourceError tells one source's error (a *config.Diagnostic naming its
// file) from one that belongs to no source: the trust store's, the policy
// file's, or a provider's that could not list its files. A policy error
// wraps the policy file's own diagnostic, so the typed errors are asked
// first.
func IsSourceError(err error) bool {
	var te *discover.TrustError
	var pe *discover.PolicyError
	var d *config.Diagnostic
	return !errors.As(err, &te) && !errors.As(err, &pe) && errors.As(err, &d)
}

// Load reads the configs as opts say, with the demo standing in when
// nothing is configured anywhere. An interrupt (ctx done) during discovery
// is an error: what was read is not the config, and nothing should start
// from it.
func Load(ctx context.Context, opts *LoadOptions) (*Loaded, error) {
	d, err := Discover(ctx, opts)
	if err != nil {
		return nil, err
	}
	return FromDiscovery(d, opts)
}

// Discover is Load's discovery alone, without the demo: what a listing of
// the sources shows.
func Discover(ctx context.Context, opts *LoadOptions) (*discover.Discovery, error) {
	o := orZero(opts)
	dopts, err := o.DiscoverOptions()
	if err != nil {
		return nil, err
	}
	var d *discover.Discovery
	if len(o.Files) > 0 {
		d = discover.LoadFiles(ctx, o.Files, dopts)
	} else {
		d = discover.Discover(ctx, dopts)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.Discovered != nil {
		o.Discovered(d)
	}
	return d, nil
}

// FromDiscovery is what Load makes of d: the demo when d found nothing at
// all (and opts name no Files), and the files to watch. It is for a
// discovery made elsewhere: an embedder's own, a test's.
func FromDiscovery(d *discover.Discovery, opts *LoadOptions) (*Loaded, error) {
	o := orZero(opts)
	l := &Loaded{
		Servers:          d.Servers,
		Problems:         d.Errors,
		Discovery:        d,
		UntrustedProject: d.ProjectDir != "" && !d.ProjectTrusted,
		Files:            o.watched(d),
	}
	pinTools(d, l)
	// An app's entry that starts switchboard itself ('switchboard client
	// connect' writes one) is no server of the person's: with nothing
	// else, the demo still stands in, so that a person who connected an
	// app before adding a server sees something there.
	selfOnly := !slices.ContainsFunc(d.Shadowed, func(sh discover.Shadowed) bool {
		return !discover.StartsSwitchboardServe(sh.Config.Command, sh.Config.Args)
	})
	nothing := len(d.Servers) == 0 && selfOnly && len(d.Errors) == 0
	if !nothing || o.Demo == nil || len(o.Files) > 0 {
		return l, nil
	}
	servers, err := o.Demo()
	if err != nil {
		return nil, err
	}
	// Nothing starts around the policy, the demo included.
	for i := range servers {
		d.CheckPolicy(&servers[i])
	}
	if len(servers) > 0 {
		l.Servers, l.Demo = servers, true
	}
	return l, nil
}

// DiscoverOptions are the discovery settings opts make, as Discover passes
// them to package discover; a project scan for trust takes the same.
func (o *LoadOptions) DiscoverOptions() (discover.Options, error) {
	dir, err := o.projectDir()
	if err != nil {
		return discover.Options{}, err
	}
	lookup := o.lookup()
	home, _ := lookup("HOME")
	opts := discover.Options{
		Env:             source.Env{Home: home, ProjectDir: dir, Lookup: lookup},
		StateDir:        o.stateDir(),
		TrustProject:    o.TrustProject,
		NoProjectConfig: o.NoProject,
		ExcludeNames:    slices.Clone(o.Exclude),
		RunCommand:      o.RunCommand,
		SkipCommands:    o.SkipCommands,
	}
	// The user's standing exclude list (DESIGN.md F3) lives in the
	// environment, beside the shell profile that knows which servers a
	// person never wants.
	if v, ok := lookup("SWITCHBOARD_EXCLUDE"); ok {
		for _, glob := range strings.Split(v, ",") {
			if glob = strings.TrimSpace(glob); glob != "" {
				opts.ExcludeNames = append(opts.ExcludeNames, glob)
			}
		}
	}
	if o.NativeOnly {
		opts.Providers = []*source.Provider{source.Native}
	}
	return opts, nil
}

// watched are the files whose change may change what a reading of d's
// kind finds. When the demo stands in, the sources are where a config
// would appear.
func (o *LoadOptions) watched(d *discover.Discovery) []string {
	var files []string
	for _, src := range d.Sources {
		files = append(files, src.Path)
	}
	// The policy file is watched whether or not it exists now: one that
	// appears must take effect at once.
	if d.PolicyPath != "" {
		files = append(files, d.PolicyPath)
	}
	if dir := o.stateDir(); dir != "" {
		files = append(files, filepath.Join(dir, trust.FileName))
	}
	slices.Sort(files)
	return slices.Compact(files)
}

func (o *LoadOptions) projectDir() (string, error) { return o.Project() }

// Project is the project the configs are read for: ProjectDir, or the
// current directory when it is a project, "" for none.
func (o *LoadOptions) Project() (string, error) {
	if o.ProjectDir != "" {
		return filepath.Abs(o.ProjectDir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	home, _ := o.lookup()("HOME")
	return discover.Project(context.Background(), wd, source.Env{Home: home, Lookup: o.lookup()}), nil
}

func (o *LoadOptions) lookup() config.LookupFunc {
	if o.Lookup == nil {
		return os.LookupEnv
	}
	return o.Lookup
}

func (o *LoadOptions) stateDir() string {
	if o.StateDir != "" {
		return o.StateDir
	}
	return config.StateDir(o.lookup())
}

func orZero(opts *LoadOptions) *LoadOptions {
	if opts == nil {
		return &LoadOptions{}
	}
	return opts
}
