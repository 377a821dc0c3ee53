package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// maxSkippedLine bounds how much of a skipped stdout line is reported.
const maxSkippedLine = 512

// maxFrame bounds one JSON-RPC frame, as go-sdk's own line reader does; a
// longer line is dropped and reported rather than buffered without end.
const maxFrame = mcp.DefaultMaxLineLength

// jsonLineFilter passes through the lines of a server's stdout that are JSON
// and drops the others, reporting each dropped line. go-sdk treats any
// non-JSON line as a fatal protocol error, yet servers print banners and
// debug output to stdout (DESIGN.md F17).
type jsonLineFilter struct {
	rc      io.ReadCloser
	br      *bufio.Reader
	skipped func(string)
	line    []byte // the current frame, reused between lines
	pending []byte // the part of a frame not yet handed to the reader
}

func newJSONLineFilter(rc io.ReadCloser, skipped func(string)) *jsonLineFilter {
	return &jsonLineFilter{rc: rc, br: bufio.NewReaderSize(rc, 64*1024), skipped: skipped}
}

func (f *jsonLineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if err := f.nextFrame(); err != nil {
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// nextFrame reads lines until one is valid JSON and makes it pending, with
// its newline. Blank lines are dropped silently, other lines reported.
func (f *jsonLineFilter) nextFrame() error {
	f.line = f.line[:0]
	tooLong := false
	for {
		chunk, err := f.br.ReadSlice('\n')
		if len(f.line)+len(chunk) <= maxFrame {
			f.line = append(f.line, chunk...)
		} else {
			tooLong = true
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && len(f.line) == 0 {
			return err
		}
		break // a whole line, or the last one before EOF
	}
	trimmed := bytes.TrimSpace(f.line)
	switch {
	case len(trimmed) == 0:
	case tooLong:
		f.report(fmt.Sprintf("line over %d bytes", maxFrame), trimmed)
	case isFrame(trimmed):
		f.pending = append(trimmed, '\n')
	default:
		f.report("", trimmed)
	}
	return nil
}

func (f *jsonLineFilter) report(why string, line []byte) {
	if f.skipped == nil {
		return
	}
	text := string(line[:min(len(line), maxSkippedLine)])
	if why != "" {
		text = why + ": " + text
	}
	f.skipped(text)
}

func (f *jsonLineFilter) Close() error { return f.rc.Close() }

// isFrame reports whether a line can be a JSON-RPC message or batch: valid
// JSON, an object or an array, naming the protocol. A server's JSON log
// line ({"level":30,"msg":…}) or a stray number is valid JSON too, and
// would end the session if passed on.
func isFrame(line []byte) bool {
	if len(line) == 0 || (line[0] != '{' && line[0] != '[') {
		return false
	}
	return bytes.Contains(line, []byte(`"jsonrpc"`)) && json.Valid(line)
}
