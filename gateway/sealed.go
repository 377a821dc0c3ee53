package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway/store"
	"github.com/switchboard-mcp/switchboard/internal/seal"
)

// With session keys, legacy (2025-11-25) sessions are the gateway's own
// table rather than go-sdk's handler's (DESIGN.md, "Sealed sessions"):
// go-sdk's answers 404 to an id it does not hold and cannot rebuild one.
// A session id is a sealed value of the caller, an expiry and what the
// client said in initialize, so any replica with the keys can rebuild the
// session under the same id (mcp.ServerSessionOptions.State) and carry
// on; the client never initializes again. The table keeps go-sdk's
// handler's behaviour: its Accept and Content-Type checks, GET's
// standalone stream, DELETE, the idle timeout, the bound on sessions and
// the binding of a session to its caller.

// SessionKeys seal legacy session ids and MRTR requestState, so that
// replicas sharing them read each other's (DESIGN.md F64).
type SessionKeys struct{ kr *seal.Keyring }

// LoadSessionKeys reads a key file: one key a line, each the base64 of 32
// random bytes (head -c32 /dev/urandom | base64), # comments and blank
// lines skipped; the first seals, every one opens. The file must be a
// regular file only its owner can read; an error names it and the line.
func LoadSessionKeys(path string) (*SessionKeys, error) {
	kr, err := seal.Load(path)
	if err != nil {
		return nil, err
	}
	return &SessionKeys{kr}, nil
}

// NewSessionKeys is SessionKeys of keys of 32 bytes each, the first
// sealing: for an embedder that keeps its keys elsewhere.
func NewSessionKeys(keys ...[]byte) (*SessionKeys, error) {
	kr, err := seal.New(keys...)
	if err != nil {
		return nil, err
	}
	return &SessionKeys{kr}, nil
}

// What a sealed value is for: a session id is never a requestState.
const (
	purposeSession = "mcp-session"
	purposeRound   = "mrtr-state"
)

// sessionLife is how long a sealed session id opens. A client still using
// one after that gets 404 and initializes again, as the spec says; the
// store keeps a revoked id for as long.
var sessionLife = 7 * 24 * time.Hour

// maxSealedInit bounds what a session id seals: it travels in a header
// on every request, and proxies refuse headers past some 8 to 16 KiB.
// Real clients' capabilities and info take a few hundred bytes.
const maxSealedInit = 4 << 10

// revokedTopic is where an ended session's id is published, so that each
// replica holding it closes it.
const revokedTopic = "switchboard:sessions:revoked"

// sealedID is what a session id holds.
type sealedID struct {
	Servers string                `json:"s,omitempty"` // the ?servers= of its initialize
	Expires int64                 `json:"e"`           // unix seconds, as sealed
	Init    *mcp.InitializeParams `json:"p,omitempty"`
}

// sealedSessions is one Handler's table of legacy sessions.
type sealedSessions struct {
	g      *Gateway
	keys   *seal.Keyring
	store  store.Store
	idle   time.Duration
	max    int                                                  // sessions, of all views
	viewOf func(r *http.Request, servers string) (*view, error) // the caller's view, narrowed by servers
	// versions are the protocol versions go-sdk speaks, as its handler
	// checks the header against them.
	versions []string
	// subscribed is whether revocations reach this replica by the store's
	// fan-out; when not, each request checks Revoked itself.
	subscribed bool
	// events keep the sessions' streams for Last-Event-ID; nil keeps none
	// (the process's own table, ownsessions.go).
	events mcp.EventStore
	// sealed is whether session ids are sealed values another replica
	// opens to rebuild a session; false for the process's own table
	// (ownsessions.go): random ids, not found once not held.
	sealed bool

	mu   sync.Mutex
	held map[string]*heldSession
}

// heldSession is a session this replica holds.
type heldSession struct {
	id      string
	ss      *mcp.ServerSession
	tr      *mcp.StreamableServerTransport
	fast    *fastConn // tr's connection, wrapped: the plain calls' path
	caller  string
	expires time.Time
	t       *sealedSessions

	timerMu sync.Mutex // the idle timer, as go-sdk's handler keeps it
	refs    int
	timer   *time.Timer

	stateMu sync.Mutex // what goes to the store (sealedstate.go)
	level   mcp.LoggingLevel
	subs    []string
}

// sealedSessions is the table of a Handler with opts: the process's own
// (ownsessions.go) when opts have no keys. With keys it also has the
// gateway seal requestState.
func (g *Gateway) sealedSessions(opts HTTPOptions, idle time.Duration, max int, viewOf func(*http.Request, string) (*view, error)) *sealedSessions {
	if opts.SessionKeys == nil {
		return g.ownSessions(idle, max, viewOf)
	}
	g.roundKeys.Store(opts.SessionKeys)
	t := newSealedSessions(g, opts.SessionKeys, opts.Store, idle, max, viewOf)
	t.events, t.sealed = keptEvents{opts.Store.Events()}, true
	return t
}

func newSealedSessions(g *Gateway, keys *SessionKeys, st store.Store, idle time.Duration, max int, viewOf func(*http.Request, string) (*view, error)) *sealedSessions {
	t := &sealedSessions{g: g, store: st, idle: idle, max: max, viewOf: viewOf, held: map[string]*heldSession{}, versions: mcp.SupportedProtocolVersions()}
	if keys != nil {
		t.keys = keys.kr
	}
	// The subscription and the sessions live as long as the gateway runs.
	if err := st.Subscribe(g.life, revokedTopic, t.revoked); err != nil {
		g.log.Error("sessions ended on other replicas are checked per request: the store's fan-out failed", "error", err)
	} else {
		t.subscribed = true
	}
	context.AfterFunc(g.life, t.closeAll)
	return t
}

// serve serves a legacy request (servers is its ?servers=).
func (t *sealedSessions) serve(w http.ResponseWriter, r *http.Request, servers string) {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(t.versions, v) {
		http.Error(w, fmt.Sprintf("Bad Request: Unsupported protocol version (supported versions: %s)", strings.Join(t.versions, ",")), http.StatusBadRequest)
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes)
	}
	w = bounded(w, r) // no write to a client waits for ever (writebound.go)
	switch r.Method {
	case http.MethodPost:
		t.post(w, r, servers)
	case http.MethodGet:
		if _, stream := accepts(r.Header.Values("Accept")); !stream {
			http.Error(w, "Accept must contain 'text/event-stream' for GET requests", http.StatusBadRequest)
			return
		}
		id := r.Header.Get("Mcp-Session-Id")
		if id == "" {
			http.Error(w, "Bad Request: GET requires an Mcp-Session-Id header", http.StatusBadRequest)
			return
		}
		if h := t.lookup(w, r, id); h != nil && !h.fast.resume(w, r) {
			h.tr.ServeHTTP(w, r)
		}
	case http.MethodDelete:
		t.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

func (t *sealedSessions) post(w http.ResponseWriter, r *http.Request, servers string) {
	if mediaType(r.Header.Get("Content-Type")) != "application/json" {
		http.Error(w, "Content-Type must be 'application/json'", http.StatusUnsupportedMediaType)
		return
	}
	if j, s := accepts(r.Header.Values("Accept")); !j || !s {
		http.Error(w, "Accept must contain both 'application/json' and 'text/event-stream'", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	// The transport is told no protocol version (go-sdk's handler passes
	// it in a context key of its own): it takes batches as 2025-03-26
	// did, so the later versions' refusal is made here.
	if v := r.Header.Get("Mcp-Protocol-Version"); v >= "2025-06-18" && bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
		http.Error(w, fmt.Sprintf("JSON-RPC batching is not supported in 2025-06-18 and later (request version: %s)", v), http.StatusBadRequest)
		return
	}
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		h := t.lookup(w, r, id)
		if h == nil {
			return
		}
		h.startPOST()
		defer h.endPOST()
		if h.fast.serve(w, r, body) {
			return
		}
		h.tr.ServeHTTP(w, r)
		return
	}
	var init *mcp.InitializeParams
	if t.sealed {
		init = initializeParams(body)
	}
	t.begin(w, r, servers, init)
}

// begin starts a session: its id seals what rebuilding it takes.
func (t *sealedSessions) begin(w http.ResponseWriter, r *http.Request, servers string, init *mcp.InitializeParams) {
	v, err := t.viewOf(r, servers)
	if err != nil {
		http.Error(w, "no server available", http.StatusBadRequest)
		return
	}
	caller := CallerOf(r)
	expires := time.Now().Add(sessionLife)
	id := rand.Text() // the process's own table's: as go-sdk's handler makes them
	if t.sealed {
		if id = t.sealID(w, servers, caller, expires, init); id == "" {
			return
		}
	}
	h, _, err := t.connect(r.Context(), v, id, caller, expires, nil)
	if err != nil {
		t.g.log.Error("session connect failed", "error", err)
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return
	}
	defer func() {
		if h.ss.InitializeParams() == nil { // no initialize: no session
			h.ss.Close()
		}
	}()
	h.startPOST()
	defer h.endPOST()
	h.tr.ServeHTTP(w, r)
}

// sealID is the sealed id of a session begun now; "" when it has
// answered the request with why there is none.
func (t *sealedSessions) sealID(w http.ResponseWriter, servers, caller string, expires time.Time, init *mcp.InitializeParams) string {
	if init != nil {
		kept := *init
		kept.Meta = nil // a request's, not the session's
		init = &kept
	}
	payload, err := json.Marshal(sealedID{Servers: servers, Expires: expires.Unix(), Init: init})
	if err != nil {
		http.Error(w, "switchboard: "+err.Error(), http.StatusBadRequest)
		return ""
	}
	if len(payload) > maxSealedInit {
		http.Error(w, fmt.Sprintf("switchboard: the initialize request's capabilities and client info take %d bytes; a session id holds at most %d", len(payload), maxSealedInit), http.StatusBadRequest)
		return ""
	}
	return t.keys.Seal(purposeSession, caller, expires, payload)
}

// connect connects a transport under id to v's server, with state when it
// is a rebuild, and holds it until it closes. fresh is false when another
// request connected it first, and that one is returned.
func (t *sealedSessions) connect(ctx context.Context, v *view, id, caller string, expires time.Time, state *mcp.ServerSessionState) (h *heldSession, fresh bool, err error) {
	tr := &mcp.StreamableServerTransport{SessionID: id, EventStore: t.events}
	fast := newFastTransport(tr) // the plain calls' path (legacyfast.go)
	ss, err := v.srv.Connect(ctx, fast, &mcp.ServerSessionOptions{State: state})
	if err != nil {
		return nil, false, err
	}
	h = &heldSession{id: id, ss: ss, tr: tr, fast: fast.conn, caller: caller, expires: expires, t: t}
	if state != nil {
		h.level = state.LogLevel
	}
	if t.idle > 0 {
		h.timer = time.AfterFunc(t.idle, func() { ss.Close() })
	}
	t.mu.Lock()
	if old := t.held[id]; old != nil {
		// Another request rebuilt it first: use that one.
		t.mu.Unlock()
		h.stopTimer()
		ss.Close()
		return old, false, nil
	}
	t.held[id] = h
	t.mu.Unlock()
	t.g.held.Store(id, h)
	// The session's own watcher: it ends when the session closes (a
	// DELETE, the idle timer, a revocation, the gateway's end).
	go func() {
		_ = ss.Wait()
		h.stopTimer()
		t.mu.Lock()
		if t.held[id] == h {
			delete(t.held, id)
			t.g.held.CompareAndDelete(id, h)
		}
		t.mu.Unlock()
	}()
	return h, true, nil
}

// lookup is the session id names: held here, or rebuilt from the id. On
// nil it has answered the request: 403 for another caller's session, 404
// for an id that does not open (the client initializes again), 503 when
// the store cannot say whether the session was ended.
func (t *sealedSessions) lookup(w http.ResponseWriter, r *http.Request, id string) *heldSession {
	caller := CallerOf(r)
	now := time.Now()
	t.mu.Lock()
	h := t.held[id]
	t.mu.Unlock()
	if h != nil {
		switch {
		case h.caller != caller:
			http.Error(w, "switchboard: this session belongs to another caller", http.StatusForbidden)
			return nil
		case !now.Before(h.expires):
			h.ss.Close()
			http.Error(w, "switchboard: session expired; initialize a new one", http.StatusNotFound)
			return nil
		}
		if t.subscribed {
			return h
		}
	}
	if !t.sealed && h == nil { // the process's own: not held, not found
		http.Error(w, "session not found", http.StatusNotFound)
		return nil
	}
	var sealed sealedID
	if h == nil {
		payload, err := t.keys.Open(purposeSession, caller, now, id)
		if err == nil {
			err = json.Unmarshal(payload, &sealed)
		}
		switch {
		case errors.Is(err, seal.ErrOtherCaller):
			http.Error(w, "switchboard: this session belongs to another caller", http.StatusForbidden)
			return nil
		case err != nil:
			http.Error(w, "switchboard: session not found: its id is "+sealError(err)+"; initialize a new one", http.StatusNotFound)
			return nil
		}
	}
	revoked, err := t.store.Revoked(r.Context(), id)
	if err != nil {
		t.g.log.Warn("session store unavailable", "error", err)
		w.Header().Set("Retry-After", "5")
		http.Error(w, "switchboard: the session store is unavailable; try again", http.StatusServiceUnavailable)
		return nil
	}
	if revoked {
		if h != nil {
			h.ss.Close()
		}
		http.Error(w, "switchboard: session not found: it was ended (DELETE); initialize a new one", http.StatusNotFound)
		return nil
	}
	if h != nil {
		return h
	}
	return t.rebuild(w, r, id, caller, sealed)
}

// sealError says why a sealed value did not open, for a client.
func sealError(err error) string {
	switch {
	case errors.Is(err, seal.ErrExpired):
		return "expired"
	case errors.Is(err, seal.ErrUnknownKey):
		return "sealed with a key this gateway no longer has"
	}
	return "not one this gateway made (garbled or tampered with)"
}

// delete ends a session on every replica: here, in the store (so no
// replica rebuilds it) and by the store's fan-out (so every replica
// holding it closes it).
func (t *sealedSessions) delete(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		http.Error(w, "Bad Request: DELETE requires an Mcp-Session-Id header", http.StatusBadRequest)
		return
	}
	caller := CallerOf(r)
	t.mu.Lock()
	h := t.held[id]
	t.mu.Unlock()
	if !t.sealed {
		t.endOwn(w, h, caller)
		return
	}
	var expires time.Time
	if h != nil {
		if h.caller != caller {
			http.Error(w, "switchboard: this session belongs to another caller", http.StatusForbidden)
			return
		}
		expires = h.expires
	} else {
		payload, err := t.keys.Open(purposeSession, caller, time.Now(), id)
		var sealed sealedID
		if err == nil {
			err = json.Unmarshal(payload, &sealed)
		}
		switch {
		case errors.Is(err, seal.ErrOtherCaller):
			http.Error(w, "switchboard: this session belongs to another caller", http.StatusForbidden)
			return
		case err != nil:
			http.Error(w, "switchboard: session not found: its id is "+sealError(err), http.StatusNotFound)
			return
		}
		expires = time.Unix(sealed.Expires, 0)
	}
	if h != nil {
		h.ss.Close()
	}
	// The store's errors leave the session ended here but maybe not on
	// the others: the client is told, and may DELETE again.
	err := t.store.Revoke(r.Context(), id, expires)
	if err == nil {
		err = t.store.Publish(r.Context(), revokedTopic, []byte(id))
	}
	if err == nil {
		err = t.store.Events().SessionClosed(r.Context(), id)
	}
	if err != nil {
		t.g.log.Warn("session store unavailable: a DELETE may not reach every replica", "error", err)
		w.Header().Set("Retry-After", "5")
		http.Error(w, "switchboard: the session ended here, but the session store is unavailable to end it everywhere; try again", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// revoked closes a session another replica ended, if this one holds it.
func (t *sealedSessions) revoked(msg []byte) {
	if msg == nil {
		t.recheck()
		return
	}
	t.mu.Lock()
	h := t.held[string(msg)]
	t.mu.Unlock()
	if h != nil {
		h.ss.Close()
	}
}

// recheck asks the store about every session held: the fan-out said it
// may have lost messages (a reconnected subscription), and a DELETE on
// another replica in that gap would otherwise go unseen here.
func (t *sealedSessions) recheck() {
	for id, h := range t.heldNow() {
		gone, err := t.store.Revoked(t.g.life, id)
		if err != nil || !gone {
			continue // a store that does not answer: the per-request check stands
		}
		h.ss.Close()
	}
}

// closeAll closes every session held, when the gateway stops.
func (t *sealedSessions) closeAll() {
	for _, h := range t.heldNow() {
		h.ss.Close()
	}
}

// heldNow is a copy of the sessions held, to close or ask about without
// the table's lock (closing one takes it).
func (t *sealedSessions) heldNow() map[string]*heldSession {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.held)
}

// keptEvents is the store's event store, but for a session closing on
// this replica (idle, drain, the gateway's end), whose events it keeps:
// the session goes on elsewhere, or here again, and its client may
// resume from them. DELETE drops them; the store bounds the rest.
type keptEvents struct{ mcp.EventStore }

func (keptEvents) SessionClosed(context.Context, string) error { return nil }

// startPOST and endPOST pause the idle timer while a POST is served, as
// go-sdk's handler does.
func (h *heldSession) startPOST() {
	h.timerMu.Lock()
	defer h.timerMu.Unlock()
	if h.timer == nil {
		return
	}
	if h.refs == 0 {
		h.timer.Stop()
	}
	h.refs++
}

func (h *heldSession) endPOST() {
	h.timerMu.Lock()
	defer h.timerMu.Unlock()
	if h.timer == nil {
		return
	}
	if h.refs--; h.refs == 0 {
		h.timer.Reset(h.t.idle)
	}
}

func (h *heldSession) stopTimer() {
	h.timerMu.Lock()
	defer h.timerMu.Unlock()
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
}

// initializeParams peeks at a POST's body: the params of the initialize
// request it is, or nil.
func initializeParams(body []byte) *mcp.InitializeParams {
	var msg struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "initialize" {
		return nil
	}
	var p mcp.InitializeParams
	if json.Unmarshal(msg.Params, &p) != nil {
		return nil
	}
	return &p
}

// negotiated is the version go-sdk's initialize settles on for what the
// client asked: its own when supported, else the newest legacy one.
func negotiated(asked string) string {
	supported := mcp.SupportedProtocolVersions()
	if asked < config.ProtocolModern && slices.Contains(supported, asked) {
		return asked
	}
	for _, v := range supported {
		if v < config.ProtocolModern {
			return v
		}
	}
	return asked
}
