package cli

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/host"
)

// loaded is the outcome of reading the configs.
type loaded struct {
	servers []config.ServerConfig
	// demo is set when no config exists anywhere and the embedded demo
	// config stands in.
	demo bool
	// problems are sources that could not be read (and trust store or
	// policy problems); their servers are lost, the rest go on.
	problems []error
	// discovery is what discovery found, nothing at all for the demo.
	discovery *discover.Discovery
}

// load discovers the configs; when nothing is found anywhere it falls back
// to the demo config (DESIGN.md F45), if one may stand in. The demo obeys
// the policy discovery applied, like any server: a deny-all or
// "allowStdio": false policy lists it as blocked rather than starting it.
func (f *Factory) load(mode discoverMode) (*loaded, error) {
	d, err := f.Discover(mode)
	if err != nil {
		return nil, err
	}
	if len(d.Servers) == 0 && len(d.Shadowed) == 0 && len(d.Errors) == 0 && f.Demo != nil {
		servers, err := f.Demo()
		if err != nil {
			return nil, err
		}
		for i := range servers {
			d.CheckPolicy(&servers[i])
		}
		if len(servers) > 0 {
			return &loaded{servers: servers, demo: true, discovery: d}, nil
		}
	}
	return &loaded{servers: d.Servers, problems: d.Errors, discovery: d}, nil
}

// untrustedProject says the configs came from a project nobody trusted
// yet (discovery's ProjectTrusted): nothing may run inside it.
func (l *loaded) untrustedProject() bool {
	d := l.discovery
	return d != nil && d.ProjectDir != "" && !d.ProjectTrusted
}

// session is a host started from the configs.
type session struct {
	*host.Host
	loaded *loaded
}

// Status is the host's, with what the configs know of a transport that the
// host cannot (fillTransports).
func (s *session) Status() []host.Status {
	statuses := s.Host.Status()
	s.loaded.fillTransports(statuses)
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
func (l *loaded) fillTransports(statuses []host.Status) {
	for i := range statuses {
		st := &statuses[i]
		j := slices.IndexFunc(l.servers, func(c config.ServerConfig) bool { return c.Name == st.Name })
		if st.Transport != config.TransportAuto || j < 0 || !isClaim(&l.servers[j]) {
			continue
		}
		st.Transport = noTransport
		if l.discovery == nil {
			continue
		}
		for _, sh := range l.discovery.Shadowed {
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

// prepare loads the configs, reports on them and builds a host without
// starting it, for commands that subscribe to events before the servers
// start.
func (f *Factory) prepare() (*host.Host, *loaded, error) {
	l, err := f.load(forHost)
	if err != nil {
		return nil, nil, err
	}
	f.IO.report(l)
	h, err := f.NewHost(l.untrustedProject())
	if err != nil {
		return nil, nil, err
	}
	return h, l, nil
}

// report tells a person what loading found that the listing will not
// show: unreadable sources always (one line each, on stderr); on a
// terminal also warnings, an untrusted project and the demo fallback.
func (ios IO) report(l *loaded) {
	for _, p := range l.problems {
		fmt.Fprintf(ios.Err, "switchboard: %v\n", oneLine(p.Error()))
	}
	if l.demo {
		ios.note("no config found; using the bundled demo server (see 'switchboard --help')")
		return
	}
	d := l.discovery
	for _, w := range d.Warnings {
		ios.note("warning: " + oneLine(w.Error()))
	}
	if l.untrustedProject() {
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
