package transport

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// sseSlack is what an SSE event may hold beyond the message limit: its
// event, id and retry fields and the "data:" prefixes.
const sseSlack = 4096

// limitRoundTripper holds an HTTP or SSE server's responses to the same
// limits as a stdio server's lines (DESIGN.md F24): a message over
// maxMessageSize or nested deeper than MaxMessageDepth never reaches go-sdk. A
// JSON body or an SSE event that is a refused reply is replaced by an
// error reply for its id, so its call fails at once and says why; any
// other refused message is dropped and reported. go-sdk reads a JSON body
// whole, however large, and ends the session on a message it cannot
// decode; over legacy SSE an event over its 16 MiB limit ended the
// session with a bare EOF.
type limitRoundTripper struct {
	next  http.RoundTripper
	limit int64
	hooks Hooks
	calls *calls
}

func (rt *limitRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	// A POST that is a call: remember what it asked, for the error if its
	// reply is refused (over legacy SSE the reply comes on another
	// stream). go-sdk's bodies are in memory, so GetBody is cheap, and
	// the scan stops at the method, which go-sdk writes after the id.
	var call asked
	if req.Method == http.MethodPost && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			s := getScan()
			s.pauseAtMethod = true
			if _, err := io.Copy(&scanWriter{s: s}, body); err == nil {
				if id, ok := s.requestID(); ok && s.method.seen {
					call = asked{id: id, method: s.method.text()}
					rt.calls.add(id, call.method)
				}
			}
			putScan(s)
			body.Close()
		}
	}
	resp, err := rt.next.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		resp.Body = &jsonBody{rc: resp.Body, resp: resp, rt: rt, call: call}
	case "text/event-stream":
		resp.Body = &sseBody{rc: resp.Body, f: newSSEFilter(resp.Body, rt)}
	}
	if call.method == methodListen {
		resp.Body = &listenBody{ReadCloser: resp.Body, ctx: req.Context(), hooks: rt.hooks}
	}
	return resp, nil
}

// listenBody is the stream of a subscriptions/listen request: when it
// ends (read to its end or failing) while its request is still wanted,
// the server has let the subscription go (Hooks.ListenEnded).
type listenBody struct {
	io.ReadCloser
	ctx   context.Context
	hooks Hooks
	once  sync.Once
}

func (b *listenBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && b.ctx.Err() == nil {
		b.once.Do(b.hooks.listenEnded)
	}
	return n, err
}

// mediaType is a Content-Type without its parameters, in lower case, as
// mime.ParseMediaType has it (without the map that allocates).
func mediaType(ctype string) string {
	media, _, _ := strings.Cut(ctype, ";")
	media = strings.TrimSpace(media)
	for i := 0; i < len(media); i++ {
		if c := media[i]; 'A' <= c && c <= 'Z' {
			return strings.ToLower(media)
		}
	}
	return media
}

// The filters' scans and buffers are pooled: a call over HTTP makes a
// request scan and a response (a JSON body or an SSE stream) whose
// buffers would otherwise be allocated, 64 KiB of them, and zeroed each
// time.
var (
	scans  = sync.Pool{New: func() any { return new(frameScan) }}
	bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

// getScan is a reset scan from the pool; putScan gives it back.
func getScan() *frameScan {
	s := scans.Get().(*frameScan)
	s.reset()
	return s
}

func putScan(s *frameScan) {
	if cap(s.key)+cap(s.version.raw)+cap(s.id.raw)+cap(s.method.raw) <= 4*maxField {
		scans.Put(s)
	}
}

// asked is the call a POST made; id is not valid for a POST that was none.
type asked struct {
	id     jsonrpc.ID
	method string
}

// scanWriter feeds what is written to a frameScan, until the scan pauses
// at the method with the id read (pauseAtMethod): the rest is skipped.
type scanWriter struct {
	s    *frameScan
	done bool
}

func (w *scanWriter) Write(p []byte) (int, error) {
	if w.done {
		return len(p), nil
	}
	if n := w.s.feed(p); n < len(p) {
		if w.s.id.seen {
			w.done = true
		} else {
			w.s.feed(p[n:])
		}
	}
	return len(p), nil
}

// jsonBody is a JSON response body held to the limits. It is read whole on
// the first Read, up to the limit (go-sdk reads it whole anyway), into a
// pooled buffer given back once read; beyond the limit it is streamed
// past.
type jsonBody struct {
	rc   io.ReadCloser
	resp *http.Response
	rt   *limitRoundTripper
	call asked     // the call the body answers, if the POST was one
	out  io.Reader // what go-sdk reads, once decided
	buf  *bytes.Buffer
	lr   io.LimitedReader
}

func (b *jsonBody) Read(p []byte) (int, error) {
	if b.out == nil {
		b.out = b.decide()
	}
	n, err := b.out.Read(p)
	if err != nil && b.buf != nil {
		// All of it was read; the reader does not touch the buffer again.
		if b.buf.Cap() <= keepBuffer {
			bodies.Put(b.buf)
		}
		b.buf, b.out = nil, atEOF
		if err != io.EOF {
			b.out = errReader{err}
		}
	}
	return n, err
}

func (b *jsonBody) decide() io.Reader {
	s := getScan()
	defer putScan(s)
	buf := bodies.Get().(*bytes.Buffer)
	buf.Reset()
	b.lr = io.LimitedReader{R: b.rc, N: b.rt.limit + 1}
	n, err := buf.ReadFrom(&b.lr)
	s.feed(buf.Bytes())
	size := n
	if err == nil && n > b.rt.limit {
		// Over the limit: stream past the rest, scanning it, and keep
		// nothing of it.
		var rest int64
		rest, err = io.Copy(&scanWriter{s: s}, b.rc)
		size += rest
	}
	if err != nil {
		return io.MultiReader(buf, errReader{err})
	}
	if size <= b.rt.limit && s.maxDepth <= MaxMessageDepth {
		if id, ok := s.requestID(); ok && !s.method.seen {
			b.rt.calls.done(id)
		}
		b.buf = buf
		return buf
	}
	bodies.Put(buf)
	stand, note, _ := verdict(s, size, b.rt.limit, b.rt.calls)
	if stand == nil && b.call.id.IsValid() {
		// No id of its own to answer for (a batch, or no message at
		// all): it answers the POST's call.
		what := "reply to " + b.call.method + " " + refusal(size, b.rt.limit, s.maxDepth)
		stand, note = errorReply(b.call.id, what), what+"; the call fails with this error"
		b.rt.calls.done(b.call.id)
	}
	reply := wireReply(stand)
	b.rt.hooks.dropped(note)
	b.resp.ContentLength = int64(len(reply))
	b.resp.Header.Set("Content-Length", strconv.Itoa(len(reply)))
	return bytes.NewReader(reply)
}

func (b *jsonBody) Close() error { return b.rc.Close() }

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// atEOF is a body read to its end.
var atEOF io.Reader = errReader{io.EOF}

// sseFilter is an SSE stream held to the limits, an event at a time: an
// event is held until its blank line (up to the limit) and then passed on
// as it came, or, when its data is over the limit or too deep, replaced:
// a reply by its event, id and retry fields with an error reply as its
// data (the id stays, so a resumed stream starts after it), anything else
// by nothing. A line is
// read in pieces, so one over the limit is scanned and let go, never held.
type sseFilter struct {
	rc     io.ReadCloser
	br     *bufio.Reader // pooled, given back at the end of the stream
	rt     *limitRoundTripper
	scan   *frameScan // pooled, as br
	event  []byte     // the event so far, while within the limit
	fields []byte     // its event, id and retry lines, kept in case it goes over
	data   bool       // a data line was seen in this event
	size   int64      // its data's size, in bytes
	total  int64      // all its bytes, lines and fields included
	over   bool       // the event went over the limit: it is no longer held
	// The line being read: whether the next piece starts one, and what
	// kind it is (its field name, from its first piece).
	midLine bool
	kind    lineKind
	pending []byte
	err     error
}

// lineKind is what an SSE line is, by its field name.
type lineKind uint8

const (
	lineOther lineKind = iota
	lineData           // data
	lineField          // event, id or retry: kept with a refused event
)

// sseFilters are pooled, with their 64 KiB reader and their event
// buffers: a call to a streamable HTTP server that answers in SSE makes a
// stream of its own.
var sseFilters = sync.Pool{New: func() any {
	return &sseFilter{br: bufio.NewReaderSize(nil, 64*1024), scan: new(frameScan)}
}}

func newSSEFilter(rc io.ReadCloser, rt *limitRoundTripper) *sseFilter {
	f := sseFilters.Get().(*sseFilter)
	f.rc, f.rt = rc, rt
	f.br.Reset(rc)
	f.scan.reset()
	return f
}

// release gives back a filter whose stream has ended.
func (f *sseFilter) release() {
	keep := func(b []byte) []byte {
		if cap(b) > keepBuffer {
			return nil
		}
		return b[:0]
	}
	f.br.Reset(nil)
	*f = sseFilter{br: f.br, scan: f.scan, event: keep(f.event), fields: keep(f.fields), pending: keep(f.pending)}
	sseFilters.Put(f)
}

func (f *sseFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.next()
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// sseBody is the body go-sdk reads an SSE stream from: the filter until
// the stream ends, when the filter goes back to the pool. Reads come from
// one goroutine; Close, which may come from another, touches only the
// underlying body.
type sseBody struct {
	rc  io.ReadCloser
	f   *sseFilter
	err error
}

func (b *sseBody) Read(p []byte) (int, error) {
	if b.f == nil {
		return 0, b.err
	}
	n, err := b.f.Read(p)
	if err != nil {
		b.err = err
		b.f.release()
		b.f = nil
	}
	return n, err
}

func (b *sseBody) Close() error { return b.rc.Close() }

// next reads the next piece of a line and decides what to pass on.
func (f *sseFilter) next() {
	piece, err := f.br.ReadSlice('\n')
	if len(piece) > 0 {
		f.take(piece, err == nil || err == io.EOF)
	}
	switch {
	case err == bufio.ErrBufferFull:
	case err != nil:
		if len(f.event) > 0 || f.over {
			f.endEvent() // what came before the end, as go-sdk would see it
		}
		f.err = err
	}
}

// take handles one piece of a line; last says it ends the line.
func (f *sseFilter) take(piece []byte, last bool) {
	start := !f.midLine
	f.midLine = !last
	text := piece
	if last {
		text = bytes.TrimRight(piece, "\r\n")
	}
	if start {
		if len(text) == 0 && last { // a blank line ends the event
			if !f.over {
				f.event = append(f.event, piece...)
			}
			f.endEvent()
			return
		}
		name, value, _ := bytes.Cut(text, []byte(":"))
		switch string(name) {
		case "data":
			f.kind = lineData
			if f.data {
				f.scan.feed([]byte("\n"))
				f.size++
			}
			f.data = true
			text = bytes.TrimPrefix(value, []byte(" "))
		case "event", "id", "retry":
			f.kind = lineField
			f.fields = append(f.fields, piece...)
		default:
			f.kind = lineOther
		}
	} else if f.kind == lineField {
		f.fields = append(f.fields, piece...)
	}
	if f.kind == lineData {
		f.scan.feed(text)
		f.size += int64(len(text))
	}
	if len(f.fields) > sseSlack {
		f.fields = f.fields[:0] // no event needs fields this long; do not keep them
	}
	f.total += int64(len(piece))
	if !f.over && f.total > f.rt.limit+sseSlack {
		f.over, f.event = true, nil // let go of what held the event
	}
	if !f.over {
		f.event = append(f.event, piece...)
	}
}

// endEvent passes the event on, or what stands in for it.
func (f *sseFilter) endEvent() {
	defer func() {
		f.scan.reset()
		f.event, f.fields, f.data, f.size, f.total, f.over = f.event[:0], f.fields[:0], false, 0, 0, false
	}()
	if !f.over && f.size <= f.rt.limit && f.scan.maxDepth <= MaxMessageDepth {
		if id, ok := f.scan.requestID(); ok && !f.scan.method.seen {
			f.rt.calls.done(id)
		}
		f.pending = append(f.pending[:0], f.event...)
		return
	}
	size := f.size
	if f.over {
		size = max(size, f.total) // go-sdk counts every line of an event
	}
	stand, note, message := verdict(f.scan, size, f.rt.limit, f.rt.calls)
	reply := wireReply(stand)
	if !message {
		note = "event " + note + "; dropped"
	}
	f.rt.hooks.dropped(note)
	if reply == nil {
		// Dropped whole: go-sdk's legacy SSE client takes an event
		// without data for a message it cannot decode, and ends the
		// session.
		return
	}
	out := append([]byte(nil), f.fields...)
	out = append(append(append(out, "data: "...), bytes.TrimSuffix(reply, []byte("\n"))...), '\n')
	f.pending = append(out, '\n')
}

func (f *sseFilter) Close() error { return f.rc.Close() }
