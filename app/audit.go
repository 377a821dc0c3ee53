package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// AuditOptions configure the audit trail (Options.Audit): one JSON line
// per tool call, prompt get and resource read a client made through the
// gateway, however it ended (DESIGN.md, "Operations").
type AuditOptions struct {
	// File is where the lines are appended (created mode 0600). Required.
	File string
	// Args writes the arguments' values, with every secret the host knows
	// masked. False writes only their digest (sha256 of their JSON).
	Args bool
	// MaxSize rotates the file when a line would take it past this many
	// bytes: it becomes File.1 (replacing the one before) and a new File
	// is begun. Zero never rotates: leave it to logrotate, and call
	// App.ReopenAudit when it moved the file.
	MaxSize int64
}

// AuditLine is one line of the audit trail.
type AuditLine struct {
	Time    time.Time       `json:"time"`
	Method  string          `json:"method"`            // tools/call, prompts/get, resources/read
	Session string          `json:"session,omitempty"` // the client's session id; none over stdio and in the new era
	User    string          `json:"user,omitempty"`    // the authenticated user (a token's subject); none for the shared token
	View    *auditView      `json:"view,omitempty"`    // the client's view, when it is not the whole gateway
	Server  string          `json:"server"`
	Name    string          `json:"name"`                  // the server's own tool or prompt name, or the URI read
	ArgsSHA string          `json:"args_sha256,omitempty"` // of the arguments' JSON
	Args    json.RawMessage `json:"args,omitempty"`        // with AuditOptions.Args, secrets masked
	Outcome string          `json:"outcome"`               // Outcome's words
	Error   string          `json:"error,omitempty"`       // the host's message, secrets masked
	Millis  float64         `json:"duration_ms"`
	Size    int             `json:"result_bytes"` // of the result's JSON
}

type auditView struct {
	Servers []string `json:"servers,omitempty"`
	Allow   []string `json:"tools_allow,omitempty"`
	Deny    []string `json:"tools_deny,omitempty"`
}

// Outcome names how a call ended, in the host's error taxonomy
// (host/errors.go): ok, tool_error (the server's own IsError result),
// protocol_error, connection_lost, unavailable, timeout, cancelled,
// closed, unknown (no such tool), bad_arguments, refused (the app was
// draining), rate_limited (gateway.Limits), or error.
func Outcome(res mcp.Result, err error) string {
	switch {
	case err == nil:
		if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
			return "tool_error"
		}
		return "ok"
	case errors.Is(err, ErrDraining):
		return "refused"
	case errors.Is(err, gateway.ErrRateLimited):
		return "rate_limited"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, host.ErrClosed):
		return "closed"
	case errors.Is(err, host.ErrProtocol):
		return "protocol_error"
	case errors.Is(err, host.ErrConnectionLost):
		return "connection_lost"
	case errors.Is(err, host.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, host.ErrUnknownTool):
		return "unknown"
	case errors.Is(err, host.ErrBadArguments):
		return "bad_arguments"
	}
	return "error"
}

// auditLog appends lines to a file: one write per line under a mutex, on
// a file opened O_APPEND, so no line is torn by another writer of ours,
// nor (for lines under PIPE_BUF-sized writes on local filesystems) by
// another process appending.
type auditLog struct {
	opts   AuditOptions
	redact func(string) string

	mu   sync.Mutex
	f    *os.File
	size int64
}

func openAudit(opts AuditOptions, redact func(string) string) (*auditLog, error) {
	if opts.File == "" {
		return nil, errors.New("audit log: no file named")
	}
	l := &auditLog{opts: opts, redact: redact}
	if err := l.openLocked(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *auditLog) openLocked() error {
	f, err := os.OpenFile(l.opts.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit log: %w", err)
	}
	l.f, l.size = f, st.Size()
	return nil
}

// reopen closes the file and opens File again: logrotate moved it.
func (l *auditLog) reopen() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
	return l.openLocked()
}

func (l *auditLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// line makes the audit line of a call that began at start.
func (l *auditLog) line(c gateway.Call, start time.Time, end gateway.CallEnd) AuditLine {
	line := AuditLine{Time: start.UTC(), Method: c.Method, Session: c.Session, User: c.User, Server: c.Server, Name: c.Name,
		Outcome: Outcome(end.Result, end.Err), Millis: float64(time.Since(start).Microseconds()) / 1000}
	if f := c.View; len(f.Servers) > 0 || len(f.Tools.Allow) > 0 || len(f.Tools.Deny) > 0 {
		line.View = &auditView{Servers: f.Servers, Allow: f.Tools.Allow, Deny: f.Tools.Deny}
	}
	if c.Arguments != nil {
		if args, err := json.Marshal(c.Arguments); err == nil && string(args) != "null" {
			sum := sha256.Sum256(args)
			line.ArgsSHA = hex.EncodeToString(sum[:])
			if l.opts.Args {
				masked, _ := json.Marshal(l.redact(string(args)))
				line.Args = json.RawMessage(masked) // a string: masking may have cut the JSON's structure
			}
		}
	}
	if end.Err != nil {
		line.Error = l.redact(end.Err.Error())
	}
	if end.Result != nil {
		line.Size = jsonSize(end.Result)
	}
	return line
}

// byteCounter is an io.Writer that only counts.
type byteCounter int

func (n *byteCounter) Write(p []byte) (int, error) { *n += byteCounter(len(p)); return len(p), nil }

// jsonSize is the length of v's JSON, 0 when it has none. An Encoder
// writes from encoding/json's pooled buffer, so the JSON is never copied
// out as json.Marshal's result is.
func jsonSize(v any) int {
	var n byteCounter
	if err := json.NewEncoder(&n).Encode(v); err != nil {
		return 0
	}
	return int(n) - 1 // Encode's newline
}

// maxPooledLine is the largest buffer lineBufs keeps.
const maxPooledLine = 64 << 10

// lineBufs are the buffers lines are encoded into, reused: a line is
// written from one in a single write.
var lineBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// write appends line as one write, rotating first when MaxSize says so.
func (l *auditLog) write(line AuditLine) error {
	buf := lineBufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledLine { // a line with large arguments is not kept
			lineBufs.Put(buf)
		}
	}()
	if err := json.NewEncoder(buf).Encode(line); err != nil { // as json.Marshal writes it, and a newline
		return fmt.Errorf("audit log: %w", err)
	}
	b := buf.Bytes()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		if err := l.openLocked(); err != nil {
			return err
		}
	}
	if l.opts.MaxSize > 0 && l.size > 0 && l.size+int64(len(b)) > l.opts.MaxSize {
		if err := l.rotateLocked(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(b)
	l.size += int64(n)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	return nil
}

func (l *auditLog) rotateLocked() error {
	l.f.Close()
	l.f = nil
	if err := os.Rename(l.opts.File, l.opts.File+".1"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("audit log: rotate: %w", err)
	}
	return l.openLocked()
}
