package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"

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

// maxRead is the most a session's reader reads at once: what it reads
// past maxPending is at most one read's requests.
const maxRead = 4 << 10

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

// One attached client that stops reading must stall no one else: go-sdk
// sends a list change to its sessions one after another, and the
// transport holds its lock through a write. So every write to an attached
// client is bounded (writeTimeout), and one that times out ends that
// session. And a client that sends requests but reads no answers must not
// make the daemon hold them all: past maxPending unanswered requests, the
// daemon reads no more of that session's until answers drain.
var (
	writeTimeout = 5 * time.Second // as the gateway's clientWriteTimeout
	maxPending   = 128
	held         func(pending int) // told when a session's reader waits, for tests
)

// session counts one attached session's requests into all.
type session struct {
	all  *flights
	conn net.Conn

	mu       sync.Mutex
	room     *sync.Cond // signalled when pending drops or the session ends
	pending  int
	closed   bool
	timedOut bool   // a write took longer than writeTimeout
	line     []byte // the request line read so far
	over     bool   // the line is past maxCounted
}

func newSession(all *flights, conn net.Conn) *session {
	s := &session{all: all, conn: conn}
	s.room = sync.NewCond(&s.mu)
	return s
}

// Close ends the session's connection and wakes its reader, once.
func (s *session) Close() error {
	s.mu.Lock()
	was := s.closed
	s.closed = true
	s.room.Broadcast()
	s.mu.Unlock()
	if was {
		return nil
	}
	return s.conn.Close()
}

// wait returns once the session has fewer than maxPending requests
// unanswered, or has ended (false).
func (s *session) wait() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending >= maxPending && !s.closed && held != nil {
		held(s.pending)
	}
	for s.pending >= maxPending && !s.closed {
		s.room.Wait()
	}
	return !s.closed
}

// end takes what the session left unanswered off the count.
func (s *session) end() {
	s.mu.Lock()
	n := s.pending
	s.pending = 0
	s.room.Broadcast()
	s.mu.Unlock()
	s.all.add(-n)
}

func (s *session) count(n int) {
	s.mu.Lock()
	s.pending += n
	if n < 0 {
		s.room.Broadcast()
	}
	s.mu.Unlock()
	s.all.add(n)
}

// reader counts the requests (calls, with an id) the client sends, and
// reads no more while maxPending of them are unanswered.
type reader struct {
	io.Reader
	s *session
}

func (r reader) Read(p []byte) (int, error) {
	if !r.s.wait() {
		return 0, io.EOF
	}
	if len(p) > maxRead {
		p = p[:maxRead]
	}
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

// writer counts the answers the gateway writes to the client. Each
// write has writeTimeout to finish; one that fails ends the session, so
// that the writes to other sessions go on.
type writer struct {
	s *session
}

func (w writer) Write(p []byte) (int, error) {
	if err := w.s.conn.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		w.s.Close()
		return 0, err
	}
	n, err := w.s.conn.Write(p)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			w.s.mu.Lock()
			w.s.timedOut = true
			w.s.mu.Unlock()
		}
		w.s.Close()
		return n, err
	}
	if isAnswer(p) {
		w.s.count(-1)
	}
	return n, nil
}

// stalled reports whether the session ended because a write timed out.
func (s *session) stalled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.timedOut
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
