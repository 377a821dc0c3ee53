package bridge

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLine bounds one message, as the gateway's own stdio framing does: a
// peer that never ends a line must not take the bridge's memory.
const maxLine = 64 << 20

// readSize is the reader's buffer: most messages fit, so most lines are
// handed on from it without a copy; a bridge runs once per client app,
// so it stays small.
const readSize = 32 << 10

// keepLong is the most a lineReader keeps between long lines: reusing
// the space of the last one, rather than growing a new one each time,
// keeps a client that reads big results often at a lower peak.
const keepLong = 1 << 20

var errLineTooLong = errors.New("line too long")

// lineReader splits a stream into newline-ended lines, the framing of MCP
// over stdio. The JSON inside is go-sdk's jsonrpc's to read.
type lineReader struct {
	r    *bufio.Reader
	long []byte // a line longer than the buffer, put together
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readSize)}
}

// next returns the next non-blank line with its newline (one is added to
// a last line without), valid until the following call; errLineTooLong
// after skipping one over maxLine.
func (l *lineReader) next() ([]byte, error) {
	for {
		line, err := l.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line, err = l.longLine(line)
		}
		if err == io.EOF && len(line) > 0 {
			line, err = append(line[:len(line):len(line)], '\n'), nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

// longLine reads the rest of a line that filled the buffer into l.long.
func (l *lineReader) longLine(first []byte) ([]byte, error) {
	l.long = append(l.long[:0], first...)
	for {
		part, err := l.r.ReadSlice('\n')
		if len(l.long)+len(part) > maxLine {
			l.long = nil
			for errors.Is(err, bufio.ErrBufferFull) { // skip to the line's end
				_, err = l.r.ReadSlice('\n')
			}
			if err != nil {
				return nil, err
			}
			return nil, errLineTooLong
		}
		l.long = append(l.long, part...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			line := l.long
			if cap(l.long) > keepLong {
				l.long = nil // a rare huge message does not stay in memory
			}
			return line, err
		}
	}
}

// trimLine is line without its line ending, for decoding.
func trimLine(line []byte) []byte {
	return bytes.TrimRight(line, "\r\n")
}
