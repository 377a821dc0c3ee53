package gateway

import (
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// LegacyOwnHandler is a benchmark-only experiment (BenchmarkGatewayCall's
// gateway-2025-11-25-own, SWITCHBOARD_BENCH_LEGACY_OWN=1): 2025-11-25
// sessions of the whole gateway's view served as modernHandler serves a
// 2026-07-28 request, each POST decoded once and its reply written as
// JSON, under a session that lives across POSTs. It measures what the
// legacy era would cost with the session table on a transport of the
// gateway's own instead of go-sdk's StreamableServerTransport. It is not
// a server: no notification reaches a client (go-sdk keeps the request
// a notification belongs to to itself, idContextKey), no standalone
// stream, no cancellation, no resumption, no limits.
// The function returned closes its sessions.
func (g *Gateway) LegacyOwnHandler() (http.Handler, func()) {
	h := &legacyOwn{g: g, sessions: map[string]*legacyConn{}}
	return h, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, c := range h.sessions {
			c.ss.Close()
		}
	}
}

type legacyOwn struct {
	g        *Gateway
	mu       sync.Mutex
	sessions map[string]*legacyConn
}

func (h *legacyOwn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	msg, ok := host.DecodeMessage(body)
	if err != nil || !ok {
		http.Error(w, "malformed payload", http.StatusBadRequest)
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	h.mu.Lock()
	c := h.sessions[sid]
	h.mu.Unlock()
	if c == nil {
		if sid != "" {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		srv, err := h.g.View(host.ViewFilter{})
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		c = &legacyConn{in: make(chan jsonrpc.Message), waiting: map[jsonrpc.ID]chan []byte{}, closed: make(chan struct{})}
		if c.ss, err = srv.Connect(context.Background(), c, nil); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		sid = rand.Text()
		h.mu.Lock()
		h.sessions[sid] = c
		h.mu.Unlock()
	}
	req, isReq := msg.(*jsonrpc.Request)
	if !isReq || !req.IsCall() {
		c.in <- msg
		w.WriteHeader(http.StatusAccepted)
		return
	}
	req.Extra = &mcp.RequestExtra{Header: r.Header}
	reply := make(chan []byte, 1)
	c.mu.Lock()
	c.waiting[req.ID] = reply
	c.mu.Unlock()
	c.in <- msg
	data := <-reply
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Mcp-Session-Id", sid)
	w.Write(data)
}

// legacyConn is the experiment's session connection: messages of POSTs
// in, replies routed to the POST waiting for them by id.
type legacyConn struct {
	ss      *mcp.ServerSession
	in      chan jsonrpc.Message
	mu      sync.Mutex
	waiting map[jsonrpc.ID]chan []byte
	once    sync.Once
	closed  chan struct{}
}

func (c *legacyConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }
func (c *legacyConn) SessionID() string                               { return "" }

func (c *legacyConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *legacyConn) Write(_ context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return nil // no stream to carry it, in this experiment
	}
	data, err := host.AppendMessage(nil, msg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	reply := c.waiting[resp.ID]
	delete(c.waiting, resp.ID)
	c.mu.Unlock()
	if reply != nil {
		reply <- data
	}
	return nil
}

func (c *legacyConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}
