package gateway

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway/resource"
	"github.com/switchboard-mcp/switchboard/gateway/store"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// ServeStdio serves the view filter shows to one client over stdin and
// stdout until the client leaves or ctx ends.
func (g *Gateway) ServeStdio(ctx context.Context, filter host.ViewFilter) error {
	srv, err := g.View(filter) // the one view of this process: pinned
	if err != nil {
		return err
	}
	return g.runPipe(ctx, srv, os.Stdin, os.Stdout)
}

// ServePipe is ServeStdio over in and out: newline-delimited JSON-RPC,
// framed as the host frames its stdio servers (host.PipeTransport). A line
// that is no message, or is over the size limit, is dropped with a log
// line. Unlike ServeStdio's, its view is one of many (a daemon serves
// each attached client so): it counts against the views a gateway keeps,
// and is let go once its last client left.
func (g *Gateway) ServePipe(ctx context.Context, filter host.ViewFilter, in io.ReadCloser, out io.Writer) error {
	v, err := g.viewHeld(filter, false, true, false)
	if errors.Is(err, errTooManyViews) {
		return fmt.Errorf("too many distinct views in use (%d): ask for one in use, or the whole gateway", maxViews)
	}
	if err != nil {
		return err
	}
	defer g.release(v)
	return g.runPipe(ctx, v.srv, in, out)
}

func (g *Gateway) runPipe(ctx context.Context, srv *mcp.Server, in io.ReadCloser, out io.Writer) error {
	dropped := func(why string) { g.log.Warn("client message dropped", "why", why) }
	return srv.Run(ctx, host.PipeTransport(in, out, dropped))
}

// HTTPOptions configure Handler.
type HTTPOptions struct {
	// Token, when set, is required of every request as
	// "Authorization: Bearer TOKEN" (compared in constant time).
	Token string
	// Resource, when set, makes the gateway an OAuth protected resource
	// (DESIGN.md F65): it serves its RFC 9728 metadata, and a request
	// needs an access token of its issuers for this gateway, or Token.
	Resource *resource.Guard
	// Filter is the view of a request that names no servers.
	Filter host.ViewFilter
	// MaxSessions bounds the sessions of legacy clients held at once; a
	// new one past it is refused with 503 until one ends or idles out.
	// Zero means DefaultMaxSessions.
	MaxSessions int
	// SessionIdle closes a legacy session that sent no request for that
	// long (its client starts a new one when it comes back). Zero means
	// DefaultSessionIdle; negative, never.
	SessionIdle time.Duration
	// Access narrows what each authenticated user sees to their profiles
	// (access.go); nil shows every caller Filter.
	Access *Access
	// Limits bound callers' tool calls (limits.go); nil bounds none.
	Limits *Limits
	// SessionKeys, when set, seal legacy session ids and requestState, so
	// that replicas sharing them serve each other's sessions (sealed.go,
	// DESIGN.md F64). Nil: sessions of this process only (ownsessions.go).
	SessionKeys *SessionKeys
	// Store is what the replicas share (revocations, session state and
	// events with SessionKeys, rate buckets with Limits); nil is a
	// store.NewMemory of this handler's own.
	Store store.Store
}

// Sessions are bounded: each holds some 13 KB, and 20,000 initializes
// from one client would otherwise hold 250 MB for ever.
const (
	DefaultMaxSessions = 1024
	DefaultSessionIdle = time.Hour
)

// Path is where Handler serves MCP.
const Path = "/mcp"

// Handler serves the gateway over streamable HTTP at Path (DESIGN.md
// F50, F54), in both protocol eras: a request of 2026-07-28 (its
// MCP-Protocol-Version header says so) goes to a stateless handler, any
// other to the gateway's table of sessions (sealed.go, ownsessions.go).
// ?servers=a,b picks a view. go-sdk refuses a request that came to a loopback address with another Host
// (DNS rebinding); an Origin header must be a loopback origin or the
// request's own host.
func (g *Gateway) Handler(opts HTTPOptions) http.Handler {
	maxSessions, idle := opts.MaxSessions, opts.SessionIdle
	if maxSessions <= 0 {
		maxSessions = DefaultMaxSessions
	}
	switch {
	case idle == 0:
		idle = DefaultSessionIdle
	case idle < 0:
		idle = 0 // go-sdk: never
	}
	if opts.Store == nil {
		opts.Store = store.NewMemory() // one for the handler's sessions and limits
	}
	acc := newAccess(opts.Access, opts.Filter)
	tag := g.handlerTag(opts)
	// A request's view: its caller's (access.go), narrowed by ?servers=.
	viewFor := func(r *http.Request, servers string) (*view, error) {
		filter, narrowed, err := acc.filterOf(auth.TokenInfoFromContext(r.Context()))
		if err != nil {
			return nil, err
		}
		if servers != "" {
			if filter.Servers, err = g.viewServers(servers, filter); err != nil {
				return nil, err
			}
		}
		if servers == "" && narrowed {
			return g.profileView(filter)
		}
		return g.view(filter, servers == "" && !narrowed)
	}
	viewOf := func(r *http.Request) (*view, error) { return viewFor(r, r.URL.Query().Get("servers")) }
	getServer := func(r *http.Request) *mcp.Server {
		v, err := viewOf(r)
		if err != nil {
			g.log.Warn("view refused", "error", err)
			return nil
		}
		return v.srv
	}
	sessions := g.sealedSessions(opts, idle, maxSessions, viewFor) // the process's own without keys
	// A new-era request is its whole POST: a client that gives it up
	// closes the request, and the call (a round's upstream call too) ends.
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Logger: g.log, Stateless: true, PropagateRequestCancellation: true})
	modern := &modernHandler{fallback: stateless, log: g.log}
	token := opts.Token
	if opts.Resource != nil {
		token = "" // the guard checks it, outside
	}
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != Path {
			http.NotFound(w, r)
			return
		}
		// DNS rebinding first, as go-sdk's handler would (it runs last):
		// nothing below may answer a page that rebound a name to this
		// machine, not even whether a server name is real.
		if !hostAllowed(r) {
			http.Error(w, "switchboard: Host not allowed", http.StatusForbidden)
			return
		}
		if token != "" && !bearer(r, token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
			http.Error(w, "switchboard: a token is needed (Authorization: Bearer …)", http.StatusUnauthorized)
			return
		}
		if !originAllowed(r) {
			http.Error(w, "switchboard: Origin not allowed", http.StatusForbidden)
			return
		}
		filter, _, err := acc.filterOf(auth.TokenInfoFromContext(r.Context()))
		if err != nil {
			http.Error(w, "switchboard: "+err.Error(), http.StatusForbidden)
			return
		}
		if s := r.URL.Query().Get("servers"); s != "" {
			if _, err := g.viewServers(s, filter); err != nil {
				// One answer for a made-up name and a real one kept out of
				// the view: a caller learns no name it did not know.
				http.Error(w, "switchboard: ?servers= names a server not served here", http.StatusForbidden)
				return
			}
		}
		v, err := viewOf(r)
		if err != nil {
			w.Header().Set("Retry-After", "30")
			http.Error(w, "switchboard: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		if !g.sessionAllowed(r, v, opts.Access != nil) {
			http.Error(w, "switchboard: this session was begun by another caller", http.StatusForbidden)
			return
		}
		tagRequest(r, tag)
		if r.Header.Get("Mcp-Protocol-Version") >= config.ProtocolModern {
			g.counts.modernRequests.Add(1)
			modern.serveHTTP(w, r, v)
			return
		}
		g.counts.legacyRequests.Add(1)
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && g.sessions() >= maxSessions {
			w.Header().Set("Retry-After", "30")
			http.Error(w, fmt.Sprintf("switchboard: too many sessions (%d): close clients you do not use, or try again once one ends", maxSessions), http.StatusServiceUnavailable)
			return
		}
		sessions.serve(w, r, r.URL.Query().Get("servers"))
	})
	if opts.Resource != nil {
		return opts.Resource.Handler(serve, opts.Token)
	}
	return serve
}

// sessions counts the clients' sessions of every view.
func (g *Gateway) sessions() int {
	n := 0
	g.each(func(v *view) {
		for range v.srv.Sessions() {
			n++
		}
	})
	return n
}

func bearer(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// hostAllowed reports whether a request that came to a loopback address
// names a loopback host: one that names another came through a name
// rebound to this machine.
func hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return true
	}
	return !isLoopbackAddr(local.String()) || isLoopbackAddr(r.Host)
}

// isLoopbackAddr is IsLoopback for a host with or without its port.
func isLoopbackAddr(addr string) bool {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return IsLoopback(host)
	}
	return IsLoopback(addr)
}

// originAllowed reports whether a browser's Origin may use the gateway:
// none (not a browser), a loopback origin, or the host the request names.
func originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	return IsLoopback(u.Hostname()) || u.Host == r.Host
}

// IsLoopback reports whether host names this machine only.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// viewServers is the servers a ?servers= list asks for, sorted, each once:
// within what the caller's view shows (within) and known to the host. An
// empty view would show everything, so a list naming nothing allowed is
// refused, and so is a name outside it: a client narrows its
// window, it never widens it, and names it makes up cannot fill the
// gateway's views.
func (g *Gateway) viewServers(query string, within host.ViewFilter) ([]string, error) {
	known := map[string]bool{}
	for _, name := range g.h.ServerNames() {
		known[name] = within.ShowsServer(name)
	}
	var out []string
	for _, name := range splitList(query) {
		if !known[name] {
			return nil, fmt.Errorf("no server %q is served here", clip.Text(name))
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, errors.New("?servers= names no server")
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
