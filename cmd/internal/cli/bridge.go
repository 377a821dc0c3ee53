package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/host"
)

// standaloneFlags are the flags, serve's and the global ones, that change
// what the daemon's one host and gateway are, for every client: given, serve
// runs in-process as --standalone does (DESIGN.md F57). --server, --tools
// and --profile are a client's own view and go through the bridge.
var standaloneFlags = []string{
	"standalone", "http", "token", "token-file", "no-prefix", "max-result", "tool-search",
	"audit-log", "audit-args", "audit-max-size", "drain-timeout",
	"config", "no-discover", "no-project", "project", "exclude", "root", "trust-project",
	"cache-dir", "no-cache", "gate",
}

// standaloneBy is the first flag given among standaloneFlags, or "": the
// reason serve does not bridge to the daemon. $SWITCHBOARD_EXCLUDE counts
// as --exclude. fl is the command's flags once parsed (the global ones
// merged in).
func standaloneBy(fl *pflag.FlagSet, lookupEnv func(string) (string, bool)) string {
	for _, name := range standaloneFlags {
		if fl.Changed(name) {
			return "--" + name
		}
	}
	if v, ok := lookupEnv("SWITCHBOARD_EXCLUDE"); ok && v != "" {
		return "$SWITCHBOARD_EXCLUDE"
	}
	return ""
}

// bridges says whether serve is a bridge to the daemon: over stdio, with
// no flag that makes it standalone.
func (o *serveOptions) bridges() bool {
	return o.PrintConfig == "" && o.standaloneBy == ""
}

// view is the client's view of the daemon's servers (--server, --tools,
// --profile): what a bridge's stream attaches with.
func (o *serveOptions) view() (host.ViewFilter, error) {
	opts, err := o.httpOptions()
	return opts.Filter, err
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
