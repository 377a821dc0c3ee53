package transport

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// sdkDepth is how deep go-sdk counts a message's nesting (its
// internal/json checkMaxDepth): brackets outside strings.
func sdkDepth(data []byte) int {
	depth, deepest, inStr, esc := 0, 0, false, false
	for _, b := range data {
		switch {
		case inStr && esc:
			esc = false
		case inStr && b == '\\':
			esc = true
		case inStr && b == '"':
			inStr = false
		case inStr:
		case b == '"':
			inStr = true
		case b == '{' || b == '[':
			depth++
			deepest = max(deepest, depth)
		case (b == '}' || b == ']') && depth > 0:
			depth--
		}
	}
	return deepest
}

// FuzzJSONLineFilter holds the filter to what it promises go-sdk: every
// message it hands on is one go-sdk encodes and decodes, within the size
// and depth limits; every line it does not pass on is reported, unless it
// is blank.
func FuzzJSONLineFilter(f *testing.F) {
	deep := `{"jsonrpc":"2.0","id":3,"result":{"v":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}}`
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		"banner\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n",
		`[{"jsonrpc":"2.0","id":2,"result":{}}]`,
		`[{"jsonrpc":"2.0","id":2,"method":"roots/list"},{"jsonrpc":"2.0","id":3,"result":{}},7,[]]`,
		`[]`,
		`{"jsonrpc":"2.0","id":7,"result":{"text":"` + strings.Repeat("x", 3000) + `"}}`,
		`{"result":{"text":"` + strings.Repeat("x", 3000) + `"},"jsonrpc":"2.0","id":"a\"b"}`,
		deep,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("y", 3000) + `"}}`,
		`{"jsonrpc":"2.0","id":{"n":1},"result":"` + strings.Repeat("z", 3000) + `"}`,
		`{"jsonrpc":"2.0","\u0069d":1e400,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"id":[],"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`,
		`{"level":"info","msg":"jsonrpc"}`,
	} {
		f.Add([]byte(seed), uint16(1000))
	}
	f.Fuzz(func(t *testing.T, in []byte, limit uint16) {
		max := int64(limit) + 100
		var reported int
		hooks := Hooks{Skipped: func(string) { reported++ }, Dropped: func(string) { reported++ }}
		filter := newJSONLineFilter(io.NopCloser(bytes.NewReader(in)), max, hooks, nil)
		msgs := readAll(t, filter)
		for _, msg := range msgs {
			frame, err := jsonrpc.EncodeMessage(msg)
			if err != nil {
				t.Fatalf("passed %#v, which go-sdk cannot encode: %v", msg, err)
			}
			if d := sdkDepth(frame); d > MaxMessageDepth {
				t.Fatalf("passed a message %d deep", d)
			}
			var inPlace json.RawMessage // a slice of the line as it came
			switch m := msg.(type) {
			case *jsonrpc.Request:
				inPlace = m.Params
			case *jsonrpc.Response:
				inPlace = m.Result
			}
			if int64(len(inPlace)) > max {
				t.Fatalf("passed %d bytes over a %d limit", len(inPlace), max)
			}
			// go-sdk decodes a method "" but encodes none (omitempty);
			// FuzzDecode holds such a line to what go-sdk decodes.
			if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "" {
				continue
			}
			if _, err := jsonrpc.DecodeMessage(frame); err != nil {
				t.Fatalf("passed %q, which go-sdk cannot decode: %v", frame, err)
			}
		}
		var lines int
		for line := range bytes.Lines(in) {
			if len(bytes.TrimSpace(line)) > 0 {
				lines++
			}
		}
		if len(msgs)+reported < lines {
			t.Fatalf("%d lines in, %d messages passed and %d reported", lines, len(msgs), reported)
		}
	})
}

// FuzzFrameScan holds the scan to go-sdk's count of depth, and to what a
// decoder reads as the top-level id and method of a valid object, however
// the line is split into chunks.
func FuzzFrameScan(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"t":"a\"b\\[c"}}`,
		`{"id" : "x\\\"y" , "method":"notifications/message","params":[[["]"]]]}`,
		`{"\u0069d":7,"id":8}`,
		`[{"id":1}]`,
		`{"a":"` + strings.Repeat(`\n`, 50) + `[","id":{"x":1},"id":2}`,
	} {
		f.Add([]byte(seed), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		var s frameScan
		s.reset()
		// Odd steps pause at the method, as the filter does, and go on.
		s.pauseAtMethod = step%2 == 1
		n := int(step)%17 + 1
		for i := 0; i < len(in); i += n {
			chunk := in[i:min(i+n, len(in))]
			if k := s.feed(chunk); k < len(chunk) {
				if s.method.seen && s.val != nil {
					t.Fatalf("paused before the method ended")
				}
				s.feed(chunk[k:])
			}
		}
		if got, want := s.maxDepth, sdkDepth(in); got != want {
			t.Fatalf("depth %d, go-sdk counts %d", got, want)
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(in, &top) != nil || bytes.IndexByte(in, '{') != len(in)-len(bytes.TrimLeft(in, " \t\r\n")) {
			return
		}
		for name, fld := range map[string]*field{"id": &s.id, "method": &s.method} {
			raw, ok := top[name]
			if ok != fld.seen {
				t.Fatalf("%s seen %v, decoder %v", name, fld.seen, ok)
			}
			if !ok || fld.bad {
				continue
			}
			var want bytes.Buffer
			if err := json.Compact(&want, raw); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(fld.raw, want.Bytes()) {
				t.Fatalf("%s = %q, decoder %q", name, fld.raw, want.Bytes())
			}
		}
	})
}
