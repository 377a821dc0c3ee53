package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/gateway/resource"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

type serveOptions struct {
	*Factory
	HTTP        string
	Token       string
	TokenFile   string
	KeyFile     string // --session-key-file (servekeys.go)
	NoPrefix    bool
	Servers     []string
	Tools       []string
	Profile     string
	MaxResult   int
	ToolSearch  bool
	PrintConfig string
	Standalone  bool
	// standaloneBy is the flag that keeps serve in-process (bridge.go),
	// "" when it may bridge to the daemon.
	standaloneBy string
	// Command is the binary --print-config's entry runs; "" is this one.
	Command string
	opsFlags
	authFlags
	// auth is what --auth-issuer asks for, nil without it.
	auth *resource.Options
	storeFlags
	tracing trace.TracerProvider // from the OTEL_* environment; nil traces nothing
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
those servers. http://ADDR/metrics has Prometheus metrics (calls by server,
tool and outcome, latencies, server states, sessions), with the same token.
With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_TRACES_EXPORTER=otlp) set, each
request and each call to a server is a span, sent over OTLP/HTTP, under
the trace a client's params._meta.traceparent names.

With --auth-issuer URL (repeatable) serve --http is an OAuth 2.1
protected resource, as the MCP authorization spec asks: it publishes
/.well-known/oauth-protected-resource naming those authorization servers,
and a request needs an access token one of them issued for this gateway
(aud = --resource, by default http://ADDR/mcp; give it off loopback). A
JWT is checked against the issuer's published keys (RS256 or ES256; keys
it rotates in are fetched when first seen; 30s of clock skew); an opaque
token is asked about at the issuer's introspection endpoint, as client
--auth-client-id with the secret in --auth-client-secret-file or
$SWITCHBOARD_AUTH_CLIENT_SECRET. MCP clients find all of it from the 401
and sign their user in. A user is the token's sub (with several issuers,
sub@ISSUER). --token still works beside it. A caller's token is never
sent on to a server.

While it runs, config changes apply live (as in 'watch'): clients get
list_changed notifications. Progress, cancellation, logs, resource
subscriptions and completion pass through; a server's sampling or
elicitation request goes to the client whose call led to it. Diagnostics
go to stderr; over stdio, stdout is the client's. A server that drops or
fails is one line there, and a log notification (warning, or error when
given up on, with its last stderr lines) to each client that set a log
level. Until a slow server connects, its tools, prompts and resources
are served from the cache, and a call, get or read of one waits for it.

A --server name, or a --profile's server, that no config defines is a
usage error (exit 2). With no config at all, serve serves the bundled
demo server and says so on stderr.

Over HTTP, /healthz and /readyz answer without the token. SIGTERM drains:
no new calls or sessions, /readyz 503, calls in flight finish within
--drain-timeout, then exit 0; a second SIGTERM stops at once.
--audit-log FILE keeps a JSON line per call (SIGHUP reopens it).
--session-key-file FILE seals session ids and input rounds' requestState
(AES-256-GCM, caller-bound): replicas behind
a load balancer that share the file go on with each other's sessions.

Over HTTP, "access" in your own config file gives each user and group a
token names their profiles ("access": {"users": {"alice": ["work"]},
"groups": {"sre": ["ops"]}, "default": "none"}): a caller sees the union
of theirs, and one no rule covers is refused; the shared token's caller
sees everything. "limits" ({"perUser": {"rate": 5, "burst": 10},
"perTool": {"TOOL": {"rate": 1}}}) refuse calls past a rate with a tool
error saying when to try again.

Replicas of serve --http behind one load balancer share, with --store
redis://HOST:PORT/DB, which sessions were ended, their state and the
events a client resumes from on another replica (sessions that move need
--session-key-file), rate limits, and config changes: a reload one
replica sees reaches clients on all. If Redis does
not answer at start, serve refuses to start. If it stops answering while
serving, serve goes on with the sessions it holds but /readyz answers
503 ("store"), switchboard_store_up is 0, and what needs the store
(a revocation check, a rate limit) refuses rather than guess; events
are still sent but cannot be resumed. All is back when Redis is.

Over stdio, serve is a thin bridge to your switchboard daemon, starting
it when none runs (and again if it goes): every client shares one set of
servers, each with its own session and view, and a server that fails is
said on stderr and to the client. The global flags that change which
servers are found (--config, --no-discover, --exclude, …) have a daemon
of their own. --standalone serves in this process, with servers of its
own; so do the flags that change what every client of a shared
switchboard would get: --http, --token, --token-file, --no-prefix,
--max-result, --tool-search, --audit-*, --drain-timeout. So does a
project with config files of its own (the daemon reads no project).
--server, --tools and --profile are a client's own view either way.

--print-config CLIENT prints the entry to paste into a client's config,
running this binary by its absolute path ('switchboard client connect'
writes it for you). A binary in go's build cache (go run) is refused:
go deletes it; --command PATH names the binary to run instead.`,
		Example: `  $ switchboard serve --print-config claude-desktop
  $ switchboard serve --print-config codex --command ~/bin/switchboard
  $ switchboard serve --http 127.0.0.1:8976
  $ switchboard serve --http 0.0.0.0:8976 --auth-issuer https://login.example.com --resource https://mcp.example.com/mcp
  $ switchboard serve --server github --server linear --no-prefix
  $ switchboard serve --profile work
  $ switchboard serve --standalone --profile work`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.standaloneBy = standaloneBy(cmd.Flags())
			return runServe(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.HTTP, "http", "", "serve streamable HTTP at `ADDR` (host:port; path /mcp) instead of stdio")
	fl.StringVar(&o.TokenFile, "token-file", "", "require the bearer token in this `file` of HTTP clients (needed off loopback; or $SWITCHBOARD_TOKEN)")
	fl.StringVar(&o.Token, "token", "", "require this bearer `token` of HTTP clients; other users can read it in the process list, so prefer --token-file or $SWITCHBOARD_TOKEN")
	fl.StringVar(&o.KeyFile, "session-key-file", "", "with --http: seal session ids with the keys of this `file`, so replicas sharing it serve each other's sessions (one base64 32-byte key a line, first seals: head -c32 /dev/urandom | base64)")
	fl.BoolVar(&o.NoPrefix, "no-prefix", false, "expose tool and prompt names unchanged where they do not collide")
	addServerFlag(cmd, f, &o.Servers, true, "serve only server `NAME`")
	// --servers a,b was the spelling before --server; scripts still give it.
	fl.Var(commaListValue{listValue{&o.Servers}}, "servers", "")
	_ = fl.MarkHidden("servers")
	addListFlag(fl, &o.Tools, "tools", "serve only tools whose exposed name matches this `glob`")
	fl.StringVar(&o.Profile, "profile", "", "serve the view the `profile` of that name in your config names (\"profiles\": {NAME: {\"servers\": […], \"tools\": {\"allow\": […], \"deny\": […]}}}; tools by exposed name, as --tools)")
	fl.IntVar(&o.MaxResult, "max-result", 0, "cut a tool result's text to this many `bytes`, the whole kept as a resource (switchboard://results/ID); 0: no cap")
	fl.BoolVar(&o.ToolSearch, "tool-search", false, "offer search_tools, describe_tool and call_tool instead of every tool (alwaysLoad servers' tools stay)")
	o.opsFlags.add(fl)
	o.authFlags.add(fl)
	o.storeFlags.add(fl)
	fl.BoolVar(&o.Standalone, "standalone", false, "serve in this process with servers of its own, not through the switchboard daemon")
	fl.StringVar(&o.PrintConfig, "print-config", "", "print the entry for `CLIENT`'s config (claude-desktop, cursor, vscode, codex) and exit")
	fl.StringVar(&o.Command, "command", "", "with --print-config: the switchboard binary (`PATH`) the entry runs, instead of this one")
	return cmd
}

func runServe(ctx context.Context, o *serveOptions) error {
	if o.PrintConfig != "" {
		return printClientConfig(o.IO, o.PrintConfig, o.Command)
	}
	if o.Command != "" {
		return usagef("--command is for --print-config")
	}
	if err := refuseNested(o.IO); err != nil {
		return err
	}
	opts, err := o.httpOptions()
	if err != nil {
		return err
	}
	if opts.Store, err = o.openStore(); err != nil {
		return err
	} else if opts.Store != nil {
		defer opts.Store.Close() // after the app's Close
	}
	if o.bridges() {
		if served, err := o.throughDaemon(ctx, opts.Filter); served {
			return err
		}
	}
	if o.HTTP != "" {
		if note := tuneServeGC(); note != "" { // a shared gateway: servegc.go
			fmt.Fprintf(o.IO.Err, "switchboard: %s\n", note)
		}
	}
	tracing, endTracing, err := app.TracingFromEnv(ctx)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer endTracing(context.WithoutCancel(ctx)) // after a.Close: the last spans are flushed
	o.tracing = tracing
	audit, err := o.audit()
	if err != nil {
		return err
	}
	a, err := o.startServing(ctx, audit, opts.Filter)
	if err != nil {
		return interrupted(ctx, err)
	}
	defer a.Close()
	defer o.reopenOnHangup(a)()
	status := o.announce(a.Host())
	defer o.tellTroubles(a.Host())()
	if o.HTTP != "" {
		return o.serveHTTP(ctx, a, opts, status)
	}
	return o.serveStdio(ctx, a, opts.Filter, status)
}

// httpOptions are the token and the view the flags ask for; the token
// only counts over HTTP, where it is needed off loopback.
func (o *serveOptions) httpOptions() (gateway.HTTPOptions, error) {
	token, err := o.token()
	if err != nil {
		return gateway.HTTPOptions{}, err
	}
	loopback := true
	if o.HTTP != "" {
		h, _, err := net.SplitHostPort(o.HTTP)
		if err != nil {
			return gateway.HTTPOptions{}, usagef("--http %s: want host:port, like 127.0.0.1:8976", o.HTTP)
		}
		loopback = gateway.IsLoopback(h)
	}
	if o.auth, err = o.checkAuth(loopback); err != nil {
		return gateway.HTTPOptions{}, err
	}
	if o.HTTP != "" {
		if !loopback && token == "" && o.auth == nil {
			return gateway.HTTPOptions{}, usagef("--http %s is not a loopback address: anyone who can reach it could use your servers; give --token (or $SWITCHBOARD_TOKEN) or --auth-issuer", o.HTTP)
		}
	}
	filter := host.ViewFilter{Servers: o.Servers, Tools: config.ToolFilter{Allow: o.Tools}}
	if o.Profile != "" {
		p, err := o.findProfile(o.Profile)
		if err != nil {
			return gateway.HTTPOptions{}, err
		}
		filter.Servers = append(filter.Servers, p.Servers...)
		filter.Tools.Allow = append(filter.Tools.Allow, p.Tools.Allow...)
		filter.Tools.Deny = p.Tools.Deny
	}
	keys, err := o.sessionKeys()
	if err != nil {
		return gateway.HTTPOptions{}, err
	}
	opts := gateway.HTTPOptions{Token: token, Filter: filter, SessionKeys: keys}
	if o.HTTP != "" {
		if opts.Access, opts.Limits, err = o.accessRules(); err != nil {
			return gateway.HTTPOptions{}, err
		}
	}
	return opts, nil
}

// maxTokenFile bounds a token file: a token is a line, not a document.
const maxTokenFile = 4 << 10

// token is the bearer token HTTP clients must give: --token-file's first
// line, --token, or $SWITCHBOARD_TOKEN. --token is in the process's
// command line, which every user of the machine can read: it works, with
// a warning.
func (o *serveOptions) token() (string, error) {
	switch {
	case o.TokenFile != "" && o.Token != "":
		return "", usagef("--token and --token-file: give one")
	case o.TokenFile != "":
		data, err := safefile.ReadLimited(o.TokenFile, maxTokenFile)
		if err != nil {
			return "", usagef("--token-file %s: %s", o.TokenFile, safefile.Reason(err))
		}
		tok, _, _ := strings.Cut(string(data), "\n")
		if tok = strings.TrimSpace(tok); tok == "" {
			return "", usagef("--token-file %s: the file holds no token", o.TokenFile)
		}
		return tok, nil
	case o.Token != "":
		fmt.Fprintln(o.IO.Err, "switchboard: warning: --token can be read by every user of this machine in the process list; use --token-file or $SWITCHBOARD_TOKEN")
		return o.Token, nil
	}
	tok, _ := o.IO.LookupEnv("SWITCHBOARD_TOKEN")
	return tok, nil
}

// startServing loads the configs and starts them with a gateway in front.
// Everything but the protocol goes to stderr: over stdio, stdout is the
// client's.
func (o *serveOptions) startServing(ctx context.Context, audit *app.AuditOptions, filter host.ViewFilter) (*app.App, error) {
	first, err := o.Load(forHost)
	if err != nil {
		return nil, err
	}
	for _, e := range first.SourceErrors() {
		fmt.Fprintf(o.IO.Err, "switchboard: %v\n", oneLine(e.Error()))
	}
	var known []string
	for _, s := range first.Servers {
		known = append(known, s.Name)
	}
	if err := o.checkServed(known, filter); err != nil {
		return nil, err
	}
	if first.Demo {
		o.sayDemo()
	}
	quiet := *o.Factory
	quiet.IO.Out, quiet.IO.OutTTY = o.IO.Err, o.IO.ErrTTY
	events := &watchOptions{Factory: &quiet}
	var metrics *app.Metrics
	if o.HTTP != "" {
		metrics = app.NewMetrics() // at /metrics, beside /mcp
	}
	return o.startApp(ctx, first, app.Options{
		ConfigEvent: events.printReloading,
		Audit:       audit,
		Gateway:     &gateway.Options{MaxResultText: o.MaxResult, ToolSearch: o.ToolSearch},
		Metrics:     metrics,
		Tracing:     o.tracing,
		Store:       o.storeFlags.store,
	}, func(opts *host.Options) {
		opts.ToolPrefix = host.NoToolPrefix
		opts.PassThroughNames = o.NoPrefix
	})
}

// sayDemo says on stderr that no config was found. A client's launcher
// may pass only HOME and PATH: serving the demo is then a surprise, and
// stderr is where the client shows it.
func (o *serveOptions) sayDemo() {
	where := "no config found"
	if p := config.UserConfigPath(config.LookupFunc(o.IO.LookupEnv)); p != "" {
		where += " (yours would be " + termsafe.Line(p) + ")"
	}
	fmt.Fprintf(o.IO.Err, "switchboard: %s: serving the bundled demo server; 'switchboard add' or --config FILE gives it yours\n", where)
}

// checkServed refuses a view that names a server no config defines (known
// are those configured): a client would otherwise be served nothing of
// it and never know why (--server everythin served 0 tools). A profile's
// names are checked as its own, with the profile named.
func (o *serveOptions) checkServed(known []string, filter host.ViewFilter) error {
	for i, name := range filter.Servers {
		if slices.Contains(known, name) {
			continue
		}
		msg := fmt.Sprintf("--server %q: no server of that name", name)
		if i >= len(o.Servers) { // the profile's
			msg = fmt.Sprintf("profile %q names server %q, which no config defines", o.Profile, name)
		}
		if near := host.NearNames(known, name); len(near) > 0 {
			return usagef("%s; did you mean %s?", msg, quotedList(near, "or"))
		}
		return usagef("%s (see 'switchboard list')", msg)
	}
	return nil
}

// announce says on stderr why a server a client might expect is not
// served (a client shows a server's stderr at best), and returns this
// serve's record for list.
func (o *serveOptions) announce(h *host.Host) serveStatus {
	var names []string
	for _, st := range h.Status() {
		names = append(names, st.Name)
		if st.State == host.StateUntrusted || st.State == host.StateBlocked {
			fmt.Fprintf(o.IO.Err, "switchboard: %s not served: %s\n", oneLine(st.Name), oneLine(st.Error))
		}
	}
	return serveStatus{PID: os.Getpid(), Address: "stdio", Started: time.Now().UTC(), Servers: names}
}

// tellTroubles says on stderr, a line each, which servers have failed,
// and which drop or fail while serve runs: once per change of state, not
// per retry (host.Troubles). A client shows serve's stderr in its logs at
// best; the clients themselves are told by the gateway. It returns the
// function that stops telling.
func (o *serveOptions) tellTroubles(h *host.Host) (stop func()) {
	sub := h.Subscribe()
	var troubles host.Troubles
	for _, tr := range troubles.Seed(h) {
		fmt.Fprintf(o.IO.Err, "switchboard: %s\n", oneLine(tr.Text))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range sub.C {
			if tr, ok := troubles.Note(e); ok {
				fmt.Fprintf(o.IO.Err, "switchboard: %s\n", oneLine(tr.Text))
			}
		}
	}()
	return func() {
		sub.Close()
		<-done
	}
}

// findProfile is the profile of that name in our own config files: the
// user's (and --config's) first, then a trusted project's. A project may
// add profiles of its own once trusted, never change one of the user's,
// and an untrusted project's are not read at all: a cloned repository
// must not widen what serve exposes (issue 22, item 2).
func (o *serveOptions) findProfile(name string) (source.Profile, error) {
	d, err := o.Discover(namesOnly)
	if err != nil {
		return source.Profile{}, err
	}
	var known []string
	untrusted := false
	for _, project := range []bool{false, true} {
		for _, src := range d.Sources {
			if src.Provider != source.NativeName || !src.Found || (src.Level == config.LevelProject) != project {
				continue
			}
			if project && !d.ProjectTrusted {
				untrusted = true
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
	}
	note := ""
	if untrusted {
		note = "; the project's profiles count once you trust it ('switchboard trust')"
	}
	if len(known) == 0 {
		return source.Profile{}, usagef("no profile %q: your config has no \"profiles\"%s", name, note)
	}
	return source.Profile{}, usagef("no profile %q (profiles: %s)%s", name, oneLine(strings.Join(known, ", ")), note)
}

// serveStdio serves a to the client on stdin and stdout until it leaves
// or ctx ends, with a record of it while it does.
func (o *serveOptions) serveStdio(ctx context.Context, a *app.App, filter host.ViewFilter, status serveStatus) error {
	defer writeServeStatus(o.StateDir(), status)()
	err := a.ServeStdio(ctx, filter)
	if ctx.Err() != nil || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil // the client left, or an interrupt
	}
	return err
}

// serveHTTP serves a over HTTP at --http until ctx ends, then drains it,
// with a record of where while it does.
func (o *serveOptions) serveHTTP(ctx context.Context, a *app.App, opts gateway.HTTPOptions, status serveStatus) error {
	ln, err := net.Listen("tcp", o.HTTP)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	status.Address = fmt.Sprintf("http://%s%s", ln.Addr(), gateway.Path)
	if o.auth != nil {
		if opts.Resource, err = o.guard(ln); err != nil {
			ln.Close()
			return fmt.Errorf("serve: %w", err)
		}
	}
	defer writeServeStatus(o.StateDir(), status)()
	fmt.Fprintf(o.IO.Err, "serving on %s\n", status.Address)
	// The interrupt drains (serveops.go): serving goes on meanwhile.
	serving, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	defer stopServing()
	errc := make(chan error, 1)
	go func() { errc <- a.ServeHTTP(serving, ln, opts) }()
	select {
	case err := <-errc:
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	return o.drain(ctx, a, stopServing, errc)
}

// printClientConfig prints the entry that makes a client start
// switchboard serve, in that client's format.
func printClientConfig(ios IO, client, command string) error {
	switch client {
	case "claude-desktop", "cursor", "vscode", "codex":
	default:
		return usagef("--print-config %s: want claude-desktop, cursor, vscode or codex", termsafe.Line(client))
	}
	exe, err := switchboardBinary(command)
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
	}
	return nil
}
