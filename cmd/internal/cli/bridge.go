package cli

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/spf13/pflag"

	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/host"
)

// standaloneFlags are serve's flags that change what the daemon's one
// gateway is, for every client: given, serve runs in-process as
// --standalone does (DESIGN.md F57). --server, --tools and --profile are
// a client's own view and go through the bridge; the global flags that
// change which servers are found name a daemon of their own
// (daemonkey.go).
var standaloneFlags = []string{
	"standalone", "http", "token", "token-file", "no-prefix", "max-result", "tool-search",
	"audit-log", "audit-args", "audit-max-size", "drain-timeout",
}

// standaloneBy is the first flag given among standaloneFlags, or "": the
// reason serve does not bridge to the daemon. fl is the command's flags
// once parsed.
func standaloneBy(fl *pflag.FlagSet) string {
	for _, name := range standaloneFlags {
		if !fl.Changed(name) {
			continue
		}
		if on, err := fl.GetBool(name); err == nil && !on {
			continue // --standalone=false, --no-prefix=false: not asked for
		}
		return "--" + name
	}
	return ""
}

// bridges says whether serve is a bridge to the daemon: over stdio, with
// no flag that makes it standalone.
func (o *serveOptions) bridges() bool {
	return o.PrintConfig == "" && o.standaloneBy == ""
}

// bridge serves the client on stdin and stdout through dial's streams to
// the daemon (app/bridge) until the client leaves (nil) or ctx ends (an
// interrupt: nil): serve over stdio when a daemon runs. What the bridge
// has to say (the daemon lost, back) goes to stderr, which a client app
// shows in its log. The first dial failing is the error, dial's wrapped,
// for the caller to start the daemon.
func (o *serveOptions) bridge(ctx context.Context, dial func(context.Context) (io.ReadWriteCloser, error)) error {
	err := bridge.Run(ctx, o.IO.In, o.IO.Out, bridge.Options{
		Dial: dial,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(o.IO.Err, "switchboard: %s\n", oneLine(fmt.Sprintf(format, args...)))
		},
	})
	if ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// throughDaemon serves the client through the daemon, starting it when
// none runs, and again whenever the bridge finds it gone (DESIGN.md F57):
// the view's names are checked against the configs, and what loading
// found (unreadable files, the demo) is said on stderr, as an
// in-process serve says it. served is false, after a line saying why,
// when the daemon can be neither reached nor started, and in a project
// with config files of its own (which the daemon does not read): serve
// then runs in-process.
func (o *serveOptions) throughDaemon(ctx context.Context, filter host.ViewFilter) (served bool, err error) {
	if o.ownServers() {
		return false, nil
	}
	// A view's names are checked against what the daemon of these flags
	// reads, before a daemon starts for a view that names nothing.
	if len(filter.Servers) > 0 {
		l, err := o.Load(namesOnly) // the demo's names too, when it stands in
		if err != nil {
			return true, err
		}
		var known []string
		for _, s := range l.Servers {
			known = append(known, s.Name)
		}
		if err := o.checkServed(known, filter); err != nil {
			return true, err
		}
	}
	c, err := o.ensureDaemon(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return true, nil
		}
		fmt.Fprintf(o.IO.Err, "switchboard: serving in this process: no daemon: %s\n", oneLine(err.Error()))
		return false, nil
	}
	defer c.Close()
	info, err := c.Info(ctx)
	if err != nil {
		return true, fmt.Errorf("serve: %w", err)
	}
	for _, p := range info.Problems {
		fmt.Fprintf(o.IO.Err, "switchboard: %s\n", oneLine(p))
	}
	if info.Demo {
		o.sayDemo()
	}
	var trimmed sync.Once
	return true, o.bridge(ctx, func(ctx context.Context) (io.ReadWriteCloser, error) {
		c, err := o.ensureDaemon(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		conn, err := c.Attach(ctx, filter)
		if err == nil {
			// Start-up is over: what the bridge needs from here on is
			// little (trimResident).
			trimmed.Do(trimResident)
		}
		return conn, err
	})
}
