package gateway

import (
	"net/http"
	"time"
)

// A write to an MCP request over HTTP (a legacy session's POST or GET, a
// 2026-07-28 POST) is bounded: it must be taken within clientWriteTimeout,
// as every other write to a client is (DESIGN.md, "Bounded writes to HTTP
// clients"). What a session sends in the course of a call (progress, a
// log line) is written on the goroutine that hands on the upstream
// server's notifications, one at a time (go-sdk's), so one client that
// stops reading its event stream would otherwise hold every notification
// and server request of that server, for every client, for ever. A write
// not taken in time fails, and the request's connection with it; a
// legacy session goes on.
type boundedWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	// limit is the deadline the embedder's http.Server gave the whole
	// response (its WriteTimeout), zero for none: a bound never goes past
	// it, and a write taken puts it back instead of clearing it.
	limit time.Time
}

// bounded wraps w, the response to r, a request served by the session
// table.
func bounded(w http.ResponseWriter, r *http.Request) *boundedWriter {
	b := &boundedWriter{ResponseWriter: w, rc: http.NewResponseController(w)}
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.WriteTimeout > 0 {
		b.limit = time.Now().Add(srv.WriteTimeout)
	}
	return b
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	defer b.unbound(b.bound())
	return b.ResponseWriter.Write(p)
}

// Flush flushes within the bound, as go-sdk's transport flushes each
// event (through a ResponseController, which finds this method).
func (b *boundedWriter) Flush() {
	defer b.unbound(b.bound())
	_ = b.rc.Flush()
}

// FlushError is Flush with its error, for a ResponseController.
func (b *boundedWriter) FlushError() error {
	defer b.unbound(b.bound())
	return b.rc.Flush()
}

// Unwrap is the response wrapped, for a ResponseController.
func (b *boundedWriter) Unwrap() http.ResponseWriter { return b.ResponseWriter }

// bound sets the write deadline; false when the connection has none
// (an embedder's ResponseWriter that cannot say).
func (b *boundedWriter) bound() bool {
	d := time.Now().Add(clientWriteTimeout)
	if !b.limit.IsZero() && b.limit.Before(d) {
		d = b.limit
	}
	return b.rc.SetWriteDeadline(d) == nil
}

// unbound puts the deadline back once the write is taken: none, or the
// embedder's, so the connection waits for the next event, or serves the
// next request, as it would without the bound.
func (b *boundedWriter) unbound(set bool) {
	if set {
		_ = b.rc.SetWriteDeadline(b.limit)
	}
}
