package host

import (
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/host/internal/transport"
)

// DecodeMessage decodes data, a whole HTTP body, as one JSON-RPC message
// in one pass, params and result slices of data, as the host decodes its
// stdio servers' lines (DESIGN.md, "Messages from servers"). It reports
// false for a batch, invalid JSON, nesting too deep or a message go-sdk
// could not decode: those are for go-sdk's own reading, and its answers.
func DecodeMessage(data []byte) (jsonrpc.Message, bool) {
	return transport.DecodeBody(data)
}

// AppendMessage appends msg to dst as jsonrpc.EncodeMessage encodes it;
// a call's plain request or reply is written without reflection.
func AppendMessage(dst []byte, msg jsonrpc.Message) ([]byte, error) {
	return transport.AppendMessage(dst, msg)
}
