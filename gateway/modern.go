package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// A request of the 2026-07-28 era is one POST whose whole answer is its
// own (DESIGN.md F50). go-sdk's stateless handler reads such a POST's body
// twice, decodes its params three more times for its checks and its
// headers, and re-marshals the tool's input schema, each decode through a
// new 32 KiB decoder: 300 KB a call before the call itself. modernHandler
// serves the common request, a call of a known method that passes those
// checks, on a connection of its own under go-sdk's session: the body
// decoded once, the reply encoded into a pooled buffer and written as
// JSON, or as an SSE stream once the call sends a notification (progress)
// before its reply. Everything else (a batch, a notification, a check
// that fails, another method, a tool whose schema binds a header, GET and
// DELETE) goes to go-sdk's handler, which answers it as it always did:
// its answers are the protocol's, this one only skips work for the
// requests it has proven good.
type modernHandler struct {
	fallback http.Handler // go-sdk's stateless handler
	log      *slog.Logger
}

// modernMethods are the calls modernHandler serves, and whether each
// needs params (go-sdk refuses one without before the session sees it).
var modernMethods = map[string]bool{
	"tools/call":               true,
	"prompts/get":              true,
	"resources/read":           true,
	"tools/list":               false,
	"prompts/list":             false,
	"resources/list":           false,
	"resources/templates/list": false,
}

// The Mcp-Name header names what these calls name in their params.
const (
	nameParam = "name"
	uriParam  = "uri"
)

var namedMethods = map[string]string{"tools/call": nameParam, "prompts/get": nameParam, "resources/read": uriParam}

// serveHTTP serves r, a request of the view v the gateway's handler found
// for it (the view go-sdk's handler would find again).
func (h *modernHandler) serveHTTP(w http.ResponseWriter, r *http.Request, v *view) {
	if r.Method != http.MethodPost || !isJSON(r.Header.Get("Content-Type")) || !acceptsBoth(r.Header.Values("Accept")) ||
		len(r.Header.Values("Last-Event-ID")) > 0 {
		h.fallback.ServeHTTP(bounded(w, r), r)
		return
	}
	// go-sdk's limit and its answers to a body over it or unreadable.
	// The body is not pooled: params are slices of it, and a round's
	// upstream call (mrtr.go) may hold its arguments past the POST.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "failed to read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.Body.Close()
	w = bounded(w, r) // no write to a client waits for ever (writebound.go)
	if h.serve(w, r, body, v) {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	h.fallback.ServeHTTP(w, r)
}

// serve answers r if it is a request modernHandler serves; false leaves it
// to go-sdk's handler, nothing written.
func (h *modernHandler) serve(w http.ResponseWriter, r *http.Request, body []byte, v *view) bool {
	msg, ok := host.DecodeMessage(body)
	req, isReq := msg.(*jsonrpc.Request)
	if !ok || !isReq || !req.IsCall() || r.Header.Get("Mcp-Method") != req.Method {
		return false
	}
	needsParams, known := modernMethods[req.Method]
	if !known || (needsParams && len(req.Params) == 0) {
		return false
	}
	p, ok := readParams(req.Params, namedMethods[req.Method])
	if !ok || p.version != r.Header.Get("Mcp-Protocol-Version") {
		return false
	}
	if member := namedMethods[req.Method]; member != "" {
		if got := r.Header.Get("Mcp-Name"); got == "" || got != p.name {
			return false
		}
	}
	if _, binds := v.paramHeaders.Load(p.name); binds && req.Method == "tools/call" {
		return false // its Mcp-Param-* headers are go-sdk's to check
	}
	req.Extra = &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}
	c := &oneCall{req: req, w: w, asked: r.Context(), replied: make(chan struct{}), closed: make(chan struct{})}
	ss, err := v.srv.Connect(r.Context(), c, &mcp.ServerSessionOptions{State: new(mcp.ServerSessionState)})
	if err != nil {
		h.log.Warn("a stateless session failed to start", "error", err)
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return true
	}
	select {
	case <-c.replied:
	case <-r.Context().Done(): // the client gave it up: Read's error cancels the call
	case <-c.closed: // the session ended first
	}
	c.finish()
	ss.Close()
	return true
}

// params is what modernHandler checks of a request's params: the
// protocol version its _meta names, and the name (or URI) it calls.
type params struct {
	version, name string
}

// readParams reads raw as go-sdk's checks do, by exact member names: the
// version in _meta must be a string, and so must member (when given).
// False for params go-sdk would refuse or read otherwise, and for any
// objectMembers does not read (jsonscan.go).
func readParams(raw json.RawMessage, member string) (params, bool) {
	var p params
	var meta []byte
	ok := objectMembers(raw, func(name, value []byte) bool {
		switch {
		case string(name) == "_meta":
			meta = value
		case member != "" && string(name) == member:
			var isString bool
			p.name, isString = stringValue(value)
			return isString
		}
		return true
	})
	if !ok || meta == nil || meta[0] != '{' {
		return p, false
	}
	ok = objectMembers(meta, func(name, value []byte) bool {
		if string(name) == mcp.MetaKeyProtocolVersion {
			var isString bool
			p.version, isString = stringValue(value)
			return isString
		}
		return true
	})
	return p, ok && p.version != ""
}

// isJSON reports whether a Content-Type is application/json, as go-sdk
// reads it (its media type, parameters aside).
func isJSON(ct string) bool {
	if strings.EqualFold(ct, "application/json") {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// errRejected is go-sdk's transport rejection (jsonrpc2.ErrRejected,
// matched by its code): a write refused without breaking the connection.
var errRejected = &jsonrpc.Error{Code: -32005, Message: "rejected by transport"}

// oneCall is the mcp.Connection of one stateless request: Read gives
// go-sdk the request, then waits for the end of the session or of the
// client's HTTP request (whose error cancels the call in go-sdk, as its
// PropagateRequestCancellation does); Write answers on the POST.
type oneCall struct {
	req     *jsonrpc.Request
	w       http.ResponseWriter
	asked   context.Context // the HTTP request's
	taken   atomic.Bool
	replied chan struct{} // closed once the reply is written

	mu       sync.Mutex
	sse      bool // the answer is an event stream: a notification came first
	finished bool // nothing more may be written: replied, or given up
	rc       *http.ResponseController

	closeOnce sync.Once
	closed    chan struct{}
}

// Connect makes oneCall its own mcp.Transport: connected once, by serve.
func (c *oneCall) Connect(context.Context) (mcp.Connection, error) { return c, nil }

func (c *oneCall) SessionID() string { return "" }

func (c *oneCall) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.taken.CompareAndSwap(false, true) {
		return c.req, nil
	}
	select {
	case <-c.closed:
		return nil, io.EOF
	case <-c.asked.Done():
		return nil, c.asked.Err()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// bufs are the buffers replies are encoded into; one a large reply grew
// past keepBuf is let go.
var bufs = sync.Pool{New: func() any { return new([]byte) }}

const keepBuf = 64 << 10

// encodeReply encodes msg into a buffer of bufs, *bp; releaseReply gives
// the buffer back once what was encoded is written.
func encodeReply(msg jsonrpc.Message) (bp *[]byte, err error) {
	bp = bufs.Get().(*[]byte)
	*bp, err = host.AppendMessage((*bp)[:0], msg)
	return bp, err
}

func releaseReply(bp *[]byte) {
	if cap(*bp) <= keepBuf {
		bufs.Put(bp)
	}
}

func (c *oneCall) Write(ctx context.Context, msg jsonrpc.Message) error {
	if m, ok := msg.(*jsonrpc.Request); ok && m.IsCall() {
		return fmt.Errorf("%w: a stateless request cannot be asked back", errRejected)
	}
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
	resp, isReply := msg.(*jsonrpc.Response)
	if isReply {
		c.finished = true
		defer close(c.replied)
	}
	h := c.w.Header()
	switch {
	case isReply && !c.sse:
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-cache, no-transform")
		if status := errorStatus(resp); status != 0 {
			c.w.WriteHeader(status)
		}
		_, err = c.w.Write(data)
		return err
	case !c.sse:
		c.sse = true
		setStreamHeaders(h)
		c.rc = http.NewResponseController(c.w)
	}
	err = writeEventTo(c.w, "", data)
	_ = c.rc.Flush() // best effort, as go-sdk's
	return err
}

// setStreamHeaders makes a response an event stream, with go-sdk's headers.
func setStreamHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Connection", "keep-alive")
}

var eventHead, eventTail = []byte("event: message\ndata: "), []byte("\n\n")

// writeEventTo writes one event as go-sdk writes them: its data is one
// line (encoded JSON has none in it), its id there when stored.
func writeEventTo(w http.ResponseWriter, id string, data []byte) error {
	var err error
	if id == "" {
		_, err = w.Write(eventHead)
	} else {
		_, err = fmt.Fprintf(w, "event: message\nid: %s\ndata: ", id)
	}
	if err == nil {
		if _, err = w.Write(data); err == nil {
			_, err = w.Write(eventTail)
		}
	}
	return err
}

// errorStatus is the HTTP status of a protocol-level error reply in the
// 2026-07-28 era (SEP-2575), as go-sdk sets it: 404 for a method not
// found, 400 for bad params, an unsupported version or missing client
// capabilities; 0 (200) for any other reply.
func errorStatus(resp *jsonrpc.Response) int {
	var jerr *jsonrpc.Error
	if resp.Error == nil || !errors.As(resp.Error, &jerr) {
		return 0
	}
	switch jerr.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return 0
}

// finish ends writing to the POST: its handler is about to return.
func (c *oneCall) finish() {
	c.mu.Lock()
	c.finished = true
	c.mu.Unlock()
}

func (c *oneCall) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// noteParamHeaders records tool in v.paramHeaders, before it is served,
// if its input schema may bind a header.
func noteParamHeaders(v *view, tool *mcp.Tool) {
	if raw, ok := tool.InputSchema.(json.RawMessage); !ok || bytes.Contains(raw, []byte("x-mcp-header")) {
		v.paramHeaders.Store(tool.Name, true)
	}
}
