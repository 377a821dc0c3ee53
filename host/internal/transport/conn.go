package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// keepWriteBuffer is the largest write buffer a connection keeps for the
// next message; a larger one, left by a large message, is let go.
const keepWriteBuffer = 64 * 1024

// methodCancelled is the notification that ends a request given up on.
const methodCancelled = "notifications/cancelled"

// stdioConn is the mcp.Connection to a stdio server: go-sdk's protocol
// layer (jsonrpc2: calls, responses, sessions) runs on top of it, as it
// would on mcp.IOTransport's, and this is the framing under it
// (DESIGN.md, "Messages from servers").
//
// Read takes the next message from the stdout filter, in the calling
// goroutine (go-sdk's reader): each line is scanned once, by the filter,
// and decoded from that scan, with no 32 KiB decoder per message and no
// goroutine between the pipe and go-sdk. Write encodes a message into a
// buffer kept between messages and writes it with one write. Close ends
// the process (Stdio.shutdown) and unblocks a Read, on every platform
// (closing an os.File wakes a read blocked on it).
//
// Like go-sdk's own, it takes batches from the server, and answers the
// requests of one in one batch; it never sends batches.
type stdioConn struct {
	in    *jsonLineFilter // used by Read alone: go-sdk reads from one goroutine
	out   io.Writer       // the server's stdin
	end   func() error    // ends the process, once stdin is to close
	calls *calls
	hooks Hooks

	// wsem is the write lock (Write is called from many goroutines): a
	// channel, so that a write waiting for it gives up as its context
	// ends. The write holding it cannot be interrupted (an io.Writer has
	// no deadline), but those queued behind a stalled reader are not
	// held for ever: go-sdk bounds its notifications' contexts, the
	// gateway its log lines'.
	wsem chan struct{}
	wbuf []byte

	bmu     sync.Mutex
	batches map[jsonrpc.ID]*batchReply // incoming batch requests, until answered

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// batchReply gathers the responses to the requests of one incoming batch.
type batchReply struct {
	index     map[jsonrpc.ID]int
	responses []*jsonrpc.Response
	missing   int
}

func newStdioConn(in *jsonLineFilter, out io.Writer, end func() error, calls *calls, hooks Hooks) *stdioConn {
	return &stdioConn{in: in, out: out, end: end, calls: calls, hooks: hooks, wsem: make(chan struct{}, 1)}
}

func (c *stdioConn) SessionID() string { return "" }

// Read returns the next message from the server. A Read that Close ends
// returns io.EOF, as go-sdk's connections do.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	msg, batch, err := c.in.next()
	if err != nil {
		if c.closed.Load() {
			return nil, io.EOF
		}
		return nil, err
	}
	if batch != nil {
		c.addBatch(batch)
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if c.calls.method(resp.ID) == methodListen {
			c.hooks.listenEnded() // a cancelled one was forgotten: the server ended it
		}
		c.calls.done(resp.ID)
	}
	return msg, nil
}

// ErrNotWritten is wrapped by the error of a write that failed: the
// message never reached the server, and a request may be sent again on
// another connection.
var ErrNotWritten = errors.New("not written")

// Write sends msg to the server, as one line in one write.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		switch {
		case m.IsCall():
			c.calls.add(m.ID, m.Method)
			err := c.write(ctx, func(b []byte) ([]byte, error) { return appendMessage(b, msg) })
			if errors.Is(err, ErrNotWritten) {
				c.calls.done(m.ID) // no answer will come
			}
			return err
		case m.Method == methodCancelled:
			c.forget(m.Params)
		}
	case *jsonrpc.Response:
		if batch, ok := c.answerBatch(m); ok {
			if batch == nil {
				return nil // more of its batch to come
			}
			return c.write(ctx, func(b []byte) ([]byte, error) { return appendBatch(b, batch) })
		}
	}
	return c.write(ctx, func(b []byte) ([]byte, error) { return appendMessage(b, msg) })
}

// write encodes a line with enc into the kept buffer and writes it, once
// no other write holds the lock, or fails if ctx ends first.
func (c *stdioConn) write(ctx context.Context, enc func([]byte) ([]byte, error)) error {
	select {
	case c.wsem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrNotWritten, context.Cause(ctx))
	}
	defer func() { <-c.wsem }()
	b, err := enc(c.wbuf[:0])
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, werr := c.out.Write(b); werr != nil {
		// A pipe write fails when nobody reads the pipe any more: the
		// server read at most a part of the line, which is no request.
		err = fmt.Errorf("%w: %w", ErrNotWritten, werr)
	}
	if cap(b) <= keepWriteBuffer {
		c.wbuf = b
	} else {
		c.wbuf = nil
	}
	return err
}

// forget drops a cancelled request from calls: go-sdk's notification of it
// names its id.
func (c *stdioConn) forget(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) == nil {
		if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
			c.calls.done(id)
		}
	}
}

// Close ends the server: the read side first, which unblocks a Read, then
// stdin and the process. Later calls return what the first did.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.closeErr = errors.Join(c.in.Close(), c.end())
	})
	return c.closeErr
}

// addBatch records the requests of an incoming batch. One whose id is
// already waiting in another batch is answered on its own.
func (c *stdioConn) addBatch(ids []jsonrpc.ID) {
	c.bmu.Lock()
	defer c.bmu.Unlock()
	b := &batchReply{index: map[jsonrpc.ID]int{}}
	for _, id := range ids {
		if _, dup := b.index[id]; dup || c.batches[id] != nil {
			continue
		}
		b.index[id] = len(b.responses)
		b.responses = append(b.responses, nil)
		b.missing++
	}
	if c.batches == nil {
		c.batches = map[jsonrpc.ID]*batchReply{}
	}
	for id := range b.index {
		c.batches[id] = b
	}
}

// answerBatch records a response to a batch request and reports whether
// it was one; the batch's responses are returned with the last of them.
func (c *stdioConn) answerBatch(resp *jsonrpc.Response) ([]*jsonrpc.Response, bool) {
	c.bmu.Lock()
	defer c.bmu.Unlock()
	b := c.batches[resp.ID]
	if b == nil {
		return nil, false
	}
	delete(c.batches, resp.ID)
	b.responses[b.index[resp.ID]] = resp
	if b.missing--; b.missing > 0 {
		return nil, true
	}
	return b.responses, true
}

// appendMessage appends msg as jsonrpc.EncodeMessage encodes it. The
// messages a call sends (a request with a number id, a plain method and
// params go-sdk marshalled) are written directly, without the reflection,
// the buffer and the second pass over params that EncodeMessage makes;
// anything else goes through EncodeMessage.
func appendMessage(dst []byte, msg jsonrpc.Message) ([]byte, error) {
	if b, ok := appendPlain(dst, msg); ok {
		return b, nil
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return dst, err
	}
	return append(dst, data...), nil
}

// appendPlain appends msg in the form EncodeMessage gives it, if it is
// plain: an id that is a number or a plain string, a plain method, no
// error, and params or a result on one line. go-sdk marshals params and
// results itself, with encoding/json, so they are valid and compact; a
// line break in one (json.RawMessage given whole by a caller) is left to
// EncodeMessage, which compacts it.
func appendPlain(dst []byte, msg jsonrpc.Message) ([]byte, bool) {
	var (
		id    jsonrpc.ID
		key   string
		value json.RawMessage
	)
	method := ""
	switch m := msg.(type) {
	case *jsonrpc.Request:
		id, method, key, value = m.ID, m.Method, `,"params":`, m.Params
		if !plain(method) {
			return dst, false
		}
	case *jsonrpc.Response:
		if m.Error != nil {
			return dst, false
		}
		id, key, value = m.ID, `,"result":`, m.Result
	default:
		return dst, false
	}
	if containsNewline(value) {
		return dst, false
	}
	start := len(dst)
	dst = append(dst, `{"jsonrpc":"2.0"`...)
	switch v := id.Raw().(type) {
	case nil:
	case int64:
		dst = strconv.AppendInt(append(dst, `,"id":`...), v, 10)
	case string:
		if !plain(v) {
			return dst[:start], false
		}
		dst = append(append(append(dst, `,"id":"`...), v...), '"')
	default:
		return dst[:start], false
	}
	if method != "" {
		dst = append(append(append(dst, `,"method":"`...), method...), '"')
	}
	if len(value) > 0 {
		dst = append(append(dst, key...), value...)
	}
	return append(dst, '}'), true
}

// plain reports whether s is written in JSON as it is, between quotes:
// printable ASCII without quotes or backslashes.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func containsNewline(b []byte) bool {
	return bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0
}

// appendBatch appends the responses to an incoming batch, as an array.
func appendBatch(dst []byte, batch []*jsonrpc.Response) ([]byte, error) {
	dst = append(dst, '[')
	for i, resp := range batch {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendMessage(dst, resp); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}
