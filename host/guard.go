package host

import (
	"errors"
	"fmt"
)

// ErrHandler is wrapped by the error a server is answered with when one of
// the embedder's callbacks (Options.Sampling, SamplingWithTools, Elicitation, ListRoots,
// Authorize, a WithProgress function) panicked or returned no result and
// no error. The host never lets a callback take the process down: the
// server gets an error, and the server's log (EventLog) and the host's
// logger say what happened.
var ErrHandler = errors.New("handler failed")

// guard runs one of the embedder's callbacks for server s: a panic becomes
// an error wrapping ErrHandler, and so does a nil result with a nil error
// unless nilOK. Either is reported in the server's log.
func guard[T any](h *Host, s *server, what string, nilOK bool, f func() (*T, error)) (res *T, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("%w: %s handler panicked: %v", ErrHandler, what, p)
			h.handlerFailed(s, err)
		}
	}()
	res, err = f()
	if res == nil && err == nil && !nilOK {
		err = fmt.Errorf("%w: %s handler returned no result", ErrHandler, what)
		h.handlerFailed(s, err)
	}
	return res, err
}

// guardCall runs a callback with no result, for its side effects: a panic
// is reported and swallowed.
func (h *Host) guardCall(s *server, what string, f func()) {
	guard(h, s, what, true, func() (*struct{}, error) { f(); return nil, nil })
}

// handlerFailed reports a callback's failure to the host's logger and,
// with s (nil for a callback that has no server entry at hand: Authorize,
// whose error becomes the server's state), to its log.
func (h *Host) handlerFailed(s *server, err error) {
	if s == nil {
		h.log.Error("handler failed", "error", err)
		return
	}
	h.log.Error("handler failed", "server", s.cfg.Name, "error", err)
	h.addLog(s, LogLine{Level: LevelError, Text: err.Error()})
}
