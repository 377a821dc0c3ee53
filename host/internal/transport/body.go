package transport

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DecodeBody decodes data, the whole body of an HTTP POST, as the one
// JSON-RPC message it holds: one scan, as a stdio line is decoded
// (decode), params and result slices of data, with no 32 KiB decoder.
// It reports false for anything else (a batch, invalid JSON, nesting past
// MaxMessageDepth, no message go-sdk could decode), which the caller
// leaves to go-sdk's own reading and its answers.
func DecodeBody(data []byte) (jsonrpc.Message, bool) {
	s := getScan()
	defer putScan(s)
	s.feed(data)
	if s.top != '{' || s.maxDepth > MaxMessageDepth || !s.decodable() || !json.Valid(data) {
		return nil, false
	}
	return s.decode(data), true
}

// AppendMessage appends msg to dst as jsonrpc.EncodeMessage encodes it,
// the plain messages of a call without EncodeMessage's reflection and
// second pass over params or result (appendMessage).
func AppendMessage(dst []byte, msg jsonrpc.Message) ([]byte, error) {
	return appendMessage(dst, msg)
}
