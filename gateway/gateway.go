// Package gateway serves the servers of a host as one MCP server
// (DESIGN.md F50–F54): the tools, prompts and resources of every server,
// kept in step with the host (list changes, reloads, reconnects), to any
// MCP client over stdio or streamable HTTP. It is a consumer of the host
// like the command line, never a second connection manager: every call,
// read and prompt goes through the host, and its names are the host's.
package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// Options configure a Gateway.
type Options struct {
	// Name and Version are what clients see of the gateway.
	Name, Version string
	// Logger gets the gateway's own diagnostics; nil discards them.
	Logger *slog.Logger
	// Instructions are given to clients in the handshake.
	Instructions string
	// MaxResultText caps the text of a tool result given to clients, in
	// bytes (zero: no cap). A longer one is cut with a note, and the whole
	// is kept, for a while, as a resource the client can read
	// (switchboard://results/ID).
	MaxResultText int
	// ToolSearch offers search_tools, describe_tool and call_tool in
	// place of every tool (search.go), and the tools of servers marked
	// alwaysLoad as they are.
	ToolSearch bool
	// Calls, when set, is asked before each tool call, prompt get and
	// resource read goes to the host (calls.go): an error refuses it (the
	// client gets it as the request's error), and the function returned
	// is called once when the host answered, however it ended (a failure,
	// a cancel). An app's drain and audit trail hang here. Nil admits all.
	Calls func(ctx context.Context, c Call) (func(CallEnd), error)
	// Middleware runs around every request a client sends, in every view
	// (go-sdk's receiving middleware): how traces see requests. Nil adds
	// none.
	Middleware []mcp.Middleware
}

// Writes to clients never run on the loop that keeps the views in step
// (Run): a client that stops reading would stall every other one. Log
// lines and resource updates go through a bounded queue to a goroutine of
// their own, and each write to a session is bounded; a session that does
// not take a write within clientWriteTimeout is closed.
const (
	// noteQueue bounds the notifications waiting for clients; past it
	// they are dropped, and counted in the log.
	noteQueue = 1024
	// clientWriteTimeout is how long one write to one client may take: a
	// client that reads at all takes a line in far less.
	clientWriteTimeout = 5 * time.Second
)

// maxViews bounds the views (distinct server lists asked for over HTTP,
// or by ServePipe's sessions) a gateway keeps: each holds a server's
// worth of registrations. When they are all taken, one no client is
// connected to gives way; a ServePipe session's is let go as its last
// session ends. The view a server is started with (stdio's, or HTTP's
// without ?servers=) is pinned, neither counted nor evicted, so it
// always answers.
var maxViews = 64

// Gateway serves a host. Create it with New, run Run for as long as it
// serves, and serve its views with ServeStdio or Handler.
type Gateway struct {
	h    *host.Host
	opts Options
	log  *slog.Logger

	mu    sync.Mutex
	views map[string]*view
	// calling holds, per upstream server, the callers with a call to it in
	// flight (a client session, or a round of a new-era client's): where
	// a request of that server's (sampling, elicitation) goes.
	calling map[string]map[caller]int
	rounds  map[string]*round                      // new-era calls waiting for their client, by requestState
	kept    keptResults                            // whole results of cut ones (MaxResultText)
	subs    map[subKey]map[*mcp.ServerSession]bool // subs.go
	wg      sync.WaitGroup                         // the rounds' upstream calls
	synced  chan struct{}                          // closed once Run has made its first sync
	notes   chan host.Event                        // log lines and resource updates for clients (notify)
	dropped atomic.Int64                           // notes dropped because the queue was full
	counts  counters                               // stats.go
	// troubles are the servers' drops and failures clients were told of
	// (troubles.go).
	troubles host.Troubles
	// handlers are the HTTP handlers' limits, by their tag (limits.go),
	// under mu.
	handlers map[string]*handlerState
	// Sealed sessions (sealed.go): those held, by id, for keepState; how
	// many were rebuilt from their ids; the life Run gives them, and the
	// keys that seal requestState when set.
	held      sync.Map
	rebuilt   atomic.Int64
	life      context.Context
	endLife   context.CancelFunc
	roundKeys atomic.Pointer[SessionKeys]
	parkEnds  atomic.Bool // a drain ends rounds as they park (parked.go)
}

// caller is who a call in flight is for: a session of the legacy era, or
// a round of the new era's.
type caller struct {
	ss *mcp.ServerSession
	r  *round
}

// New returns a gateway over h.
func New(h *host.Host, opts *Options) *Gateway {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = "switchboard"
	}
	if o.Version == "" {
		o.Version = host.Version
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := &Gateway{h: h, opts: o, log: log, views: map[string]*view{}, calling: map[string]map[caller]int{}, synced: make(chan struct{}), notes: make(chan host.Event, noteQueue)}
	g.life, g.endLife = context.WithCancel(context.Background())
	return g
}

// view is one window on the host (host.ViewFilter): an MCP server with
// what the filter shows registered on it.
type view struct {
	key     string
	filter  host.ViewFilter
	srv     *mcp.Server
	pinned  bool      // never evicted (maxViews)
	profile bool      // a caller's whole profile: counted apart (maxViews)
	used    time.Time // when a client last asked for it, under Gateway.mu
	pipes   int       // ServePipe sessions on it, under Gateway.mu

	// What is registered on srv, by exposed name (a URI for resources),
	// with a fingerprint of what it stands for; the names are the host's.
	mu        sync.Mutex // orders syncs of this view
	tools     map[string]string
	prompts   map[string]string
	resources map[string]string
	templates map[string]string

	// paramHeaders holds the tools whose input schema binds an argument to
	// a header (x-mcp-header): their calls are go-sdk's handler's to check
	// (modernHandler). A tool once here stays, which costs only speed.
	paramHeaders sync.Map
}

// View returns the MCP server of the view filter shows, creating it on
// first use; an error when the gateway keeps as many views as it may.
func (g *Gateway) View(filter host.ViewFilter) (*mcp.Server, error) {
	v, err := g.view(filter, true)
	if err != nil {
		return nil, err
	}
	return v.srv, nil
}

// errTooManyViews says every view is in use by a client.
var errTooManyViews = fmt.Errorf("too many distinct ?servers= views in use (%d): ask for one in use, or the whole gateway", maxViews)

// view is the view of filter, made on first use. A pinned one is the
// view a gateway is started with; others count against maxViews.
func (g *Gateway) view(filter host.ViewFilter, pinned bool) (*view, error) {
	return g.viewHeld(filter, pinned, false, false)
}

// profileView is the view of a caller's whole profile (access rules, no
// ?servers=). Such views are as many as the access config's combinations
// of profiles, not what a client asks for, so they count against
// maxViews apart from the views clients choose: a caller holding
// sessions on every ?servers= list they may ask for crowds out no other
// caller's profile.
func (g *Gateway) profileView(filter host.ViewFilter) (*view, error) {
	return g.viewHeld(filter, false, false, true)
}

// viewHeld is view; with held, it counts a ServePipe session on the view
// (release ends it) in the same lock, so that no release frees it first.
func (g *Gateway) viewHeld(filter host.ViewFilter, pinned, held, profile bool) (*view, error) {
	key := viewKey(filter)
	g.mu.Lock()
	v, ok := g.views[key]
	if ok {
		v.pinned = v.pinned || pinned
	} else if !pinned && !g.roomForViewLocked(profile) {
		g.mu.Unlock()
		return nil, errTooManyViews
	}
	if !ok {
		v = &view{key: key, filter: filter, pinned: pinned, profile: profile, tools: map[string]string{}, prompts: map[string]string{}, resources: map[string]string{}, templates: map[string]string{}}
		v.srv = mcp.NewServer(&mcp.Implementation{Name: g.opts.Name, Version: g.opts.Version}, &mcp.ServerOptions{
			Instructions:       g.opts.Instructions,
			Logger:             g.log,
			HasTools:           true,
			HasPrompts:         true,
			HasResources:       true,
			CompletionHandler:  g.complete(v),
			SubscribeHandler:   g.subscribe(v),
			UnsubscribeHandler: g.unsubscribe(v),
		})
		v.srv.AddReceivingMiddleware(g.opts.Middleware...)
		v.srv.AddReceivingMiddleware(g.greet(v), g.keepState, g.auditUnknown(v))
		v.srv.AddReceivingMiddleware(markFast) // outermost (legacyfast.go)
		if g.opts.ToolSearch {
			g.addSearchTools(v)
		}
		if g.opts.MaxResultText > 0 {
			v.srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "result", URITemplate: resultURIPrefix + "{id}",
				Description: "The whole text of a tool result switchboard cut to size.", MIMEType: "text/plain"}, g.readKept)
		}
		g.views[key] = v
	}
	v.used = time.Now()
	if held {
		v.pipes++
	}
	g.mu.Unlock()
	if !ok {
		g.sync(v)
	}
	return v, nil
}

// roomForViewLocked makes room for one more unpinned view of its kind
// (a profile's or not) if it can: the least recently asked for view of
// that kind with no client gives way.
func (g *Gateway) roomForViewLocked(profile bool) bool {
	var counted []*view
	for _, v := range g.views {
		if !v.pinned && v.profile == profile {
			counted = append(counted, v)
		}
	}
	if len(counted) < maxViews {
		return true
	}
	var idle *view
	for _, v := range counted {
		if !v.busyLocked() && (idle == nil || v.used.Before(idle.used)) {
			idle = v
		}
	}
	if idle == nil {
		return false
	}
	delete(g.views, idle.key)
	return true
}

// busyLocked reports whether a client is on the view: a ServePipe
// session, or a session of go-sdk's (a legacy HTTP client's).
func (v *view) busyLocked() bool {
	if v.pipes > 0 {
		return true
	}
	for range v.srv.Sessions() {
		return true
	}
	return false
}

// release ends a ServePipe session's hold on v: an unpinned view no
// client is on any more is let go at once (a daemon's attached clients
// each name their own filter, and would otherwise fill maxViews with
// views nobody uses, all kept in step with the host).
func (g *Gateway) release(v *view) {
	g.mu.Lock()
	defer g.mu.Unlock()
	v.pipes--
	if !v.pinned && !v.busyLocked() && g.views[v.key] == v {
		delete(g.views, v.key)
	}
}

// viewKey names a filter: views with the same key are one view.
func viewKey(f host.ViewFilter) string {
	b, _ := json.Marshal(keyParts(f))
	return string(b)
}

// keyParts are what tell f's view apart: a caller's profiles
// (ViewFilter.AnyOf) as well as the servers and tools.
func keyParts(f host.ViewFilter) []any {
	parts := []any{slices.Sorted(slices.Values(f.Servers)), f.Tools.Allow, f.Tools.Deny}
	for _, o := range f.AnyOf {
		parts = append(parts, keyParts(o))
	}
	return parts
}

// Run keeps every view in step with the host until ctx ends: list changes,
// reconnects and reloads reach connected clients as list_changed
// notifications (go-sdk sends them when a view's lists change), resource
// updates and server logs as notifications.
func (g *Gateway) Run(ctx context.Context) error {
	sub := g.h.Subscribe()
	defer sub.Close()
	defer g.endLife() // closes sealed sessions (sealed.go)
	defer g.endRounds()
	notifying := make(chan struct{})
	go func() {
		defer close(notifying)
		g.notify(ctx)
	}()
	defer func() { <-notifying }()
	for _, tr := range g.troubles.Seed(g.h) {
		g.queue(troubleEvent(tr))
	}
	g.syncAll()
	close(g.synced)
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-sub.C:
			if !ok {
				return nil
			}
			// A burst (fifty servers settling at start) is one sync, not
			// fifty: the events already queued are taken first.
			dirty := g.handle(e)
		drain:
			for {
				select {
				case e, ok := <-sub.C:
					if !ok {
						return nil
					}
					dirty = g.handle(e) || dirty
				default:
					break drain
				}
			}
			if dirty {
				g.syncAll()
			}
		}
	}
}

// handle passes on an event that clients get as it is, and reports
// whether e changes what the views list.
func (g *Gateway) handle(e host.Event) bool {
	switch e.Type {
	case host.EventState:
		g.noteTrouble(e)
		return true
	case host.EventTools, host.EventResources, host.EventPrompts:
		return true
	case host.EventResourceUpdated, host.EventLog:
		g.queue(e)
	}
	return false
}

// queue hands e to notify, or drops it (counted) when clients are not
// taking what is queued already.
func (g *Gateway) queue(e host.Event) {
	select {
	case g.notes <- e:
	default:
		if n := g.dropped.Add(1); n&(n-1) == 0 { // the 1st, 2nd, 4th, 8th, …
			g.log.Warn("notifications for clients dropped: clients are not reading them", "dropped", n)
		}
	}
}

// notify hands log lines, troubles and resource updates to the clients that see
// their server, until ctx ends.
func (g *Gateway) notify(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-g.notes:
			switch e.Type {
			case host.EventResourceUpdated:
				g.each(func(v *view) {
					if v.shows(e.Server) { // a server outside the view says nothing in it
						// go-sdk bounds each session's write itself.
						_ = v.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: e.URI})
						g.counts.forwarded.Add(1)
					}
				})
			case host.EventLog:
				g.forwardLog(ctx, e, e.Server)
			case host.EventState:
				g.forwardLog(ctx, e, troubleLogger)
			}
		}
	}
}

func (g *Gateway) each(fn func(*view)) {
	g.mu.Lock()
	views := make([]*view, 0, len(g.views))
	for _, v := range g.views {
		views = append(views, v)
	}
	g.mu.Unlock()
	for _, v := range views {
		fn(v)
	}
}

func (g *Gateway) syncAll() { g.each(g.sync) }

func (v *view) shows(server string) bool { return v.filter.ShowsServer(server) }

// forwardLog passes a log line to the clients that see its server, at
// the level each asked for (go-sdk's ServerSession.Log drops what is
// below it), under the logger name.
func (g *Gateway) forwardLog(ctx context.Context, e host.Event, logger string) {
	g.each(func(v *view) {
		if !v.shows(e.Server) {
			return
		}
		for ss := range v.srv.Sessions() {
			g.logTo(ctx, ss, e, logger)
		}
	})
}

// logTo sends a log line to one client; one that does not take it in
// clientWriteTimeout is closed.
func (g *Gateway) logTo(ctx context.Context, ss *mcp.ServerSession, e host.Event, logger string) {
	level := mcp.LoggingLevel("info")
	switch e.Level {
	case host.LevelWarn:
		level = "warning"
	case host.LevelError:
		level = "error"
	}
	wctx, cancel := context.WithTimeout(ctx, clientWriteTimeout)
	err := ss.Log(wctx, &mcp.LoggingMessageParams{Level: level, Logger: logger, Data: e.Message})
	stalled := wctx.Err() != nil && ctx.Err() == nil
	cancel()
	if err == nil {
		g.counts.forwarded.Add(1)
	}
	if stalled {
		g.log.Warn("client dropped: it took no message in time", "session", ss.ID(), "error", err)
		_ = ss.Close()
		g.counts.clientsDropped.Add(1)
	}
}

// Synced is closed once Run has brought every view in step the first time.
func (g *Gateway) Synced() <-chan struct{} { return g.synced }

// endRounds gives up the rounds still waiting for their clients, and waits
// for their upstream calls to end.
func (g *Gateway) endRounds() {
	g.mu.Lock()
	for _, r := range g.rounds {
		r.cancel()
	}
	g.mu.Unlock()
	g.wg.Wait()
}
