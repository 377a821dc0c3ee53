// Package benchpeer is the floor server of the speed harness (cmd/bench): an
// MCP server that answers every call with a canned result in well under a
// microsecond, so a client's measured time is the client's own.
//
// It reads and writes JSON-RPC lines by hand instead of through an SDK:
// Members finds a message's id and method without decoding it, and the
// answers are byte templates with the id copied in. It speaks MCP just
// well enough for a client to connect, list its one tool and call it:
// initialize, notifications, tools/list, tools/call and ping; any other
// request is answered "method not found".
package benchpeer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ToolName is the floor server's one tool. It takes any arguments and
// answers CannedText.
const ToolName = "echo"

// CannedText is the text every call of ToolName returns.
const CannedText = "hello"

// DefaultProtocolVersion is answered to an initialize that names no version.
const DefaultProtocolVersion = "2025-11-25"

// maxLine bounds one incoming line: a floor server that is sent more has
// met a client gone wrong, and says so instead of growing without end.
const maxLine = 16 << 20

// Pieces of the answers. Each answer is head + id + the method's tail.
var (
	head     = []byte(`{"jsonrpc":"2.0","id":`)
	callTail = []byte(`,"result":{"content":[{"type":"text","text":"` + CannedText + `"}]}}`)
	listTail = []byte(`,"result":{"tools":[{"name":"` + ToolName + `","description":"Answers ` + CannedText + `, whatever it is given.",` +
		`"inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}}`)
	pingTail     = []byte(`,"result":{}}`)
	unknownTail  = []byte(`,"error":{"code":-32601,"message":"method not found"}}`)
	initHead     = []byte(`,"result":{"protocolVersion":`)
	initTail     = []byte(`,"capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"0"}}}`)
	nullID       = []byte(`null`)
	invalidTail  = []byte(`,"error":{"code":-32700,"message":"parse error"}}`)
	defaultProto = []byte(`"` + DefaultProtocolVersion + `"`)
)

// Methods, as they are written in a message: quoted.
var (
	methodInitialize = []byte(`"initialize"`)
	methodCall       = []byte(`"tools/call"`)
	methodList       = []byte(`"tools/list"`)
	methodPing       = []byte(`"ping"`)
)

// Answer appends to dst the answer to one JSON-RPC message, without its
// line end, and reports whether the message wants one: notifications and
// responses to the server's (never sent) requests get none.
func Answer(dst, msg []byte) ([]byte, bool) {
	var id, method, params []byte
	err := Members(msg, func(key, value []byte) {
		switch string(key) {
		case "id":
			id = value
		case "method":
			method = value
		case "params":
			params = value
		}
	})
	if err != nil {
		dst = append(dst, head...)
		dst = append(dst, nullID...)
		return append(dst, invalidTail...), true
	}
	if id == nil || method == nil {
		return dst, false
	}
	dst = append(dst, head...)
	dst = append(dst, id...)
	switch {
	case bytes.Equal(method, methodCall):
		dst = append(dst, callTail...)
	case bytes.Equal(method, methodList):
		dst = append(dst, listTail...)
	case bytes.Equal(method, methodPing):
		dst = append(dst, pingTail...)
	case bytes.Equal(method, methodInitialize):
		dst = append(dst, initHead...)
		dst = append(dst, protocolVersion(params)...)
		dst = append(dst, initTail...)
	default:
		dst = append(dst, unknownTail...)
	}
	return dst, true
}

// protocolVersion is the version the client asked for, as written, so any
// client gets the version it speaks; the default when it asked for none.
func protocolVersion(params []byte) []byte {
	v := defaultProto
	if params == nil {
		return v
	}
	_ = Members(params, func(key, value []byte) {
		// A string without escapes: the answer copies it as it is.
		if string(key) == "protocolVersion" && len(value) > 2 && value[0] == '"' &&
			bytes.IndexByte(value[1:len(value)-1], '\\') < 0 && bytes.IndexByte(value[1:len(value)-1], '"') < 0 {
			v = value
		}
	})
	return v
}

// ServeStdio answers the messages read from r, one per line, on w until r
// ends. Answers are flushed whenever no more input is waiting, so callers
// that pipeline requests get their answers in few writes.
func ServeStdio(r io.Reader, w io.Writer) error {
	in := bufio.NewReaderSize(r, 64<<10)
	out := bufio.NewWriterSize(w, 64<<10)
	var long []byte // a line longer than in's buffer, gathered
	for {
		line, err := in.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(line) > maxLine {
				return fmt.Errorf("a line of more than %d bytes", maxLine)
			}
			long = append(long, line...)
			continue
		}
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			var ok bool
			buf := out.AvailableBuffer()
			if buf, ok = Answer(buf, msg); ok {
				buf = append(buf, '\n')
				if _, werr := out.Write(buf); werr != nil {
					return werr
				}
			}
		}
		if err != nil {
			if ferr := out.Flush(); ferr != nil {
				return ferr
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				return err
			}
		}
	}
}
