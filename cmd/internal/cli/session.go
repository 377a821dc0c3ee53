package cli

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// session is a host started from the configs.
type session struct {
	*host.Host
	loaded *app.Loaded
}

// Status is the host's, with what the configs know of a transport that the
// host cannot (fillTransports).
func (s *session) Status() []host.Status {
	statuses := s.Host.Status()
	fillTransports(s.loaded, statuses)
	return statuses
}

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

// startHost loads the configs and starts a host on them, with progress
// shown on a terminal while it starts; with wait it also waits for every
// server to settle, for commands that need final states rather than the
// startup gate's answer. The caller closes the host. File problems are
// reported on stderr, one line each, and do not stop the other servers.
func (f *Factory) startHost(ctx context.Context, wait bool) (*session, error) {
	h, l, err := f.prepare()
	if err != nil {
		return nil, err
	}
	p := f.IO.progress(h, f.Logger != nil && f.Logger() != nil)
	err = h.Start(ctx, l.Servers)
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
	l, err := f.Load(forHost)
	if err != nil {
		return nil, nil, err
	}
	f.IO.report(l)
	opts, err := f.HostOptions(l.UntrustedProject)
	if err != nil {
		return nil, nil, err
	}
	return host.New(opts), l, nil
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
