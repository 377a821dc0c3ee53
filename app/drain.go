package app

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
)

// ErrDraining refuses a call or a session that came after Drain began.
var ErrDraining = errors.New("switchboard is shutting down: it takes no new calls (try another instance, or again once it is back)")

// DefaultDrainTimeout is how long `serve` lets calls in flight finish
// after SIGTERM: long enough for a slow tool, short of the 30 s a
// service manager (systemd, Kubernetes) waits before SIGKILL.
const DefaultDrainTimeout = 30 * time.Second

// ops is what the app keeps for operations (DESIGN.md, "Operations"):
// the calls in flight, for Drain; the streams open, to end them; the
// audit trail.
type ops struct {
	audit *auditLog // nil without Options.Audit

	mu       sync.Mutex
	draining bool
	inflight int
	idle     chan struct{} // closed when draining and no call is in flight
	stopped  chan struct{} // closed when the drain ended: ServeHTTP stops
	streams  map[*http.Request]context.CancelFunc
	// posts counts the requests being answered that are not streams (a
	// call's POST, its reply still being written); zero is closed, when
	// set, once none is left: ServeHTTP ends the streams only then, or a
	// client whose stream ended before its reply came would take the
	// session for lost.
	posts int
	zero  chan struct{}
}

// postDone counts one request answered.
func (o *ops) postDone() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.posts--; o.posts == 0 && o.zero != nil {
		close(o.zero)
		o.zero = nil
	}
}

// waitPosts returns once no request but a stream is being answered, or ctx
// ends.
func (o *ops) waitPosts(ctx context.Context) {
	o.mu.Lock()
	if o.posts == 0 {
		o.mu.Unlock()
		return
	}
	if o.zero == nil {
		o.zero = make(chan struct{})
	}
	zero := o.zero
	o.mu.Unlock()
	select {
	case <-zero:
	case <-ctx.Done():
	}
}

func (o *ops) init() {
	o.idle, o.stopped = make(chan struct{}), make(chan struct{})
	o.streams = map[*http.Request]context.CancelFunc{}
}

// calls is the gateway's Options.Calls: it refuses calls while draining,
// counts those in flight and writes each one's audit line; then next,
// the embedder's own, if any.
func (a *App) calls(next func(context.Context, gateway.Call) (func(gateway.CallEnd), error)) func(context.Context, gateway.Call) (func(gateway.CallEnd), error) {
	return func(ctx context.Context, c gateway.Call) (func(gateway.CallEnd), error) {
		start := time.Now()
		o := &a.ops
		o.mu.Lock()
		if o.draining {
			o.mu.Unlock()
			a.audit(c, start, gateway.CallEnd{Err: ErrDraining})
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: ErrDraining.Error()}
		}
		o.inflight++
		o.mu.Unlock()
		var after func(gateway.CallEnd)
		if next != nil {
			var err error
			if after, err = next(ctx, c); err != nil {
				a.audit(c, start, gateway.CallEnd{Err: err})
				a.callDone()
				return nil, err
			}
		}
		return func(end gateway.CallEnd) {
			if after != nil {
				after(end)
			}
			a.audit(c, start, end)
			a.callDone()
		}, nil
	}
}

func (a *App) callDone() {
	o := &a.ops
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.inflight--; o.inflight == 0 && o.draining {
		closeOnce(o.idle)
	}
}

func (a *App) audit(c gateway.Call, start time.Time, end gateway.CallEnd) {
	if a.ops.audit == nil {
		return
	}
	if err := a.ops.audit.write(a.ops.audit.line(c, start, end)); err != nil && a.opts.Logger != nil {
		a.opts.Logger.Warn("audit line not written", "error", err)
	}
}

func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

// Drain stops taking new calls and sessions (they get ErrDraining, over
// HTTP a 503), turns /readyz to 503, and waits until the calls in flight
// have finished or ctx ends, then ends ServeHTTP, whose open streams end
// with their response. It returns nil when every call finished, else
// ctx's error. Close after it closes the servers.
func (a *App) Drain(ctx context.Context) error {
	o := &a.ops
	a.BeginDrain()
	defer func() {
		o.mu.Lock()
		closeOnce(o.stopped)
		o.mu.Unlock()
	}()
	// Rounds parked on their client's input are ended: at once with
	// session keys, after parkedGrace without (drainmove.go).
	grace, stop := a.parkedGraceC()
	defer stop()
	for {
		select {
		case <-o.idle:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-grace:
			grace = nil
			if n := a.gw.EndParkedRounds(); n > 0 && a.opts.Logger != nil {
				a.opts.Logger.Info("drain: ended the rounds waiting on their clients' input", "rounds", n)
			}
		}
	}
}

// BeginDrain starts the drain and returns at once: from now on new
// sessions and calls are refused and /readyz says draining. Drain waits
// for the calls in flight.
func (a *App) BeginDrain() {
	o := &a.ops
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.draining {
		o.draining = true
		if o.inflight == 0 {
			closeOnce(o.idle)
		}
	}
}

// Shutdown is Drain, then Close: what serve does on SIGTERM.
func (a *App) Shutdown(ctx context.Context) error {
	return errors.Join(a.Drain(ctx), a.Close())
}

// Draining reports whether Drain began.
func (a *App) Draining() bool {
	a.ops.mu.Lock()
	defer a.ops.mu.Unlock()
	return a.ops.draining
}

// ReopenAudit opens the audit log's file again, after logrotate moved it
// (serve does on SIGHUP). Without Options.Audit it does nothing.
func (a *App) ReopenAudit() error {
	if a.ops.audit == nil {
		return nil
	}
	return a.ops.audit.reopen()
}

// endStreams ends the streams open on ServeHTTP (a legacy client's GET),
// each with a proper end of its response: the handler returns as it
// does when the client leaves.
func (a *App) endStreams() {
	o := &a.ops
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, cancel := range o.streams {
		cancel()
	}
}

// Paths of the health checks, on the same listener as gateway.Path.
const (
	HealthPath = "/healthz"
	ReadyPath  = "/readyz"
)

// readiness is /readyz's body.
type readiness struct {
	Ready    bool           `json:"ready"`
	NotReady []string       `json:"not_ready,omitempty"` // "draining", "closed", "store"
	Servers  []serverHealth `json:"servers,omitempty"`   // with the token only
}

type serverHealth struct {
	Name  string `json:"name"`
	State string `json:"state"`
}

// opsHandler serves the health checks and, around next (the gateway),
// refuses new sessions while draining and keeps the streams it may end.
// guarded is whether next asks for a token itself (the protected
// resource): the servers' names are then the operator's, who holds token.
// sealed is whether another replica can take a session's call over.
func (a *App) opsHandler(next http.Handler, token string, guarded, sealed bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case HealthPath:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte("{\"alive\":true}\n"))
			return
		case ReadyPath:
			a.ready(w, r, token, guarded)
			return
		}
		if a.Draining() && r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("Mcp-Protocol-Version") < config.ProtocolModern {
			w.Header().Set("Retry-After", "5")
			http.Error(w, ErrDraining.Error(), http.StatusServiceUnavailable)
			return
		}
		if a.Draining() && movable(r, sealed) {
			refuseMoved(w)
			return
		}
		if r.Method != http.MethodGet {
			o := &a.ops
			o.mu.Lock()
			o.posts++
			o.mu.Unlock()
			defer o.postDone()
		}
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			r = r.WithContext(ctx)
			o := &a.ops
			o.mu.Lock()
			o.streams[r] = cancel
			o.mu.Unlock()
			defer func() {
				o.mu.Lock()
				delete(o.streams, r)
				o.mu.Unlock()
				cancel()
			}()
		}
		next.ServeHTTP(w, r)
	})
}

// ready answers /readyz, naming the servers to the operator: the holder
// of token, or anyone when the gateway asks for no token at all. Behind
// the protected resource without a shared token no one is: an access
// token's user sees their profile's servers, not every name, and a
// request without one is anyone on the network.
func (a *App) ready(w http.ResponseWriter, r *http.Request, token string, guarded bool) {
	var body readiness
	select {
	case <-a.closing:
		body.NotReady = append(body.NotReady, "closed")
	default:
		if a.Draining() {
			body.NotReady = append(body.NotReady, "draining")
		}
	}
	a.storeReady(r, &body)
	body.Ready = len(body.NotReady) == 0
	if (token != "" && bearerOK(r, token)) || (token == "" && !guarded) {
		for _, st := range a.h.Status() {
			body.Servers = append(body.Servers, serverHealth{Name: st.Name, State: string(st.State)})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if !body.Ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(body)
}

// bearerOK is gateway's token check, for /readyz's details.
func bearerOK(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}
