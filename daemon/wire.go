package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/host"
)

// The control API speaks JSON over HTTP on the socket (DESIGN.md F56).
// An error crosses as wireError: its text as the daemon said it, and
// enough of its kind for the client to rebuild what errors.Is and
// errors.As answer against host's taxonomy (host/errors.go).
type wireError struct {
	Error string `json:"error"`
	Kind  string `json:"kind"`
	// Name is a *host.NameError's content (kind "name").
	Name *wireName `json:"name,omitempty"`
	// Down is a *host.DownError's (kind "down").
	Down *wireDown `json:"down,omitempty"`
	// Call is a *host.CallError's, under whatever wraps it.
	Call *wireCall `json:"call,omitempty"`
}

type wireName struct {
	Kind      host.Kind    `json:"kind"`
	Name      string       `json:"name"`
	Near      []host.Named `json:"near,omitempty"`
	Ambiguous bool         `json:"ambiguous,omitempty"`
}

type wireDown struct {
	Server string     `json:"server"`
	State  host.State `json:"state"`
	Err    string     `json:"err,omitempty"`
}

type wireCall struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Sent   bool   `json:"sent"`
	Err    string `json:"err"`
	// Cause is the kind of Err: canceled, deadline, closed, or rpc (a
	// JSON-RPC error with Code); "" for anything else.
	Cause string `json:"cause,omitempty"`
	Code  int64  `json:"code,omitempty"`
}

// Kinds of error that are a sentinel of host's or the context's.
var sentinels = map[string]error{
	"unknown-tool":    host.ErrUnknownTool,
	"bad-arguments":   host.ErrBadArguments,
	"closed":          host.ErrClosed,
	"not-started":     host.ErrNotStarted,
	"protocol":        host.ErrProtocol,
	"connection-lost": host.ErrConnectionLost,
	"unavailable":     host.ErrUnavailable,
	"canceled":        context.Canceled,
	"deadline":        context.DeadlineExceeded,
	"unknown-server":  errUnknownServer,
	"draining":        errDraining,
}

// errUnknownServer is a server name the daemon's host does not have.
var errUnknownServer = errors.New("unknown server")

// errDraining is a request to a daemon that is stopping.
var errDraining = errors.New("the daemon is stopping")

// encodeError is err as it crosses the socket.
func encodeError(err error) wireError {
	w := wireError{Error: err.Error(), Kind: "other"}
	var ne *host.NameError
	var de *host.DownError
	var ce *host.CallError
	switch {
	case errors.As(err, &ne):
		w.Kind, w.Name = "name", &wireName{Kind: ne.Kind, Name: ne.Name, Near: ne.Near, Ambiguous: ne.Ambiguous}
		return w
	case errors.As(err, &de):
		w.Kind, w.Down = "down", &wireDown{Server: de.Server, State: de.State}
		if de.Err != nil {
			w.Down.Err = de.Err.Error()
		}
		return w
	case errors.As(err, &ce):
		w.Call = &wireCall{Server: ce.Server, Tool: ce.Tool, Sent: ce.Sent, Err: ce.Err.Error()}
		var rpc *jsonrpc.Error
		switch {
		case errors.Is(ce.Err, context.Canceled):
			w.Call.Cause = "canceled"
		case errors.Is(ce.Err, context.DeadlineExceeded):
			w.Call.Cause = "deadline"
		case errors.Is(ce.Err, host.ErrClosed):
			w.Call.Cause = "closed"
		case errors.As(ce.Err, &rpc):
			w.Call.Cause, w.Call.Code = "rpc", rpc.Code
		}
	}
	// The most telling kind first: a CallError is also what it wraps.
	for _, k := range []string{"unknown-tool", "bad-arguments", "not-started", "protocol", "connection-lost", "unavailable", "canceled", "deadline", "closed", "unknown-server", "draining"} {
		if errors.Is(err, sentinels[k]) {
			w.Kind = k
			break
		}
	}
	return w
}

// decode rebuilds the error the daemon sent: the same text, and the same
// answers to errors.Is and errors.As for host's kinds.
func (w wireError) decode() error {
	switch {
	case w.Name != nil:
		return &host.NameError{Kind: w.Name.Kind, Name: w.Name.Name, Near: w.Name.Near, Ambiguous: w.Name.Ambiguous}
	case w.Down != nil:
		de := &host.DownError{Server: w.Down.Server, State: w.Down.State}
		if w.Down.Err != "" {
			de.Err = errors.New(w.Down.Err)
		}
		return de
	case w.Call != nil:
		var inner error = errors.New(w.Call.Err)
		switch w.Call.Cause {
		case "canceled":
			inner = &remoteError{w.Call.Err, context.Canceled}
		case "deadline":
			inner = &remoteError{w.Call.Err, context.DeadlineExceeded}
		case "closed":
			inner = &remoteError{w.Call.Err, host.ErrClosed}
		case "rpc":
			inner = &jsonrpc.Error{Code: w.Call.Code, Message: w.Call.Err}
		}
		ce := &host.CallError{Server: w.Call.Server, Tool: w.Call.Tool, Sent: w.Call.Sent, Err: inner}
		if ce.Error() == w.Error {
			return ce
		}
		return &remoteError{w.Error, ce}
	}
	if s, ok := sentinels[w.Kind]; ok {
		return &remoteError{w.Error, s}
	}
	return errors.New(w.Error)
}

// remoteError is an error's text as the daemon said it, and what it is.
type remoteError struct {
	msg string
	err error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.err }

// writeError answers a request with err.
func writeError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(encodeError(err))
}

// statusOf is the HTTP status that goes with err.
func statusOf(err error) int {
	var ne *host.NameError
	switch {
	case errors.As(err, &ne), errors.Is(err, errUnknownServer):
		return http.StatusNotFound
	case errors.Is(err, errDraining):
		return http.StatusServiceUnavailable
	case errors.Is(err, errBadRequest):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// errBadRequest is a request the daemon could not read.
var errBadRequest = errors.New("bad request")

func badRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBadRequest, fmt.Sprintf(format, args...))
}

// The bodies of the control API's requests.
type (
	toolsRequest struct {
		Filter host.ViewFilter `json:"filter"`
		Query  string          `json:"query,omitempty"`
		Limit  int             `json:"limit,omitempty"`
		Search bool            `json:"search,omitempty"`
	}
	findRequest struct {
		Filter host.ViewFilter `json:"filter"`
		Kind   host.Kind       `json:"kind"`
		Name   string          `json:"name"`
	}
	callRequest struct {
		Filter host.ViewFilter `json:"filter"`
		Name   string          `json:"name"`
		// Args is a JSON value; ArgsText is text a caller gave as text
		// (a string or bytes), for the host to judge as it would.
		Args     json.RawMessage `json:"args,omitempty"`
		ArgsText *string         `json:"argsText,omitempty"`
	}
	readRequest struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	promptRequest struct {
		Server string            `json:"server"`
		Name   string            `json:"name"`
		Args   map[string]string `json:"args,omitempty"`
	}
)

// callLine is one line of a call's NDJSON answer: progress reports, then
// the result, with the error when the call failed.
type callLine struct {
	Progress *host.Progress  `json:"progress,omitempty"`
	Message  string          `json:"message,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    *wireError      `json:"error,omitempty"`
}

// resourcesReply is GET /v1/resources's answer.
type resourcesReply struct {
	Resources []host.Resource         `json:"resources"`
	Templates []host.ResourceTemplate `json:"templates"`
}

// wirePrompt is a host.Prompt with its exposed name, which host.Prompt's
// own JSON leaves out.
type wirePrompt struct {
	Exposed string `json:"exposed"`
	host.Prompt
}

// wireStatus decodes host.Status, whose MarshalJSON writes ConnectTime
// in milliseconds.
type wireStatus struct {
	plainStatus
	ConnectTime float64 `json:"connectTimeMs"`
}

type plainStatus host.Status

func (s wireStatus) status() host.Status {
	st := host.Status(s.plainStatus)
	st.ConnectTime = time.Duration(s.ConnectTime * float64(time.Millisecond))
	return st
}
