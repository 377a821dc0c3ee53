package bridge

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func id(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	i, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// askClient has the daemon ask the client (sampling) with its id n, and
// returns the id the client was given.
func askClient(t *testing.T, s *state, n float64) jsonrpc.ID {
	t.Helper()
	act := s.fromDaemon(&jsonrpc.Request{ID: id(t, n), Method: "sampling/createMessage", Params: json.RawMessage("{}")})
	req, ok := act.rewrite.(*jsonrpc.Request)
	if !ok || act.forward {
		t.Fatalf("the daemon's request: %+v, want it renumbered", act)
	}
	return req.ID
}

// TestStaleReplyDropped: the daemon's request ids start again on each
// stream; the client's reply to a request of a stream gone answers
// nothing on the next one, and its reply to the new one reaches it under
// the daemon's own id. A cancel of the daemon's names the client's id.
func TestStaleReplyDropped(t *testing.T) {
	s := newState()
	var conn fakeConn
	s.conn, s.live = &conn, &conn
	old := askClient(t, &s, 1)
	s.lost()
	s.replay(&conn)
	fresh := askClient(t, &s, 1)
	if old == fresh {
		t.Fatalf("both streams' request 1 reached the client as %v", old.Raw())
	}
	if _, act := s.fromClient(&jsonrpc.Response{ID: old, Result: json.RawMessage("{}")}); act.forward || act.rewrite != nil || act.reply != nil {
		t.Errorf("a reply to the old stream's request: %+v, want it dropped", act)
	}

	act := s.fromDaemon(&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":1,"reason":"timeout"}`)})
	n, ok := act.rewrite.(*jsonrpc.Request)
	if !ok || string(n.Params) != `{"reason":"timeout","requestId":"`+fresh.Raw().(string)+`"}` {
		t.Errorf("the daemon's cancel: %+v, want it naming %v", act, fresh.Raw())
	}

	_, act2 := s.fromClient(&jsonrpc.Response{ID: fresh, Result: json.RawMessage(`{"x":1}`)})
	r, ok := act2.rewrite.(*jsonrpc.Response)
	if !ok || r.ID != id(t, float64(1)) || string(r.Result) != `{"x":1}` {
		t.Errorf("the reply to the new request: %+v, want it under the daemon's id 1", act2)
	}
}

// TestLevelAllows: a client that set no level gets no log message.
func TestLevelAllows(t *testing.T) {
	for _, tc := range []struct {
		level string
		want  bool
	}{{"", false}, {"debug", true}, {"warning", true}, {"error", false}, {"bogus", false}} {
		if got := levelAllows(tc.level, "warning"); got != tc.want {
			t.Errorf("level %q lets a warning through: %v, want %v", tc.level, got, tc.want)
		}
	}
}

type fakeConn struct{}

func (*fakeConn) Read([]byte) (int, error)    { return 0, nil }
func (*fakeConn) Write(p []byte) (int, error) { return len(p), nil }
func (*fakeConn) Close() error                { return nil }

// TestLostOncePerOutage: the daemon lost is said once, however many
// streams fail before the client's session is back; then again.
func TestLostOncePerOutage(t *testing.T) {
	s := newState()
	var conn fakeConn
	s.conn, s.live = &conn, &conn
	s.fromClient(&jsonrpc.Request{ID: id(t, float64(1)), Method: "initialize", Params: json.RawMessage("{}")})
	s.fromDaemon(&jsonrpc.Response{ID: id(t, float64(1)), Result: json.RawMessage("{}")})
	s.fromClient(&jsonrpc.Request{ID: id(t, float64(2)), Method: "logging/setLevel", Params: json.RawMessage(`{"level":"info"}`)})
	s.fromClient(&jsonrpc.Request{ID: id(t, float64(3)), Method: "tools/call", Params: json.RawMessage(`{}`)})
	s.fromDaemon(&jsonrpc.Response{ID: id(t, float64(2)), Result: json.RawMessage("{}")})
	for i, method := range []string{"resources/subscribe", "resources/subscribe", "resources/unsubscribe"} {
		uri := []string{"a://1", "a://2", "a://1"}[i]
		s.fromClient(&jsonrpc.Request{ID: id(t, float64(10+i)), Method: method, Params: json.RawMessage(`{"uri":"` + uri + `"}`)})
		s.fromDaemon(&jsonrpc.Response{ID: id(t, float64(10+i)), Result: json.RawMessage("{}")})
	}

	replies, announce, note := s.lost()
	if len(replies) != 1 || replies[0].(*jsonrpc.Response).ID != id(t, float64(3)) || !announce || !note {
		t.Errorf("first loss: replies %v, announce %v, note %v; want the call failed, said, noted", replies, announce, note)
	}
	s.replay(&conn)
	if _, announce, _ := s.lost(); announce {
		t.Error("a failed replay was said again")
	}
	replayed := s.replay(&conn).(*jsonrpc.Request)
	act := s.fromDaemon(&jsonrpc.Response{ID: replayed.ID, Result: json.RawMessage("{}")})
	if !act.online || act.forward || len(act.toClient) != 3 {
		t.Fatalf("the replayed initialize's answer: %+v, want it swallowed and the session back with three list_changed", act)
	}
	var sent []string
	for _, m := range act.toDaemon {
		r := m.(*jsonrpc.Request)
		sent = append(sent, r.Method+" "+string(r.Params))
	}
	if want := []string{`logging/setLevel {"level":"info"}`, `resources/subscribe {"uri":"a://2"}`}; !slices.Equal(sent, want) {
		t.Errorf("after the replay the daemon is sent %q, want %q (the client never sent initialized)", sent, want)
	}
	if s.conn != nil {
		t.Error("the client's messages went to the new stream before the replay was written")
	}
	s.goOnline()
	if s.conn != &conn {
		t.Error("goOnline did not give the client the new stream")
	}
	if _, announce, _ := s.lost(); !announce {
		t.Error("a loss after the session was back was not said")
	}
}

// TestWhileDown: with the daemon away, a request is answered at once with
// an error, a ping with an empty result (a keepalive must not end the
// client's session), and nothing goes anywhere.
func TestWhileDown(t *testing.T) {
	s := newState()
	conn, act := s.fromClient(&jsonrpc.Request{ID: id(t, float64(1)), Method: "ping"})
	if r, ok := act.reply.(*jsonrpc.Response); conn != nil || !ok || r.Error != nil || string(r.Result) != "{}" {
		t.Errorf("a ping while down: %+v", act)
	}
	conn, act = s.fromClient(&jsonrpc.Request{ID: id(t, float64(2)), Method: "tools/call", Params: json.RawMessage("{}")})
	if r, ok := act.reply.(*jsonrpc.Response); conn != nil || !ok || r.Error != errDown {
		t.Errorf("a call while down: %+v", act)
	}
	if len(s.inflight) != 0 {
		t.Errorf("requests answered while down are in flight: %v", s.inflight)
	}
}
