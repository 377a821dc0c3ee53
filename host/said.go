package host

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/host/internal/transport"
)

// What a failed server said is quoted where a person looks: the ERROR
// column and the failure a client is told of (DESIGN.md F17). A handful of
// lines: enough to recognise "cannot open database", never a dump.
const (
	// tailLines is how many of a process's last stderr lines are kept.
	tailLines = 20
	// tailLine is the most of one line kept (after masking): room for a
	// line that lists a process's settings, a quarter of what the log keeps.
	tailLine = 2 << 10
	// saidLines is how many of them a failure quotes.
	saidLines = 2
	// eventStderrLines is how many a drop's or a failure's event carries.
	eventStderrLines = 5
)

// stderrTail keeps a process's last stderr lines, already masked.
type stderrTail struct {
	mu    sync.Mutex
	lines []string
}

func (t *stderrTail) add(masked string) {
	if strings.TrimSpace(masked) == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == tailLines {
		t.lines = append(t.lines[:0], t.lines[1:]...)
	}
	t.lines = append(t.lines, cutLogLine(masked, tailLine))
}

// last is up to n of the newest lines, oldest first.
func (t *stderrTail) last(n int) []string {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines[max(0, len(t.lines)-n):]...)
}

// said is what a process's stderr says of why it ended: its last lines
// that name an error, else its last line that is not a stack frame
// ("    at …", "  File …") or a runtime's sign-off ("Node.js v22.1.0").
func (t *stderrTail) said() []string {
	var plain, errs []string
	for _, l := range t.last(tailLines) {
		trimmed := strings.TrimSpace(l)
		if l != strings.TrimLeft(l, " \t") || strings.Trim(trimmed, "^~-=*#") == "" || strings.HasPrefix(trimmed, "Node.js v") {
			continue
		}
		plain = append(plain, trimmed)
		if classify(trimmed) == LevelError {
			errs = append(errs, trimmed)
		}
	}
	switch {
	case len(errs) > 0:
		return errs[max(0, len(errs)-saidLines):]
	case len(plain) > 0:
		return plain[len(plain)-1:]
	}
	return t.last(1) // only frames: the last is better than nothing
}

// exitedError is a process that ended by itself, with what it said: the
// cause a person can act on, where the protocol error it led to
// (`calling "initialize": EOF`) tells them nothing. The protocol error
// stays in the chain.
type exitedError struct {
	status string   // "status 1"
	said   []string // masked
	err    error
}

func (e *exitedError) Error() string {
	msg := "exited (" + e.status + ")"
	if len(e.said) > 0 {
		msg += ": " + strings.Join(e.said, " | ")
	}
	return msg
}

func (e *exitedError) Unwrap() error { return e.err }

// stdioProc is a server's process with the tail of its stderr.
type stdioProc struct {
	*transport.Stdio
	tail *stderrTail
}

// exitedFirst reports whether the process ended before the host asked it
// to. A handshake that read EOF did so because the process closed its
// stdout, nearly always by exiting: that is given the stdin grace to
// finish, which a process that is only slow to be reaped needs.
func (p *stdioProc) exitedFirst(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		timer := time.NewTimer(transport.StdinGrace)
		defer timer.Stop()
		select {
		case <-p.Exited():
		case <-timer.C:
		}
	}
	select {
	case <-p.Exited():
		return true
	default:
		return false
	}
}

// ended is err told as the process's own ending, once the process has
// ended (ExitErr waits for it): it exited with a status, and said why on
// stderr. A process ended by a signal keeps err, which says more than
// "killed" — the host's own close sends one.
func (p *stdioProc) ended(err error) error {
	status := "status 0"
	if exit := p.ExitErr(); exit != nil {
		var ee *exec.ExitError
		if !errors.As(exit, &ee) {
			return err
		}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return err
		}
		status = fmt.Sprintf("status %d", ee.ExitCode())
	}
	return &exitedError{status: status, said: p.tail.said(), err: err}
}
