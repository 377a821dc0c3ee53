package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// A legacy (2025-11-25) session held by the gateway's own table is served
// on go-sdk's StreamableServerTransport, wrapped (DESIGN.md, "A legacy
// call on the session's own connection"): go-sdk's transport reads each
// POST's body again, decodes its params for _meta, and answers as an event
// stream, each decode through a new 32 KiB decoder. fastTransport keeps
// that transport for everything it does (initialize, GET's standalone
// stream, the client's notifications and its replies to the server's
// requests, batches, a request the checks here do not prove plain) and
// serves the plain calls itself: a POST of one call of a method in
// fastMethods, decoded once, fed to the session through the connection
// of its own, its reply written as JSON, or as an event stream once a
// notification (progress, a log message) or a request of the server
// (elicitation, sampling) made for that call comes first; with an event
// store, that stream's events are stored for Last-Event-ID
// (legacyresume.go).
type fastTransport struct {
	inner *mcp.StreamableServerTransport
	conn  *fastConn // once connected
}

// newFastTransport wraps tr, whose EventStore (if any) the fast calls'
// event streams are stored in too.
func newFastTransport(tr *mcp.StreamableServerTransport) *fastTransport {
	return &fastTransport{inner: tr}
}

// fastMethods are the calls the fast path serves, and whether each needs
// params (go-sdk refuses one without, before the session sees it). The
// rest (initialize, logging/setLevel, subscriptions) keep go-sdk's path.
var fastMethods = map[string]bool{
	"tools/call":               true,
	"prompts/get":              true,
	"resources/read":           true,
	"completion/complete":      true,
	"tools/list":               false,
	"prompts/list":             false,
	"resources/list":           false,
	"resources/templates/list": false,
	"ping":                     false,
}

// Connect connects the inner transport and wraps its connection.
func (t *fastTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	inner, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &fastConn{
		inner: inner, in: make(chan jsonrpc.Message), fromInner: make(chan innerRead),
		calls: map[jsonrpc.ID]*fastCall{}, innerCalls: map[jsonrpc.ID]bool{}, done: make(chan struct{}),
		events: t.inner.EventStore, streams: map[string]*fastCall{},
	}
	go c.pump()
	t.conn = c
	return c, nil
}

// SupportsProtocolVersion is the inner transport's: the session offers
// the versions go-sdk's transport serves.
func (t *fastTransport) SupportsProtocolVersion(version string) bool {
	return t.inner.SupportsProtocolVersion(version)
}

// fastConn is the session's connection: Read merges what the fast path
// feeds with what go-sdk's transport reads; Write sends the reply to a
// fast call, and what the session sends for it, to that call's POST, and
// every other message to go-sdk's transport, which routes it as ever.
type fastConn struct {
	inner     mcp.Connection
	in        chan jsonrpc.Message // the fast path's calls
	fromInner chan innerRead       // go-sdk's transport's messages, by pump

	events mcp.EventStore // the session's, or nil

	mu         sync.Mutex
	calls      map[jsonrpc.ID]*fastCall // unanswered fast calls, by id
	innerCalls map[jsonrpc.ID]bool      // unanswered calls that came through go-sdk's transport
	streams    map[string]*fastCall     // unanswered fast calls' stored event streams, by id

	closeOnce sync.Once
	done      chan struct{}

	served atomic.Int64 // fast calls taken, for tests
}

type innerRead struct {
	msg jsonrpc.Message
	err error
}

// pump reads go-sdk's transport until it ends (Close closes it).
func (c *fastConn) pump() {
	for {
		msg, err := c.inner.Read(context.Background())
		select {
		case c.fromInner <- innerRead{msg, err}:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (c *fastConn) SessionID() string { return c.inner.SessionID() }

func (c *fastConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case msg := <-c.in:
			return msg, nil
		case r := <-c.fromInner:
			if r.err != nil {
				return nil, r.err
			}
			if req, ok := r.msg.(*jsonrpc.Request); ok && req.IsCall() && !c.takeInner(req.ID) {
				c.refuseDuplicate(req.ID)
				continue
			}
			return r.msg, nil
		case <-c.done:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// takeInner records a call that came through go-sdk's transport; false
// when a fast call of the same id is unanswered.
func (c *fastConn) takeInner(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls[id] != nil {
		return false
	}
	c.innerCalls[id] = true
	return true
}

// refuseDuplicate answers, on its own POST, a call whose id a fast call
// still holds (two POSTs raced with one id): go-sdk refuses an id in
// flight on its session, and so does this.
func (c *fastConn) refuseDuplicate(id jsonrpc.ID) {
	resp := &jsonrpc.Response{ID: id, Error: duplicateID(id)}
	if err := c.inner.Write(context.Background(), resp); err != nil {
		c.inner.Close() // its POST would wait for ever
	}
}

func duplicateID(id jsonrpc.ID) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("duplicate in-flight request ID %v", id.Raw())}
}

func (c *fastConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	var call *fastCall
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if call = c.calls[resp.ID]; call != nil {
			delete(c.calls, resp.ID)
		} else {
			delete(c.innerCalls, resp.ID)
		}
		c.mu.Unlock()
	} else if fc, ok := ctx.Value(fastCallKey{}).(*fastCall); ok && fc.conn == c {
		call = fc // sent in the course of a fast call
	}
	if call == nil {
		return c.inner.Write(ctx, msg)
	}
	return call.write(ctx, msg)
}

func (c *fastConn) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return c.inner.Close()
}

// serve serves a POST of the session if it is one fast call; false leaves
// it to go-sdk's transport, nothing written. The caller has checked what
// go-sdk's handler checks of every POST (sealedSessions.post): Accept,
// Content-Type, the body limit, the session, batches.
func (c *fastConn) serve(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if len(r.Header.Values("Last-Event-ID")) > 0 {
		return false // go-sdk refuses it
	}
	msg, ok := host.DecodeMessage(body)
	req, isReq := msg.(*jsonrpc.Request)
	if !ok || !isReq || !req.IsCall() {
		return false
	}
	needsParams, known := fastMethods[req.Method]
	if !known || (needsParams && len(req.Params) == 0) || namesVersion(req.Params) {
		return false
	}
	extra := &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header, CloseSSEStream: noStream}
	req.Extra = extra
	call := &fastCall{conn: c, w: w, replied: make(chan struct{}), lastIdx: -1}
	c.mu.Lock()
	dup := c.calls[req.ID] != nil || c.innerCalls[req.ID]
	if !dup {
		c.calls[req.ID] = call
	}
	c.mu.Unlock()
	if dup { // as go-sdk answers it
		data, _ := host.AppendMessage(nil, &jsonrpc.Response{ID: req.ID, Error: duplicateID(req.ID)})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(data)
		return true
	}
	c.served.Add(1)
	fastCalls.Store(extra, call) // for markFast, until the call is answered
	defer fastCalls.Delete(extra)
	select {
	case c.in <- req:
	case <-c.done:
		c.forget(req.ID)
		http.Error(w, "session is closing", http.StatusNotFound)
		return true
	}
	// A POST given up does not cancel its call, as with go-sdk's transport
	// (the client cancels with notifications/cancelled); what the call
	// sends after is dropped, or stored for a resumption once its stream
	// is in the event store.
	c.await(call, w, r)
	return true
}

// await holds r, written by w, until call is answered, the client goes
// away or the session ends, then lets go of w.
func (c *fastConn) await(call *fastCall, w http.ResponseWriter, r *http.Request) {
	select {
	case <-call.replied:
	case <-r.Context().Done():
	case <-c.done:
	}
	call.detach(w)
}

// forget drops a fast call the session never read.
func (c *fastConn) forget(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
}

// noStream is a fast call's CloseSSEStream: go-sdk's closes a stream so
// that its client resumes it later; a fast call's stream is closed by its
// reply alone.
func noStream(mcp.CloseSSEStreamArgs) {}

// namesVersion reports whether params' _meta may name a protocol version
// (io.modelcontextprotocol/protocolVersion): go-sdk refuses such a
// request on a legacy session, and its answer is go-sdk's to give. Params
// that spell no "_meta" (in any case, or through an escape) have none,
// and are not decoded.
func namesVersion(params json.RawMessage) bool {
	if !bytes.Contains(params, []byte(`\u`)) && !containsFold(params, "_meta") {
		return false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return true // go-sdk reads it its own way: let it
	}
	_, named := p.Meta[mcp.MetaKeyProtocolVersion]
	return named
}

// containsFold reports whether data contains word (lower case ASCII) in
// any case.
func containsFold(data []byte, word string) bool {
	for i := 0; i+len(word) <= len(data); i++ {
		j := 0
		for j < len(word) && data[i+j]|0x20 == word[j]|0x20 {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// fastCalls maps a fast call's RequestExtra (go-sdk hands the same value
// to the request its handlers see) to the call, for markFast.
var fastCalls sync.Map // *mcp.RequestExtra → *fastCall

type fastCallKey struct{}

// markFast is the views' outermost receiving middleware: a fast call's
// handlers run with the call in their context, so that what they send in
// its course (go-sdk keeps the request a message belongs to in a context
// key of its own) reaches fastConn.Write marked as the call's.
func markFast(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if extra := req.GetExtra(); extra != nil {
			if call, ok := fastCalls.Load(extra); ok {
				ctx = context.WithValue(ctx, fastCallKey{}, call)
			}
		}
		return next(ctx, method, req)
	}
}

// fastCall is one fast call: its POST, or a GET that resumed its stream.
type fastCall struct {
	conn    *fastConn
	replied chan struct{} // closed once the reply is written

	mu       sync.Mutex
	w        http.ResponseWriter // the request it is written to; nil once that is gone
	rc       *http.ResponseController
	sse      bool   // the answer is an event stream: a message came before the reply
	finished bool   // nothing more may be written: replied, or (no event store) given up
	stream   string // the event stream's id in the event store, once begun there
	lastIdx  int    // the index of its last event stored
}

// write writes msg on the call's request: the reply as JSON, unless an
// event stream was begun; anything else as an event of one, stored in the
// session's event store (if any) as go-sdk stores its streams' events, so
// that a client whose stream broke resumes it (legacyresume.go).
func (c *fastCall) write(ctx context.Context, msg jsonrpc.Message) error {
	bp, err := encodeReply(msg)
	defer releaseReply(bp)
	if err != nil {
		return err
	}
	data := *bp
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished {
		return fmt.Errorf("%w: the request is answered or given up", errRejected)
	}
	_, isReply := msg.(*jsonrpc.Response)
	if isReply {
		c.finished = true
		defer close(c.replied)
	}
	if isReply && !c.sse {
		if c.w == nil { // given up before anything was sent: no id to resume from
			return fmt.Errorf("%w: the request was given up", errRejected)
		}
		h := c.w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-cache, no-transform")
		_, err = c.w.Write(data)
		return broken(err)
	}
	if !c.sse {
		c.sse = true
		c.streamHeaders()
		if err := c.beginStream(ctx); err != nil {
			return err
		}
	}
	id, stored := c.store(ctx, data)
	if isReply {
		c.endStream()
	}
	if c.w == nil {
		if stored {
			return nil // kept for the client's resumption
		}
		return fmt.Errorf("%w: the request was given up", errRejected)
	}
	err = writeEventTo(c.w, id, data)
	_ = c.rc.Flush() // best effort, as go-sdk's
	if stored {
		return nil
	}
	return broken(err)
}

// streamHeaders begins an event stream on the request written to.
func (c *fastCall) streamHeaders() {
	if c.w == nil {
		return
	}
	setStreamHeaders(c.w.Header())
	c.rc = http.NewResponseController(c.w)
}

// broken is a failed write to a POST as the session must see it: the
// request's HTTP connection broke, not the session's.
func broken(err error) error {
	if err != nil {
		return fmt.Errorf("%w: %v", errRejected, err)
	}
	return nil
}

// detach ends writing to w, the request whose handler is about to
// return. Without an event store the call is given up (what it sends
// after is dropped); with one, what it sends is kept for a GET that
// resumes its stream.
func (c *fastCall) detach(w http.ResponseWriter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn.events == nil {
		c.finished = true
	}
	if c.w == w {
		c.w, c.rc = nil, nil
	}
}
