package transport

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DecodeBody gives what jsonrpc.DecodeMessage gives for one message, and
// refuses what it leaves to go-sdk: batches, invalid JSON, nesting past
// the limit, messages go-sdk cannot decode.
func TestDecodeBody(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2]}}}`,
		` {"jsonrpc":"2.0","id":"a\"b","method":"tools/list"} `,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}`,
	} {
		got, ok := DecodeBody([]byte(body))
		want, err := jsonrpc.DecodeMessage([]byte(body))
		if !ok || err != nil {
			t.Errorf("%s: DecodeBody %v, go-sdk %v", body, ok, err)
			continue
		}
		g, _ := jsonrpc.EncodeMessage(got)
		w, _ := jsonrpc.EncodeMessage(want)
		if string(g) != string(w) {
			t.Errorf("%s: decoded as %s, go-sdk %s", body, g, w)
		}
	}
	for _, body := range []string{
		``,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":7}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":` + strings.Repeat("[", MaxMessageDepth+1) + strings.Repeat("]", MaxMessageDepth+1) + `}`,
		`"text"`,
	} {
		if msg, ok := DecodeBody([]byte(body)); ok {
			t.Errorf("%.60s: decoded as %v; want it left to go-sdk", body, msg)
		}
	}
}
