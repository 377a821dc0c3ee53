package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// readLines calls fn for every line of r, without its newline. A line longer
// than max is cut to max bytes; the rest of it is dropped, so one runaway
// line cannot grow memory.
func readLines(r io.Reader, max int, fn func(string)) {
	br := bufio.NewReaderSize(r, 4096)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line) < max {
			room := max - len(line)
			line = append(line, chunk[:min(len(chunk), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(line) > 0 || err == nil {
			fn(string(bytes.TrimRight(line, "\r\n")))
		}
		line = line[:0]
		if err != nil {
			return
		}
	}
}

// maxSkippedLine bounds how much of a skipped stdout line is reported:
// more than the host shows (512 bytes), which it cuts after masking
// secrets, so a secret across its cut is masked whole.
const maxSkippedLine = 16 << 10

// lineSlack is what a line may hold beyond the message limit: the
// whitespace and line ending around a message that is within it.
const lineSlack = 64

// keepBuffer is the largest line buffer kept for the next line; a larger
// one, left by a large reply, is let go once handed on.
const keepBuffer = 1 << 20

// jsonLineFilter reads the lines of a server's stdout and hands on the
// messages among them, decoded (next); it drops the lines that are not
// JSON, reporting each. go-sdk treats any non-JSON line as a fatal
// protocol error, yet servers print banners and debug output to stdout
// (DESIGN.md F17).
//
// It also keeps go-sdk from seeing a message it would choke on (DESIGN.md
// F24): one over the size limit, which go-sdk's own line limit would turn
// into the end of the session, or one nested deeper than MaxMessageDepth, which
// go-sdk cannot decode and which ends the session too. Such a line is
// streamed past, never held whole, and a reply among them is answered in
// its place with an error response for its id, so its call fails at once
// and says why; any other message is dropped and reported.
//
// Each line is scanned once (frameScan), and a message is decoded from
// that scan (decode): its params and result are slices of the line, which
// the message keeps.
type jsonLineFilter struct {
	rc    io.ReadCloser
	br    *bufio.Reader
	limit int64
	hooks Hooks
	calls *calls // what each pending request asked, for the errors; may be nil
	scan  frameScan
	logs  logBudget
	// logVerdict is the budget's answer for the current line: 0 not asked
	// yet, 1 it passes, -1 it is dropped.
	logVerdict int8
	line       []byte // the current line; a line handed on goes with its message
	// queue holds the messages of the last line not yet handed on, from
	// head; a batch, or a note (logBudget.note) before a message, makes
	// more than one.
	queue []jsonrpc.Message
	head  int
	// batch is the requests of the last batch line, for the connection to
	// answer in one batch (stdioConn.Write); taken by next.
	batch []jsonrpc.ID
}

func newJSONLineFilter(rc io.ReadCloser, limit int64, hooks Hooks, calls *calls) *jsonLineFilter {
	return &jsonLineFilter{rc: rc, br: bufio.NewReaderSize(rc, 64*1024), limit: limit, hooks: hooks, calls: calls, logs: newLogBudget(hooks.NoteLogger)}
}

// next returns the next message for go-sdk, and, with the first message of
// a batch that holds requests, the ids of those requests. It is called
// from one goroutine at a time.
func (f *jsonLineFilter) next() (jsonrpc.Message, []jsonrpc.ID, error) {
	for f.head == len(f.queue) {
		clear(f.queue)
		f.queue, f.head = f.queue[:0], 0
		if err := f.nextFrame(); err != nil {
			return nil, nil, err
		}
	}
	msg := f.queue[f.head]
	f.head++
	batch := f.batch
	f.batch = nil
	return msg, batch, nil
}

// nextFrame reads one line and queues the message it holds, if it is one
// go-sdk can take; or queues the error reply that stands in for it; or
// drops it. Blank lines are dropped silently, other lines reported.
func (f *jsonLineFilter) nextFrame() error {
	if cap(f.line) > keepBuffer {
		f.line = nil
	}
	f.line = f.line[:0]
	f.scan.reset()
	f.scan.pauseAtMethod = true
	f.logVerdict = 0
	var size, ending int64
	over, dropped := false, false
	for {
		chunk, err := f.br.ReadSlice('\n')
		size += int64(len(chunk))
		ending = int64(len(chunk) - len(bytes.TrimRight(chunk, "\r\n")))
		if !dropped {
			dropped = f.scanChunk(chunk)
		}
		switch {
		case over || dropped:
		case int64(len(f.line)+len(chunk)) <= f.limit+lineSlack:
			f.line = append(f.line, chunk...)
		default:
			// Keep the start to report, and let go of the buffer that
			// held up to the limit; stream past the rest.
			over = true
			head := make([]byte, 0, maxSkippedLine)
			head = append(head, f.line[:min(len(f.line), maxSkippedLine)]...)
			f.line = append(head, chunk[:min(len(chunk), maxSkippedLine-len(head))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && size == 0 {
			// Nothing follows to carry a note in order: tell the host
			// directly.
			if line := f.logs.report(time.Now(), true); line != "" {
				f.hooks.dropped(line)
			}
			return err
		}
		break // a whole line, or the last one before EOF
	}
	trimmed := bytes.TrimSpace(f.line)
	if over {
		size -= ending
	} else {
		size = int64(len(trimmed))
	}
	isLog := f.isLog()
	switch {
	case len(trimmed) == 0, dropped:
	case isLog && !f.admitLog():
	case size > f.limit || f.scan.maxDepth > MaxMessageDepth:
		f.refuse(size, trimmed)
	case isFrame(trimmed, &f.scan):
		f.take(trimmed)
	default:
		f.report("", trimmed)
	}
	if len(f.queue) > 0 {
		if line := f.logs.report(time.Now(), !isLog); line != "" {
			if note := f.logs.note(line, f.hooks.dropped); note != nil {
				f.queue = slices.Insert(f.queue, 0, jsonrpc.Message(note))
			}
		}
	}
	return nil
}

// take queues the message or the batch of messages a line holds. The
// messages keep the line, so the next one is read into a new buffer.
func (f *jsonLineFilter) take(trimmed []byte) {
	if trimmed[0] == '{' {
		f.queue = append(f.queue, f.scan.decode(f.line))
		f.line = nil
		return
	}
	msgs := decodeBatch(trimmed, func(why string, elem []byte) { f.report(why, elem) })
	for _, msg := range msgs {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			f.batch = append(f.batch, req.ID)
		}
	}
	f.queue = append(f.queue, msgs...)
}

// scanChunk scans the next chunk of a line and reports whether the line is
// a log notification over the budget, dropped as soon as its method is
// read: the path a flood takes, which neither scans the rest of the line
// nor keeps it.
func (f *jsonLineFilter) scanChunk(chunk []byte) bool {
	n := f.scan.feed(chunk)
	if n == len(chunk) {
		return false
	}
	if f.isLog() && !f.admitLog() {
		return true
	}
	f.scan.feed(chunk[n:])
	return false
}

// isLog reports whether the line, as far as it was scanned, is a log
// notification: a method of notifications/message and, so far, no id.
func (f *jsonLineFilter) isLog() bool {
	return f.scan.message() && !f.scan.id.seen && f.scan.method.is(logMethod)
}

// admitLog asks the budget about the current line, once.
func (f *jsonLineFilter) admitLog() bool {
	if f.logVerdict == 0 {
		f.logVerdict = -1
		if f.logs.allow(time.Now()) {
			f.logVerdict = 1
		}
	}
	return f.logVerdict > 0
}

// refuse deals with a line too large or too deep to pass on: a reply
// becomes an error reply for its id, another message is dropped with a
// line in the server's log, and a line that is no message is skipped like
// any other.
func (f *jsonLineFilter) refuse(size int64, head []byte) {
	reply, note, message := verdict(&f.scan, size, f.limit, f.calls)
	if !message {
		f.report("line "+note, head)
		return
	}
	if reply != nil {
		f.queue = append(f.queue, reply)
	}
	f.hooks.dropped(note)
}

func (f *jsonLineFilter) report(why string, line []byte) {
	text := string(line[:min(len(line), maxSkippedLine)])
	if why != "" {
		text = why + ": " + text
	}
	f.hooks.skipped(text)
}

func (f *jsonLineFilter) Close() error { return f.rc.Close() }

// isFrame reports whether a line holds what go-sdk can take: valid JSON,
// and a message or batch it can decode (frameScan.decodable), naming the
// protocol. A server's JSON log line ({"level":30,"msg":…}) or a stray
// number is valid JSON too, and would end the session if passed on.
func isFrame(line []byte, scan *frameScan) bool {
	if len(line) == 0 || (line[0] != '{' && line[0] != '[') {
		return false
	}
	return scan.decodable() && bytes.Contains(line, []byte(`"jsonrpc"`)) && json.Valid(line)
}
