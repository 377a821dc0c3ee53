package benchpeer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/testkit/benchpeer"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// A go-sdk client connects to the floor server, over a pipe and over HTTP,
// lists its tool, calls it and pings it.
func TestClientTalksToFloor(t *testing.T) {
	tests := []struct {
		name    string
		connect func(t *testing.T) mcp.Transport
	}{
		{"stdio", func(t *testing.T) mcp.Transport {
			toServer, fromClient := io.Pipe()
			toClient, fromServer := io.Pipe()
			done := make(chan error, 1)
			go func() {
				err := benchpeer.ServeStdio(toServer, fromServer)
				fromServer.Close()
				done <- err
			}()
			t.Cleanup(func() {
				if err := <-done; err != nil {
					t.Errorf("ServeStdio: %v", err)
				}
			})
			return &mcp.IOTransport{Reader: toClient, Writer: fromClient}
		}},
		{"http", func(t *testing.T) mcp.Transport {
			srv := httptest.NewServer(benchpeer.Handler())
			t.Cleanup(srv.Close)
			return &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: srv.Client()}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
			sess, err := client.Connect(ctx, tt.connect(t), &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			if got := sess.InitializeResult().ProtocolVersion; got != "2025-06-18" {
				t.Errorf("protocol version %q, want the one asked for", got)
			}
			tools, err := sess.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.Tools) != 1 || tools.Tools[0].Name != benchpeer.ToolName {
				t.Errorf("tools: %+v", tools.Tools)
			}
			for range 3 {
				res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: benchpeer.ToolName, Arguments: map[string]any{"text": "x"}})
				if err != nil {
					t.Fatal(err)
				}
				if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != benchpeer.CannedText || res.IsError {
					t.Errorf("call: %+v", res)
				}
			}
			if err := sess.Ping(ctx, nil); err != nil {
				t.Errorf("ping: %v", err)
			}
			if _, err := sess.ListPrompts(ctx, nil); err == nil || !strings.Contains(err.Error(), "method not found") {
				t.Errorf("prompts/list: %v, want method not found", err)
			}
		})
	}
}

func TestAnswer(t *testing.T) {
	tests := []struct {
		msg, want string
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"id":"not this"}}}`,
			`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}`},
		// The TypeScript SDK writes the id last.
		{`{"method":"ping","jsonrpc":"2.0","id":"a\"b"}`, `{"jsonrpc":"2.0","id":"a\"b","result":{}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"0"}}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"0"}}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method not found"}}`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, ``},
		{`{"jsonrpc":"2.0","id":3,`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
	}
	for _, tt := range tests {
		got, ok := benchpeer.Answer(nil, []byte(tt.msg))
		if string(got) != tt.want || ok != (tt.want != "") {
			t.Errorf("Answer(%s) = %s, %v\nwant %s", tt.msg, got, ok, tt.want)
		}
		if ok && !json.Valid(got) {
			t.Errorf("Answer(%s) is not JSON: %s", tt.msg, got)
		}
	}
}

// Several requests in one write get every answer, in order.
func TestServeStdioPipelined(t *testing.T) {
	in := strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n", 3) +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 100<<10) + `"}}}`
	var out bytes.Buffer
	if err := benchpeer.ServeStdio(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n", 3) +
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello"}]}}` + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestMembers(t *testing.T) {
	type member struct{ Key, Value string }
	tests := []struct {
		in   string
		want []member
		ok   bool
	}{
		{`{}`, nil, true},
		{` { "a" : 1 , "b":[1,{"c":"]"}], "d\"e":"x\\" } `, []member{{"a", "1"}, {"b", `[1,{"c":"]"}]`}, {`d\"e`, `"x\\"`}}, true},
		{`{"a":{"b":{"c":[[[]]]}}}`, []member{{"a", `{"b":{"c":[[[]]]}}`}}, true},
		{`{"a":true,"b":null,"c":-1.5e3}`, []member{{"a", "true"}, {"b", "null"}, {"c", "-1.5e3"}}, true},
		{`[]`, nil, false},
		{`{"a":1}x`, nil, false},
		{`{"a":[}`, nil, false},
		{`{"a":{]}`, nil, false},
		{`{"a" 1}`, nil, false},
		{`{"a":1,}`, nil, false},
		{`{"a":"`, nil, false},
		{`{"a":}`, nil, false},
		{`{a:1}`, nil, false},
		{``, nil, false},
	}
	for _, tt := range tests {
		var got []member
		err := benchpeer.Members([]byte(tt.in), func(k, v []byte) { got = append(got, member{string(k), string(v)}) })
		if (err == nil) != tt.ok {
			t.Errorf("Members(%s): error %v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Members(%s) (-want +got):\n%s", tt.in, diff)
			}
		}
	}
}

// Members agrees with encoding/json on every object both read: the same
// keys, each with the same value.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"id":7,"method":"tools/call","params":{"x":[1,"]"]}}`, `{"a":"\"","b":{"c":null}}`, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := map[string]json.RawMessage{}
		err := benchpeer.Members(data, func(k, v []byte) {
			if !json.Valid(v) {
				return // numbers and literals are not spelled out; json decides below
			}
			got[string(k)] = append(json.RawMessage(nil), v...)
		})
		var want map[string]json.RawMessage
		if json.Unmarshal(data, &want) != nil || want == nil {
			return
		}
		if err != nil {
			t.Fatalf("Members(%q): %v; encoding/json reads it", data, err)
		}
		for k, v := range want {
			if strings.ContainsAny(k, "\\\"") || !utf8Clean(k) {
				continue // keys are compared as written
			}
			var a, b bytes.Buffer
			_ = json.Compact(&a, v)
			_ = json.Compact(&b, got[k])
			if a.String() != b.String() {
				t.Fatalf("Members(%q)[%q] = %s, encoding/json %s", data, k, b.String(), a.String())
			}
		}
	})
}

// utf8Clean reports whether k came through encoding/json unchanged: it
// replaces invalid UTF-8, which Members leaves as written.
func utf8Clean(k string) bool {
	return !strings.ContainsRune(k, '\uFFFD')
}

// BenchmarkAnswer is the floor server's own work per call, which the
// package promises stays well under a microsecond.
func BenchmarkAnswer(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"progressToken":"sb-1"}}}`)
	buf := make([]byte, 0, 512)
	for b.Loop() {
		buf, _ = benchpeer.Answer(buf[:0], msg)
	}
}
