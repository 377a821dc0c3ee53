package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
	"github.com/switchboard-mcp/switchboard/watch"
)

type serveOptions struct {
	*Factory
	HTTP        string
	Token       string
	NoPrefix    bool
	Servers     []string
	Tools       []string
	Profile     string
	MaxResult   int
	ToolSearch  bool
	PrintConfig string
}

func newServeCmd(f *Factory) *cobra.Command {
	o := &serveOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve every configured server as one MCP server (stdio, or HTTP with --http)",
		Long: `Serve the tools, prompts and resources of every configured server as one
MCP server: add 'switchboard serve' to Claude Desktop, Cursor, VS Code or
any MCP client as its only server, and it sees them all, kept connected,
trusted and filtered once. Tools are named SERVER__TOOL (--no-prefix keeps
each tool's own name where no other server has it), prompts likewise;
resources keep their URIs.

It speaks stdio by default (the client starts it), or streamable HTTP at
http://ADDR/mcp with --http ADDR, in both protocol eras. HTTP binds
loopback unless told otherwise, and any other address needs --token (or
$SWITCHBOARD_TOKEN), which every request must carry as
"Authorization: Bearer TOKEN". http://ADDR/mcp?servers=a,b serves only
those servers.

While it runs, config changes apply live (as in 'watch'): clients get
list_changed notifications. Progress, cancellation, logs, resource
subscriptions and completion pass through; a server's sampling or
elicitation request goes to the client whose call led to it. Diagnostics
go to stderr; over stdio, stdout is the client's.`,
		Example: `  $ switchboard serve --print-config claude-desktop
  $ switchboard serve --http 127.0.0.1:8976
  $ switchboard serve --server github --server linear --no-prefix`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd.Context(), o) },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.HTTP, "http", "", "serve streamable HTTP at `ADDR` (host:port; path /mcp) instead of stdio")
	fl.StringVar(&o.Token, "token", "", "require this bearer `token` of HTTP clients (default $SWITCHBOARD_TOKEN; needed off loopback)")
	fl.BoolVar(&o.NoPrefix, "no-prefix", false, "expose tool and prompt names unchanged where they do not collide")
	addServerFlag(cmd, f, &o.Servers, true, "serve only server `NAME`")
	// --servers a,b was the spelling before --server; scripts still give it.
	fl.Var(commaListValue{listValue{&o.Servers}}, "servers", "")
	_ = fl.MarkHidden("servers")
	addListFlag(fl, &o.Tools, "tools", "serve only tools whose exposed name matches this `glob`")
	fl.StringVar(&o.Profile, "profile", "", "serve the view the `profile` of that name in your config names (\"profiles\": {NAME: {\"servers\": […], \"tools\": {\"allow\": […], \"deny\": […]}}})")
	fl.IntVar(&o.MaxResult, "max-result", 0, "cut a tool result's text to this many `bytes`, the whole kept as a resource (switchboard://results/ID); 0: no cap")
	fl.BoolVar(&o.ToolSearch, "tool-search", false, "offer search_tools, describe_tool and call_tool instead of every tool (alwaysLoad servers' tools stay)")
	fl.StringVar(&o.PrintConfig, "print-config", "", "print the entry for `CLIENT`'s config (claude-desktop, cursor, vscode, codex) and exit")
	return cmd
}

func runServe(ctx context.Context, o *serveOptions) error {
	if o.PrintConfig != "" {
		return printClientConfig(o.IO, o.PrintConfig)
	}
	token := o.Token
	if token == "" {
		token, _ = o.IO.LookupEnv("SWITCHBOARD_TOKEN")
	}
	if o.HTTP != "" {
		h, _, err := net.SplitHostPort(o.HTTP)
		if err != nil {
			return usagef("--http %s: want host:port, like 127.0.0.1:8976", o.HTTP)
		}
		if !gateway.IsLoopback(h) && token == "" {
			return usagef("--http %s is not a loopback address: anyone who can reach it could use your servers; give --token (or $SWITCHBOARD_TOKEN)", o.HTTP)
		}
	}
	filter := host.ViewFilter{Servers: o.Servers, Tools: config.ToolFilter{Allow: o.Tools}}
	if o.Profile != "" {
		p, err := o.findProfile(o.Profile)
		if err != nil {
			return err
		}
		filter.Servers = append(filter.Servers, p.Servers...)
		filter.Tools.Allow = append(filter.Tools.Allow, p.Tools.Allow...)
		filter.Tools.Deny = p.Tools.Deny
	}

	// Everything but the protocol goes to stderr: over stdio, stdout is
	// the client's.
	quiet := *o.Factory
	quiet.IO.Out, quiet.IO.OutTTY = o.IO.Err, o.IO.ErrTTY
	wo := &watchOptions{Factory: &quiet}
	first, err := wo.watchLoad()
	if err != nil {
		return err
	}
	for _, e := range first.Errors {
		fmt.Fprintf(o.IO.Err, "switchboard: %v\n", oneLine(e.Error()))
	}
	var gw *gateway.Gateway
	h, err := o.NewHost(wo.untrusted, func(opts *host.Options) {
		opts.ToolPrefix = host.NoToolPrefix
		opts.PassThroughNames = o.NoPrefix
		opts.Sampling = func(ctx context.Context, server string, req *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return gw.Sampling(ctx, server, req)
		}
		opts.Elicitation = func(ctx context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return gw.Elicitation(ctx, server, req)
		}
		opts.ListRoots = func(ctx context.Context, server string) ([]*mcp.Root, error) {
			return gw.ListRoots(ctx, server)
		}
	})
	if err != nil {
		return err
	}
	defer h.Close()
	gw = gateway.New(h, &gateway.Options{Logger: o.Logger(), PassThrough: o.NoPrefix, MaxResultText: o.MaxResult, ToolSearch: o.ToolSearch})
	if err := h.Start(ctx, first.Servers); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 2)
	go func() { done <- gw.Run(ctx) }()
	go func() {
		done <- watch.Run(ctx, h, first, wo.watchLoad, &watch.Options{
			Logger:    o.Logger(),
			Notify:    func(e watch.Event) { wo.printWatchEvent(e, true) },
			TokenFile: o.TokenFile(),
		})
	}()
	defer func() { stop(); <-done; <-done }()
	select {
	case <-gw.Synced():
	case <-ctx.Done():
		return nil
	}
	var names []string
	for _, st := range h.Status() {
		names = append(names, st.Name)
		// A client shows a server's stderr at best: say there why a
		// server it might expect is not served.
		if st.State == host.StateUntrusted || st.State == host.StateBlocked {
			fmt.Fprintf(o.IO.Err, "switchboard: %s not served: %s\n", oneLine(st.Name), oneLine(st.Error))
		}
	}
	status := serveStatus{PID: os.Getpid(), Address: "stdio", Started: time.Now().UTC(), Servers: names}
	if o.HTTP == "" {
		defer writeServeStatus(o.StateDir(), status)()
		err := gw.ServeStdio(ctx, filter)
		if ctx.Err() != nil || errors.Is(err, mcp.ErrConnectionClosed) {
			return nil // the client left, or an interrupt
		}
		return err
	}
	return serveHTTP(ctx, o.IO, o.HTTP, gw.Handler(gateway.HTTPOptions{Token: token, Filter: filter}), func(addr string) func() {
		status.Address = addr
		return writeServeStatus(o.StateDir(), status)
	})
}

// findProfile is the profile of that name in our own config files, the
// first that defines it in their order of precedence.
func (o *serveOptions) findProfile(name string) (source.Profile, error) {
	d, err := o.Discover(namesOnly)
	if err != nil {
		return source.Profile{}, err
	}
	var known []string
	for _, src := range d.Sources {
		if src.Provider != source.NativeName || !src.Found {
			continue
		}
		data, err := safefile.ReadLimited(src.Path, safefile.MaxConfigSize)
		if err != nil {
			continue // reported with the source
		}
		profiles, err := source.ParseProfiles(src.Path, data)
		if err != nil {
			return source.Profile{}, err
		}
		if p, ok := profiles[name]; ok {
			return p, nil
		}
		known = append(known, slices.Sorted(maps.Keys(profiles))...)
	}
	if len(known) == 0 {
		return source.Profile{}, usagef("no profile %q: your config has no \"profiles\"", name)
	}
	return source.Profile{}, usagef("no profile %q (profiles: %s)", name, oneLine(strings.Join(known, ", ")))
}

// serveHTTP serves handler at addr until ctx ends, then lets requests in
// flight finish for a moment. listening is told the url once it listens,
// and returns what to do when it stops.
func serveHTTP(ctx context.Context, ios IO, addr string, handler http.Handler, listening func(url string) func()) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	url := fmt.Sprintf("http://%s%s", ln.Addr(), gateway.Path)
	defer listening(url)()
	fmt.Fprintf(ios.Err, "serving on %s\n", url)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	srv.Close()
	<-errc
	return nil
}

// printClientConfig prints the entry that makes a client start
// switchboard serve, in that client's format.
func printClientConfig(ios IO, client string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	q := strconv.Quote(exe)
	switch client {
	case "claude-desktop", "cursor":
		fmt.Fprintf(ios.Out, "{\n  \"mcpServers\": {\n    \"switchboard\": {\"command\": %s, \"args\": [\"serve\"]}\n  }\n}\n", q)
	case "vscode":
		fmt.Fprintf(ios.Out, "{\n  \"servers\": {\n    \"switchboard\": {\"type\": \"stdio\", \"command\": %s, \"args\": [\"serve\"]}\n  }\n}\n", q)
	case "codex":
		fmt.Fprintf(ios.Out, "[mcp_servers.switchboard]\ncommand = %s\nargs = [\"serve\"]\n", q)
	default:
		return usagef("--print-config %s: want claude-desktop, cursor, vscode or codex", termsafe.Line(client))
	}
	return nil
}
