package host

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host/internal/transport"
)

// Observer is how metrics and traces learn what the host does, without
// the host linking either (DESIGN.md, "Observing"). Nil fields are not
// called. They run on the caller's goroutine and should not block.
type Observer struct {
	// Call runs as a call's request is about to go to its server (each
	// attempt that may be written). It may add to the request's _meta
	// (trace context) and returns the context the request goes out with
	// and a function the host runs with the outcome (Outcome tells it).
	Call func(ctx context.Context, call *ObservedCall) (context.Context, func(*mcp.CallToolResult, error))
	// CacheHit runs when a server's tools were found in the tool cache
	// (DESIGN.md F15).
	CacheHit func(server string)
	// AuthRefresh runs after each refresh of a server's OAuth access
	// token at its token endpoint (DESIGN.md F42), with its error (nil:
	// refreshed).
	AuthRefresh func(server string, err error)
}

// ObservedCall is a call attempt as an Observer is told of it.
type ObservedCall struct {
	// Server is the server's name; Tool, the exposed name of the tool
	// (both the host's: bounded, fit for a metric's label).
	Server, Tool string
	// Session is the id of the server's session (empty where the
	// transport has none, as over stdio).
	Session string
	// Params is the request about to be sent.
	Params *mcp.CallToolParams
}

// The outcomes of a call, the host's error taxonomy (errors.go) as one
// bounded word each, for a metric's label.
const (
	OutcomeOK             = "ok"
	OutcomeToolError      = "tool_error"
	OutcomeProtocolError  = "protocol_error"
	OutcomeConnectionLost = "connection_lost"
	OutcomeUnavailable    = "unavailable"
	OutcomeTimeout        = "timeout"
	OutcomeCancelled      = "cancelled"
	OutcomeClosed         = "closed"
	OutcomeOther          = "other"
)

// Outcome is the one word for what a call returned.
func Outcome(res *mcp.CallToolResult, err error) string {
	switch {
	case err == nil && res != nil && res.IsError:
		return OutcomeToolError
	case err == nil:
		return OutcomeOK
	case errors.Is(err, context.Canceled):
		return OutcomeCancelled
	case errors.Is(err, context.DeadlineExceeded):
		return OutcomeTimeout
	case errors.Is(err, ErrClosed):
		return OutcomeClosed
	case errors.Is(err, ErrProtocol):
		return OutcomeProtocolError
	case errors.Is(err, ErrConnectionLost):
		return OutcomeConnectionLost
	case errors.Is(err, ErrUnavailable):
		return OutcomeUnavailable
	}
	return OutcomeOther
}

// observeCall starts the observation of one call attempt.
func (h *Host) observeCall(ctx context.Context, call *ObservedCall) (context.Context, func(*mcp.CallToolResult, error)) {
	if h.opts.Observer == nil || h.opts.Observer.Call == nil {
		return ctx, func(*mcp.CallToolResult, error) {}
	}
	ctx, done := h.opts.Observer.Call(ctx, call)
	params := call.Params
	// The trace context the observer put in _meta goes in an HTTP
	// server's headers too.
	parent, _ := params.Meta["traceparent"].(string)
	state, _ := params.Meta["tracestate"].(string)
	return transport.WithTraceContext(ctx, parent, state), done
}

// observeRefresh is the oauth handler's Refreshed for server.
func (h *Host) observeRefresh(server string) func(error) {
	if h.opts.Observer == nil || h.opts.Observer.AuthRefresh == nil {
		return nil
	}
	return func(err error) { h.opts.Observer.AuthRefresh(server, err) }
}

func (h *Host) observeCacheHit(server string) {
	if h.opts.Observer != nil && h.opts.Observer.CacheHit != nil {
		h.opts.Observer.CacheHit(server)
	}
}
