package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

var _ mcp.Connection = (*stdioConn)(nil)

// pipeConn is a stdioConn over pipes: what the test writes to server comes
// out of Read, and what the connection writes is read from client.
type pipeConn struct {
	conn   *stdioConn
	server *os.File      // the server's stdout, written by the test
	client *bufio.Reader // the server's stdin, read by the test
	ends   atomic.Int32  // how many times the connection ended the process
}

func newPipeConn(t *testing.T, limit int64, hooks Hooks) *pipeConn {
	t.Helper()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &pipeConn{server: outW, client: bufio.NewReader(inR)}
	calls := &calls{}
	p.conn = newStdioConn(newJSONLineFilter(outR, limit, hooks, calls), inW, func() error {
		p.ends.Add(1)
		return inW.Close()
	}, calls, hooks)
	t.Cleanup(func() {
		p.conn.Close()
		outW.Close()
		inR.Close()
	})
	return p
}

// send writes lines as the server.
func (p *pipeConn) send(t *testing.T, lines ...string) {
	t.Helper()
	if _, err := io.WriteString(p.server, strings.Join(lines, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
}

// read reads n messages from the connection, as go-sdk encodes them.
func (p *pipeConn) read(t *testing.T, n int) []string {
	t.Helper()
	var msgs []jsonrpc.Message
	for range n {
		msg, err := p.conn.Read(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, msg)
	}
	return wires(t, msgs)
}

// line reads the next line the connection wrote, without its newline.
func (p *pipeConn) line(t *testing.T) string {
	t.Helper()
	l, err := p.client.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(l, "\n")
}

func id(v any) jsonrpc.ID {
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		panic(err)
	}
	return id
}

func TestStdioConnReads(t *testing.T) {
	var skipped []string
	p := newPipeConn(t, config.DefaultMaxMessageSize, Hooks{Skipped: func(l string) { skipped = append(skipped, l) }})
	p.send(t,
		`starting up`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
		`[{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}},{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}]`,
		`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`,
	)
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`,
	}
	if diff := cmp.Diff(want, p.read(t, len(want))); diff != "" {
		t.Errorf("read (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"starting up"}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// What the connection writes is what go-sdk's encoder writes, a line each.
func TestStdioConnWrites(t *testing.T) {
	p := newPipeConn(t, config.DefaultMaxMessageSize, Hooks{})
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Request{ID: id(float64(1)), Method: "tools/call", Params: json.RawMessage(`{"name":"echo","arguments":{"text":"a\nb"}}`)},
		&jsonrpc.Request{Method: "notifications/initialized"},
		&jsonrpc.Request{ID: id("odd \"id\"\n"), Method: "ping"},
		&jsonrpc.Request{ID: id(float64(2)), Method: "tools/call", Params: json.RawMessage("{\n  \"name\": \"echo\"\n}")},
		&jsonrpc.Response{ID: id("s1"), Result: json.RawMessage(`{"roots":[]}`)},
		&jsonrpc.Response{ID: id(float64(3)), Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no <such> method"}},
		&jsonrpc.Response{ID: id(float64(4)), Error: fmt.Errorf("wrapped: %w", &jsonrpc.Error{Code: 7, Message: "inner"})},
	} {
		if err := p.conn.Write(t.Context(), msg); err != nil {
			t.Fatal(err)
		}
		want, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.line(t); got != string(want) {
			t.Errorf("wrote %s\nwant  %s", got, want)
		}
	}
	// A cancelled context writes nothing.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := p.conn.Write(ctx, &jsonrpc.Request{Method: "ping"}); !errors.Is(err, context.Canceled) {
		t.Errorf("write with a cancelled context: %v", err)
	}
}

// The requests of a batch from the server are answered in one batch, in
// their order, once all are answered; other responses go out at once.
func TestStdioConnAnswersBatches(t *testing.T) {
	p := newPipeConn(t, config.DefaultMaxMessageSize, Hooks{})
	p.send(t, `[{"jsonrpc":"2.0","id":1,"method":"roots/list"},{"jsonrpc":"2.0","method":"notifications/progress"},{"jsonrpc":"2.0","id":"b","method":"ping"}]`)
	p.read(t, 3)
	ctx := t.Context()
	if err := p.conn.Write(ctx, &jsonrpc.Response{ID: id("b"), Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := p.conn.Write(ctx, &jsonrpc.Response{ID: id("other"), Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if got, want := p.line(t), `{"jsonrpc":"2.0","id":"other","result":{}}`; got != want {
		t.Errorf("wrote %s\nwant  %s", got, want)
	}
	if err := p.conn.Write(ctx, &jsonrpc.Response{ID: id(float64(1)), Result: json.RawMessage(`{"roots":[]}`)}); err != nil {
		t.Fatal(err)
	}
	if got, want := p.line(t), `[{"jsonrpc":"2.0","id":1,"result":{"roots":[]}},{"jsonrpc":"2.0","id":"b","result":{}}]`; got != want {
		t.Errorf("wrote %s\nwant  %s", got, want)
	}
}

// A reply over the limit, or too deep, is read as an error reply for its
// id that says what it answered; the messages after it come through.
func TestStdioConnRefusesReplies(t *testing.T) {
	var dropped []string
	p := newPipeConn(t, 10_000, Hooks{Dropped: func(l string) { dropped = append(dropped, l) }})
	ctx := t.Context()
	for n := range 2 {
		if err := p.conn.Write(ctx, &jsonrpc.Request{ID: id(float64(n + 1)), Method: "tools/call", Params: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
		p.line(t)
	}
	p.send(t,
		`{"jsonrpc":"2.0","id":1,"result":{"text":"`+strings.Repeat("x", 20_000)+`"}}`,
		`{"jsonrpc":"2.0","id":2,"result":`+strings.Repeat("[", MaxMessageDepth)+strings.Repeat("]", MaxMessageDepth)+`}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
	)
	want := []string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"reply to tools/call is 19.6 KiB, over the 9.8 KiB limit (maxMessageSize)"}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"reply to tools/call nests 1001 levels deep, over the limit of 1000"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
	}
	if diff := cmp.Diff(want, p.read(t, 3)); diff != "" {
		t.Errorf("read (-want +got):\n%s", diff)
	}
	if len(dropped) != 2 {
		t.Errorf("dropped %q, want two notes", dropped)
	}
}

// A log flood past the budget is dropped, and a note in the stream says so
// before the next message.
func TestStdioConnLogBudget(t *testing.T) {
	const flood = 3 * LogBurst
	notes := NewNoteLogger()
	p := newPipeConn(t, 1<<20, Hooks{NoteLogger: notes})
	go func() {
		w := bufio.NewWriter(p.server)
		for i := range flood {
			fmt.Fprintln(w, logLine(i))
		}
		fmt.Fprintln(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		w.Flush()
	}()
	var msgs []string
	for {
		msg, err := p.conn.Read(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, wires(t, []jsonrpc.Message{msg})...)
		if _, ok := msg.(*jsonrpc.Response); ok {
			break
		}
	}
	var note struct {
		Params mcp.LoggingMessageParams `json:"params"`
	}
	if len(msgs) < 2 || json.Unmarshal([]byte(msgs[len(msgs)-2]), &note) != nil || note.Params.Logger != notes {
		t.Fatalf("no note before the reply: %.200q", msgs[max(0, len(msgs)-2):])
	}
	var n int
	if _, err := fmt.Sscanf(note.Params.Data.(string), "dropped %d log notifications", &n); err != nil {
		t.Fatalf("note %q: %v", note.Params.Data, err)
	}
	if passed := len(msgs) - 2; passed < LogBurst || passed+n != flood {
		t.Errorf("%d passed and %d dropped of %d", passed, n, flood)
	}
}

// Close unblocks a Read, which then says io.EOF; the process is ended
// once, however many call Close.
func TestStdioConnClose(t *testing.T) {
	p := newPipeConn(t, config.DefaultMaxMessageSize, Hooks{})
	read := make(chan error, 1)
	go func() {
		_, err := p.conn.Read(context.Background())
		read <- err
	}()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := p.conn.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	wg.Wait()
	if err := <-read; err != io.EOF {
		t.Errorf("Read after Close: %v, want io.EOF", err)
	}
	if n := p.ends.Load(); n != 1 {
		t.Errorf("the process was ended %d times", n)
	}
	if err := p.conn.Write(t.Context(), &jsonrpc.Request{Method: "ping"}); err == nil {
		t.Error("a write after Close succeeded")
	}
}

// The server's end of the stream is io.EOF, as go-sdk's reader says it.
func TestStdioConnServerExits(t *testing.T) {
	p := newPipeConn(t, config.DefaultMaxMessageSize, Hooks{})
	p.send(t, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	p.server.Close()
	p.read(t, 1)
	if _, err := p.conn.Read(t.Context()); err != io.EOF {
		t.Errorf("Read at the end: %v, want io.EOF", err)
	}
}

// Writes from many goroutines come out as whole lines, each message once.
func TestStdioConnConcurrentWrites(t *testing.T) {
	p := newPipeConn(t, config.DefaultMaxMessageSize, Hooks{})
	const writers, each = 16, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				n := w*each + i + 1
				params := json.RawMessage(`{"pad":"` + strings.Repeat("p", n*37%9000) + `"}`)
				if err := p.conn.Write(t.Context(), &jsonrpc.Request{ID: id(float64(n)), Method: "tools/call", Params: params}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	seen := map[int64]bool{}
	for range writers * each {
		msg, err := jsonrpc.DecodeMessage([]byte(p.line(t)))
		if err != nil {
			t.Fatalf("a line that is no message: %v", err)
		}
		seen[msg.(*jsonrpc.Request).ID.Raw().(int64)] = true
	}
	wg.Wait()
	if len(seen) != writers*each {
		t.Errorf("%d distinct requests, want %d", len(seen), writers*each)
	}
}

// FuzzAppendMessage holds the connection's encoder to go-sdk's: for any
// message go-sdk encodes, the same bytes when params and result are
// compact, as go-sdk marshals them, and the same JSON otherwise, on one
// line.
func FuzzAppendMessage(f *testing.F) {
	f.Add("tools/call", "", int64(1), []byte(`{"name":"x"}`), false)
	f.Add("", "id", int64(0), []byte(`{"roots":[]}`), true)
	f.Add("a\"b", "\x00", int64(-5), []byte("[1,\n2]"), false)
	f.Add("ping", "", int64(9), []byte(`{"a": [1, 2]}`), false)
	f.Fuzz(func(t *testing.T, method, sid string, nid int64, raw []byte, response bool) {
		if !json.Valid(raw) {
			return // go-sdk's callers never make such params
		}
		rid := id(float64(nid))
		if sid != "" {
			rid = id(sid)
		}
		var msg jsonrpc.Message = &jsonrpc.Request{ID: rid, Method: method, Params: raw}
		if response {
			msg = &jsonrpc.Response{ID: rid, Result: raw}
		}
		want, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendMessage([]byte("kept"), msg)
		if err != nil || !bytes.HasPrefix(got, []byte("kept")) {
			t.Fatalf("appended %q (%v)", got, err)
		}
		got = got[len("kept"):]
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(compact.Bytes(), raw) && !bytes.Equal(got, want) {
			t.Fatalf("wrote %q\nwant  %q", got, want)
		}
		if bytes.ContainsAny(got, "\r\n") {
			t.Fatalf("wrote a line break: %q", got)
		}
		var a, b any
		if json.Unmarshal(got, &a) != nil || json.Unmarshal(want, &b) != nil || !cmp.Equal(a, b) {
			t.Fatalf("wrote %q\nwant  %q", got, want)
		}
	})
}
