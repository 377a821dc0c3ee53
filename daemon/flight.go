package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The app's drain waits for each call's result, not for the reply that
// carries it to the client: go-sdk writes that after the handler
// returned. Ending an attached session then would drop the reply, and
// ending its input first makes go-sdk refuse to write at all. So the
// daemon counts, across its attached sessions, the client's requests
// not yet answered, and ends the sessions once none is left (or the
// drain's time is up).

// maxCounted is the longest request line counted: a longer one (a huge
// argument) is not waited for at the end.
const maxCounted = 1 << 20

// flights counts the unanswered requests of every attached session.
type flights struct {
	mu      sync.Mutex
	pending int
	zero    chan struct{} // closed when pending reaches 0 while waited for
}

func (f *flights) add(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending += n
	if f.pending <= 0 && f.zero != nil {
		close(f.zero)
		f.zero = nil
	}
}

// wait returns once no request is unanswered, or ctx ends.
func (f *flights) wait(ctx context.Context) {
	f.mu.Lock()
	if f.pending <= 0 {
		f.mu.Unlock()
		return
	}
	if f.zero == nil {
		f.zero = make(chan struct{})
	}
	zero := f.zero
	f.mu.Unlock()
	select {
	case <-zero:
	case <-ctx.Done():
	}
}

// session counts one attached session's requests into all.
type session struct {
	all *flights

	mu      sync.Mutex
	pending int
	line    []byte // the request line read so far
	over    bool   // the line is past maxCounted
}

// end takes what the session left unanswered off the count.
func (s *session) end() {
	s.mu.Lock()
	n := s.pending
	s.pending = 0
	s.mu.Unlock()
	s.all.add(-n)
}

func (s *session) count(n int) {
	s.mu.Lock()
	s.pending += n
	s.mu.Unlock()
	s.all.add(n)
}

// reader counts the requests (calls, with an id) the client sends.
type reader struct {
	io.Reader
	s *session
}

func (r reader) Read(p []byte) (int, error) {
	n, err := r.Reader.Read(p)
	rest := p[:n]
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		chunk := rest
		if i >= 0 {
			chunk = rest[:i]
		}
		if !r.s.over {
			if len(r.s.line)+len(chunk) > maxCounted {
				r.s.over, r.s.line = true, r.s.line[:0]
			} else {
				r.s.line = append(r.s.line, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !r.s.over && isCall(r.s.line) {
			r.s.count(1)
		}
		r.s.line, r.s.over = r.s.line[:0], false
		rest = rest[i+1:]
	}
	return n, err
}

// isCall reports whether a client's line is a request that wants an
// answer (go-sdk's decoder: a client orders keys as it likes).
func isCall(line []byte) bool {
	if len(bytes.TrimSpace(line)) == 0 {
		return false
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return false
	}
	req, ok := msg.(*jsonrpc.Request)
	return ok && req.IsCall()
}

// writer counts the answers the gateway writes to the client.
type writer struct {
	io.Writer
	s *session
}

func (w writer) Write(p []byte) (int, error) {
	n, err := w.Writer.Write(p)
	if err == nil && isAnswer(p) {
		w.s.count(-1)
	}
	return n, err
}

// isAnswer reports whether a message the gateway writes (one Write
// each, go-sdk's encoding: jsonrpc, id, then method or result or error)
// is an answer, reading only its first keys.
func isAnswer(msg []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		switch t {
		case "result", "error":
			return true
		case "method", "params":
			return false
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}
