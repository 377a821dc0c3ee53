package transport

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// scanned is line fed whole to a new scan.
func scanned(line string) *frameScan {
	var s frameScan
	s.reset()
	s.feed([]byte(line))
	return &s
}

func TestDecode(t *testing.T) {
	tests := []struct {
		line string
		want map[string]any
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
			map[string]any{"id": int64(1), "result": `{"content":[]}`}},
		{`  { "result" : [1, "]"] , "jsonrpc":"2.0", "id":"a\"b" }  `,
			map[string]any{"id": `a"b`, "result": `[1, "]"]`}},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`,
			map[string]any{"request": true, "id": nil, "method": "notifications/progress", "params": `{"progress":1}`}},
		{`{"jsonrpc":"2.0","id":7.9,"method":"roots/list"}`,
			map[string]any{"request": true, "id": int64(7), "method": "roots/list", "params": ""}},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no such method","data":[1]}}`,
			map[string]any{"id": int64(2), "result": "", "code": int64(-32601), "message": "no such method", "data": "[1]"}},
		{`{"jsonrpc":"2.0","id":3,"error":null,"result":"x"}`,
			map[string]any{"id": int64(3), "result": `"x"`}},
		// go-sdk cannot decode this one and ends the session; decode fails
		// the call alone.
		{`{"jsonrpc":"2.0","id":4,"error":{"code":"E1"}}`,
			map[string]any{"id": int64(4), "result": "", "code": int64(jsonrpc.CodeInternalError),
				"message": `the server's error reply is malformed: {"code":"E1"}`, "data": ""}},
	}
	for _, tt := range tests {
		s := scanned(tt.line)
		if !isFrame(bytes.TrimSpace([]byte(tt.line)), s) {
			t.Fatalf("%s: not a frame", tt.line)
		}
		if diff := cmp.Diff(tt.want, fields(s.decode([]byte(tt.line)))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.line, diff)
		}
	}
}

// A batch's elements are messages of their own; one go-sdk cannot decode
// is skipped and reported, where go-sdk would end the session.
func TestDecodeBatch(t *testing.T) {
	var skipped []string
	skip := func(why string, elem []byte) { skipped = append(skipped, why+": "+string(elem)) }
	msgs := decodeBatch([]byte(`[{"jsonrpc":"2.0","id":1,"method":"roots/list"}, 7, {"jsonrpc":"2.0","method":"notifications/progress"},{"id":2}]`), skip)
	var got []map[string]any
	for _, m := range msgs {
		got = append(got, fields(m))
	}
	want := []map[string]any{
		{"request": true, "id": int64(1), "method": "roots/list", "params": ""},
		{"request": true, "id": nil, "method": "notifications/progress", "params": ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"batch element: 7", `batch element: {"id":2}`}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	skipped = nil
	if msgs := decodeBatch([]byte(`[]`), skip); len(msgs) != 0 || len(skipped) != 1 {
		t.Errorf("empty batch: %d messages, skipped %q", len(msgs), skipped)
	}
}

// FuzzDecode holds decode to go-sdk's own decoder: a line the filter
// passes becomes the message jsonrpc.DecodeMessage makes of it, however
// the line came in chunks; where go-sdk cannot decode it (and would end
// the session), the one difference is a reply whose error is malformed.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a\"}b"}]}}`,
		` {"result" : [1, {"a":"]"}] , "jsonrpc":"2.0","id":"x\\"} `,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
		`{"jsonrpc":"2.0","id":7,"method":"roots/list","params":null}`,
		`{"jsonrpc":"2.0","id":2.5,"error":{"code":-32601,"message":"no","data":{"x":[1]}}}`,
		`{"jsonrpc":"2.0","id":3,"error":null,"result":true}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":1.5}}`,
		`{"jsonrpc":"2.0","\u0069d":1,"result":{},"result":"last"}`,
		`{"jsonrpc":"2.0","id":5,"method":"x","params":[],"params":{}}`,
	} {
		f.Add([]byte(seed), uint8(3))
	}
	f.Fuzz(func(t *testing.T, line []byte, step uint8) {
		var s frameScan
		s.reset()
		s.pauseAtMethod = step%2 == 1
		n := int(step)%17 + 1
		for i := 0; i < len(line); i += n {
			chunk := line[i:min(i+n, len(line))]
			if k := s.feed(chunk); k < len(chunk) {
				s.feed(chunk[k:])
			}
		}
		trimmed := bytes.TrimSpace(line)
		if s.maxDepth > MaxMessageDepth || !isFrame(trimmed, &s) || trimmed[0] != '{' {
			return
		}
		got := s.decode(line)
		want, err := jsonrpc.DecodeMessage(trimmed)
		if err != nil {
			resp, ok := got.(*jsonrpc.Response)
			if !ok || resp.Error == nil || !strings.HasPrefix(resp.Error.Error(), "the server's error reply is malformed") {
				t.Fatalf("go-sdk cannot decode %q (%v), yet decode made %#v", line, err, got)
			}
			return
		}
		if diff := cmp.Diff(fields(want), fields(got)); diff != "" {
			t.Fatalf("decode of %q (-go-sdk +decode):\n%s", line, diff)
		}
	})
}

// fields is what a message says, for comparing.
func fields(msg jsonrpc.Message) map[string]any {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return map[string]any{"request": true, "id": m.ID.Raw(), "method": m.Method, "params": string(m.Params)}
	case *jsonrpc.Response:
		f := map[string]any{"id": m.ID.Raw(), "result": string(m.Result)}
		if m.Error != nil {
			var werr *jsonrpc.Error
			if !errors.As(m.Error, &werr) {
				f["error"] = m.Error.Error()
			} else {
				f["code"], f["message"], f["data"] = werr.Code, werr.Message, string(werr.Data)
			}
		}
		return f
	}
	return nil
}
