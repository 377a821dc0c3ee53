package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// What a call's failure was (DESIGN.md, "Call errors"). CallTool returns a
// nil error for every answer of the server's, a tool error included
// (IsError in the result); for a failure it returns an error result and
// an error that errors.Is answers with exactly one of:
//
//   - ErrProtocol: the server answered the request with a JSON-RPC error
//     (errors.As gives its *jsonrpc.Error, with the code);
//   - ErrConnectionLost: the connection failed while the request was out:
//     the server may have run the tool;
//   - ErrUnavailable: nothing was sent: the server is down, failed, needs
//     authorization, could not be reached, or did not connect within its
//     startup timeout;
//   - context.DeadlineExceeded: the server's request timeout or the
//     caller's deadline passed;
//   - context.Canceled: the caller cancelled;
//   - ErrClosed: the host closed, before or during the call;
//   - ErrNotStarted: the host was never started;
//   - ErrUnknownTool: no exposed tool has the name;
//   - ErrBadArguments: the arguments are not a JSON object (nothing sent).
//
// A failure met once the call had found its server and tool is a
// *CallError naming them (every ErrProtocol, ErrConnectionLost and
// ErrUnavailable, and a timeout, cancel or close while the request was
// out).
var (
	// ErrClosed is returned by operations on a closed host.
	ErrClosed = errors.New("host is closed")
	// ErrNotStarted is returned by a call on a host that Start (or Reload)
	// has not been given servers yet.
	ErrNotStarted = errors.New("host is not started")
	// ErrUnknownTool is returned for a tool name not in the tool set.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrBadArguments is returned for a call's arguments that are not a
	// JSON object: nothing was sent.
	ErrBadArguments = errors.New("arguments are not a JSON object")
	// ErrProtocol matches a call the server answered with a JSON-RPC error.
	ErrProtocol = errors.New("protocol error")
	// ErrConnectionLost matches a call whose connection failed after its
	// request went out.
	ErrConnectionLost = errors.New("connection lost")
	// ErrUnavailable matches a call that was not sent: its server was not
	// there to take it.
	ErrUnavailable = errors.New("server unavailable")
)

// CallError is a failed call: the server, the tool, and why. The result
// returned with it carries the same text for an agent to read. errors.Is
// tells its kind (ErrProtocol, ErrConnectionLost, ErrUnavailable, or what
// Err wraps: a context's error, ErrClosed).
type CallError struct {
	Server, Tool string
	Err          error
	// Sent says the request reached the server's connection: the failure
	// is the server's or the connection's, not a refusal before sending,
	// the host's (server down, not connected in time, needs auth) or the
	// transport's (a remote server that could not be reached: undelivered).
	Sent bool
}

func (e *CallError) Error() string {
	return fmt.Sprintf("server %q: tool %q: %v", e.Server, e.Tool, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// Is answers the kinds a CallError has beside what Err wraps.
func (e *CallError) Is(target error) bool {
	switch target {
	case ErrProtocol, ErrConnectionLost, ErrUnavailable:
		return e.kind() == target
	}
	return false
}

// kind is the one of ErrProtocol, ErrConnectionLost and ErrUnavailable
// that e is, or nil when Err says (a context's error, ErrClosed).
func (e *CallError) kind() error {
	if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, ErrClosed) {
		return nil
	}
	if !e.Sent {
		return ErrUnavailable
	}
	var own *jsonrpc.Error
	if errors.As(e.Err, &own) && own.Code != rejected.Code {
		return ErrProtocol
	}
	return ErrConnectionLost
}
