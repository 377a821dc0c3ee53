package transport

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// A stdio server's messages are decoded here, once, from the filter's own
// scan of the line (DESIGN.md, "Messages from servers"). go-sdk's reader
// decoded every message twice, first as a batch, each time with a new
// decoder that allocates a 32 KiB buffer; here params and result are
// slices of the line, which the message keeps.

// decode builds the message in line, a line the filter passes (isFrame)
// that s scanned whole: what jsonrpc.DecodeMessage builds from it, with
// params and result taken in place. One difference: a reply whose error
// is not an error object, which ends go-sdk's session, becomes an error
// that says so, and fails only its own call.
func (s *frameScan) decode(line []byte) jsonrpc.Message {
	id, _ := s.requestID() // null, for a notification, is no id
	if s.method.seen {
		return &jsonrpc.Request{ID: id, Method: s.method.text(), Params: s.params.in(line)}
	}
	resp := &jsonrpc.Response{ID: id, Result: s.result.in(line)}
	if raw := s.errv.in(line); raw != nil {
		if werr := decodeError(raw); werr != nil {
			resp.Error = werr
		}
	}
	return resp
}

// in is the span's bytes in line, or nil when the member was absent.
func (sp span) in(line []byte) json.RawMessage {
	if !sp.seen {
		return nil
	}
	return line[sp.start:sp.end:sp.end]
}

// decodeError reads a reply's error member as go-sdk does: null is no
// error; an object's code, message and data, by their exact names (go-sdk
// matches names case-sensitively, encoding/json would not). What go-sdk
// cannot read is an error saying so.
func decodeError(raw []byte) *jsonrpc.Error {
	if string(raw) == "null" {
		return nil
	}
	var members map[string]json.RawMessage
	werr := &jsonrpc.Error{}
	ok := json.Unmarshal(raw, &members) == nil && members != nil
	if code, has := members["code"]; ok && has {
		ok = json.Unmarshal(code, &werr.Code) == nil
	}
	if msg, has := members["message"]; ok && has {
		ok = json.Unmarshal(msg, &werr.Message) == nil
	}
	if data, has := members["data"]; ok && has {
		werr.Data = data
	}
	if !ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server's error reply is malformed: " + clip.Text(string(raw))}
	}
	return werr
}

// decodeBatch builds the messages of a batch line (a JSON array the filter
// passes), each as decode does; an element that is no message go-sdk can
// decode is reported through skip and left out, where go-sdk would end the
// session. The elements' bytes are the messages' own.
func decodeBatch(line []byte, skip func(why string, elem []byte)) []jsonrpc.Message {
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil || len(elems) == 0 {
		skip("empty batch", line)
		return nil
	}
	msgs := make([]jsonrpc.Message, 0, len(elems))
	var s frameScan
	for _, elem := range elems {
		s.reset()
		s.feed(elem)
		if s.top != '{' || !s.decodable() || !bytes.Contains(elem, []byte(`"jsonrpc"`)) {
			skip("batch element", elem)
			continue
		}
		msgs = append(msgs, s.decode(elem))
	}
	return msgs
}
