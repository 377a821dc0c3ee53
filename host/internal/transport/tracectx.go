package transport

import (
	"context"
	"net/http"
)

// traceKey carries the W3C trace context of a request in its context.
type traceKey struct{}

// WithTraceContext marks ctx with a request's traceparent and tracestate
// (W3C Trace Context), which an HTTP transport sends as headers beside
// the request's _meta (DESIGN.md, "Observing"). Empty values are not
// sent.
func WithTraceContext(ctx context.Context, traceparent, tracestate string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return context.WithValue(ctx, traceKey{}, [2]string{traceparent, tracestate})
}

// addTraceHeaders sets the trace context ctx carries on h.
func addTraceHeaders(ctx context.Context, h http.Header) {
	tc, ok := ctx.Value(traceKey{}).([2]string)
	if !ok {
		return
	}
	h.Set("Traceparent", tc[0])
	if tc[1] != "" {
		h.Set("Tracestate", tc[1])
	}
}
