package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// noTransport is the transport of an entry that says none: a disabled
// claim whose name no other file defines any more.
const noTransport config.Transport = "-"

// fillTransports gives a disabled claim (an entry of our own, `"NAME":
// {"disabled": true}`, that turns off a server another tool's file
// defines: 'switchboard disable' writes it) the transport of the
// definition it turns off, which discovery keeps among the shadowed. The
// claim itself has no command and no url, and the host, which sees only
// the claim, would show it as a url's.
func fillTransports(l *app.Loaded, statuses []host.Status) {
	for i := range statuses {
		st := &statuses[i]
		j := slices.IndexFunc(l.Servers, func(c config.ServerConfig) bool { return c.Name == st.Name })
		if st.Transport != config.TransportAuto || j < 0 || !isClaim(&l.Servers[j]) {
			continue
		}
		st.Transport = noTransport
		if l.Discovery == nil {
			continue
		}
		for _, sh := range l.Discovery.Shadowed {
			if sh.Config.Name == st.Name && !isClaim(&sh.Config) {
				st.Transport = sh.Config.TransportKind()
				break
			}
		}
	}
}

// isClaim reports whether c says nothing of how to reach its server.
func isClaim(c *config.ServerConfig) bool {
	return c.Command == "" && c.URL == "" && c.Type == config.TransportAuto
}

// startHost loads the configs and starts a host on them (only the
// servers need names, when it names any), with progress shown on a
// terminal while it starts unless need is quiet; need says how long to
// wait beyond the startup gate. The caller closes the catalog. File
// problems are reported on stderr, one line each, and do not stop the
// other servers.
func (f *Factory) startHost(ctx context.Context, need needs) (*localCatalog, error) {
	opts, l, err := f.prepareOptions()
	if err != nil {
		return nil, err
	}
	if opts == nil {
		// A test's factory: the host's defaults.
	} else if err := host.CheckPinFile(opts.PinFile); err != nil {
		// The host withholds pinned servers' tools for it: said once here,
		// where a person reads it.
		fmt.Fprintf(f.IO.Err, "switchboard: %s\n", oneLine(err.Error()))
	}
	h := host.New(opts)
	s := &localCatalog{h: h, loaded: l}
	if need.events {
		s.sub = h.Subscribe()
	}
	only := need.servers
	if need.find != nil && only == nil {
		only = host.ServersFor(opts, l.Servers, need.find.kind, need.find.name)
	}
	p := f.IO.progress(h, need.quiet || (f.Logger != nil && f.Logger() != nil))
	err = s.start(ctx, onlyConfigs(l.Servers, only), need.settled)
	if err == nil && need.find != nil && only != nil && !s.finds(*need.find) {
		// Not among the servers started: the rest, as if all had started.
		err = s.start(ctx, exceptConfigs(l.Servers, only), need.settled)
	}
	p.stop()
	if err == nil && need.listed {
		err = h.WaitListed(ctx)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// start starts configs, waiting for them to settle when settled says so.
func (s *localCatalog) start(ctx context.Context, configs []config.ServerConfig, settled bool) error {
	err := s.h.Start(ctx, configs)
	if err == nil && settled {
		err = s.h.WaitSettled(ctx)
	}
	return err
}

// finds reports whether n names something among the servers started, or
// names something more than once (the command says so): anything but
// "no such name", which must be looked up among every server.
func (s *localCatalog) finds(n named) bool {
	_, err := s.h.Find(n.kind, n.name)
	var nameErr *host.NameError
	return !errors.As(err, &nameErr) || nameErr.Ambiguous
}

// startApp starts an app on first with a host on the global flags (adjust,
// when set, changes its options), reloaded when a file of the configs
// changes.
func (f *Factory) startApp(ctx context.Context, first *app.Loaded, opts app.Options, adjust func(*host.Options)) (*app.App, error) {
	hopts, err := f.HostOptions(first.UntrustedProject)
	if err != nil {
		return nil, err
	}
	if hopts == nil {
		hopts = &host.Options{}
	}
	if adjust != nil {
		adjust(hopts)
	}
	opts.Host, opts.Logger = hopts, f.Logger()
	opts.Reload = func(context.Context) (*app.Loaded, error) { return f.Load(forHost) }
	return app.Start(ctx, first, &opts)
}

// interrupted is nil for err when ctx ended (an interrupt while servers
// were still starting is a clean exit), else err.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// prepare loads the configs, reports on them and builds a host without
// starting it, for commands that subscribe to events before the servers
// start.
func (f *Factory) prepare() (*host.Host, *app.Loaded, error) {
	opts, l, err := f.prepareOptions()
	if err != nil {
		return nil, nil, err
	}
	return host.New(opts), l, nil
}

// prepareOptions is prepare's loading and report, and the options of the
// host it would build.
func (f *Factory) prepareOptions() (*host.Options, *app.Loaded, error) {
	l, err := f.Load(forHost)
	if err != nil {
		return nil, nil, err
	}
	f.IO.report(l)
	opts, err := f.HostOptions(l.UntrustedProject)
	if err != nil {
		return nil, nil, err
	}
	return opts, l, nil
}

// report tells a person what loading found that the listing will not
// show: unreadable sources always (one line each, on stderr); on a
// terminal also warnings, an untrusted project and the demo fallback.
func (ios IO) report(l *app.Loaded) {
	for _, p := range l.Problems {
		fmt.Fprintf(ios.Err, "switchboard: %v\n", oneLine(p.Error()))
	}
	if l.Demo {
		ios.note("no config found; using the bundled demo server (see 'switchboard --help')")
		return
	}
	d := l.Discovery
	for _, w := range d.Warnings {
		ios.note("warning: " + oneLine(w.Error()))
	}
	if l.UntrustedProject {
		what := "your servers start in your home directory, with the project as a root"
		if len(d.ProjectFiles) > 0 {
			what = "its config's servers do not start, and " + what
		}
		ios.note(fmt.Sprintf("the project %s is not trusted: %s; run 'switchboard trust' to trust it", termsafe.Line(d.ProjectDir), what))
	}
}

// note tells a person something on stderr, only on a terminal: scripts
// reading stdout or stderr get no chatter.
func (ios IO) note(msg string) {
	if ios.ErrTTY {
		fmt.Fprintf(ios.Err, "%s\n", ios.dim(msg))
	}
}
