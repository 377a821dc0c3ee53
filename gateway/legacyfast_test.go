package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// legacyPost is a POST of body in the 2025-11-25 session sid, as a client
// sends it, with edit applied to its headers.
func legacyPost(t *testing.T, url, sid, body string, edit func(http.Header)) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", config.ProtocolLegacy)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if edit != nil {
		edit(req.Header)
	}
	return req
}

// legacySession initializes a 2025-11-25 session at url and answers its id.
func legacySession(t *testing.T, url string) string {
	t.Helper()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp := do(t, legacyPost(t, url, "", init, func(h http.Header) { h.Del("Mcp-Protocol-Version") }))
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: HTTP %d, session %q", resp.StatusCode, sid)
	}
	resp = do(t, legacyPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil))
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: HTTP %d", resp.StatusCode)
	}
	return sid
}

// events reads an SSE answer's messages one at a time.
type events struct {
	t  *testing.T
	sc *bufio.Scanner
}

func eventsOf(t *testing.T, resp *http.Response) *events {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("HTTP %d %q; want 200 and an event stream", resp.StatusCode, ct)
	}
	return &events{t, bufio.NewScanner(resp.Body)}
}

// next is the next message, "" at the stream's end.
func (e *events) next() string {
	_, data := e.nextEvent()
	return data
}

// nextEvent is the next message and its event id ("" when it has none).
func (e *events) nextEvent() (id, data string) {
	for e.sc.Scan() {
		line := e.sc.Text()
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			id = v
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok && data != "" {
			return id, data
		}
	}
	return "", ""
}

// A legacy session's requests are answered as go-sdk's stateful handler
// answers them, on the same view's server: the calls the gateway serves
// on the session's own connection (a tool call, lists, ping, a call whose
// progress comes first) and everything it leaves to go-sdk's transport
// (a batch, bad headers, a _meta naming a protocol version, an unknown
// method, notifications, a client's reply). Only the framing of a plain
// reply differs: JSON, where go-sdk's is a one-event SSE stream.
func TestLegacyAnswersAsGoSDK(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo", "--test-tools"))
	srv, err := s.gw.View(host.ViewFilter{})
	if err != nil {
		t.Fatal(err)
	}
	ref := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ref.Close()
	ours, theirs := legacySession(t, s.url), legacySession(t, ref.URL)
	defer func() { // go-sdk's handler holds its session until told
		del, _ := http.NewRequest(http.MethodDelete, ref.URL, nil)
		del.Header.Set("Mcp-Session-Id", theirs)
		do(t, del).Body.Close()
	}()

	echo := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo__echo","arguments":{"text":"hi"}}}`
	set := func(key, value string) func(http.Header) { return func(h http.Header) { h.Set(key, value) } }
	posts := []struct {
		name, body string
		edit       func(http.Header)
		fast       bool
		// noData compares an error's code alone: go-sdk's transport is
		// not told the header's version (its context key is its own), so
		// the data of its refusal names the version it assumes.
		noData bool
	}{
		{name: "tool call", body: echo, fast: true},
		{name: "string id", body: strings.Replace(echo, `"id":1`, `"id":"a-b"`, 1), fast: true},
		{name: "tools/list", body: `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, fast: true},
		{name: "ping", body: `{"jsonrpc":"2.0","id":3,"method":"ping"}`, fast: true},
		{name: "prompts/list", body: `{"jsonrpc":"2.0","id":4,"method":"prompts/list","params":{}}`, fast: true},
		{name: "unknown tool", body: strings.Replace(echo, "demo__echo", "demo__nope", 1), fast: true},
		{name: "progress token", fast: true, body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"demo__progress","arguments":{"steps":0},"_meta":{"progressToken":"p"}}}`},
		{name: "_meta names a version", noData: true, body: `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`},
		{name: "_meta names a version, escaped", noData: true, body: `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`},
		{name: "call without params", body: `{"jsonrpc":"2.0","id":7,"method":"tools/call"}`},
		{name: "params null", fast: true, body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":null}`},
		{name: "params an array", fast: true, body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":["demo__echo"]}`},
		{name: "params a string", fast: true, body: `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":"x"}`},
		{name: "name twice", fast: true, body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"demo__nope","name":"demo__echo","arguments":{"text":"hi"}}}`},
		{name: "_meta twice, a version first", noData: true, body: `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"},"_meta":{}}}`},
		{name: "_META in capitals", body: `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_META":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`},
		{name: "arguments nested 2000 deep", body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"demo__echo","arguments":{"text":"hi","x":` +
			strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}}`},
		{name: "jsonrpc 1.0", body: `{"jsonrpc":"1.0","id":7,"method":"ping"}`},
		{name: "no jsonrpc member", body: `{"id":7,"method":"ping"}`},
		{name: "method in capitals", body: `{"jsonrpc":"2.0","id":7,"method":"TOOLS/LIST"}`},
		{name: "id null", body: `{"jsonrpc":"2.0","id":null,"method":"ping"}`},
		{name: "id an object", body: `{"jsonrpc":"2.0","id":{},"method":"ping"}`},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":8,"method":"nope/nothing","params":{}}`},
		{name: "notification", body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`},
		{name: "a reply to nothing", body: `{"jsonrpc":"2.0","id":"s-1","result":{}}`},
		{name: "batch", body: `[` + echo + `]`},
		{name: "not JSON", body: `{"jsonrpc":`},
		{name: "empty", body: ``},
		{name: "text body", body: echo, edit: set("Content-Type", "text/plain")},
		{name: "JSON only accepted", body: echo, edit: set("Accept", "application/json")},
		{name: "Last-Event-ID", body: echo, edit: set("Last-Event-ID", "x_1")},
		{name: "unsupported version", body: echo, edit: set("Mcp-Protocol-Version", "2024-01-01")},
	}
	for _, p := range posts {
		before := s.gw.FastCalls()
		got := answerOf(t, do(t, legacyPost(t, s.url, ours, p.body, p.edit)))
		want := answerOf(t, do(t, legacyPost(t, ref.URL, theirs, p.body, p.edit)))
		if p.noData {
			got.messages, want.messages = withoutData(t, got.messages), withoutData(t, want.messages)
		}
		if got.status != want.status || got.text != want.text || strings.Join(got.messages, "\n") != strings.Join(want.messages, "\n") {
			t.Errorf("%s: the gateway answers %+v; go-sdk %+v", p.name, got, want)
		}
		if fast := s.gw.FastCalls() > before; fast != p.fast {
			t.Errorf("%s: on the fast path: %v, want %v", p.name, fast, p.fast)
		}
	}
	// The plain reply is JSON (go-sdk's an event stream).
	resp := do(t, legacyPost(t, s.url, ours, echo, nil))
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("a plain reply is %q; want application/json", ct)
	}
	// A session go-sdk's handler does not know is not found by either
	// (the gateway says why, in its own words).
	for _, url := range []string{s.url, ref.URL} {
		resp := do(t, legacyPost(t, url, "no-such-session", echo, nil))
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: an unknown session: HTTP %d, want 404", url, resp.StatusCode)
		}
	}
}

// withoutData is msgs with their errors' data left out.
func withoutData(t *testing.T, msgs []string) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		var v map[string]any
		if err := json.Unmarshal([]byte(m), &v); err != nil {
			t.Fatal(err)
		}
		if e, ok := v["error"].(map[string]any); ok {
			delete(e, "data")
		}
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out
}

// A notification of no call (tools/list_changed) reaches the session's
// GET stream, and the fast call that led to it is answered as JSON.
func TestLegacyFastNotificationsRouted(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo", "--test-tools"))
	sid := legacySession(t, s.url)

	get, _ := http.NewRequest(http.MethodGet, s.url, nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", sid)
	get.Header.Set("Mcp-Protocol-Version", config.ProtocolLegacy)
	stream := do(t, get)
	defer stream.Body.Close()
	standalone := eventsOf(t, stream)
	add := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"demo__add_tool","arguments":{"name":"extra"}}}`
	answer := answerOf(t, do(t, legacyPost(t, s.url, sid, add, nil)))
	if answer.status != http.StatusOK || len(answer.messages) != 1 || !strings.Contains(answer.messages[0], "added extra") {
		t.Fatalf("add_tool answered %+v; want its reply alone", answer)
	}
	if msg := standalone.next(); !strings.Contains(msg, `"notifications/tools/list_changed"`) {
		t.Fatalf("the GET stream carried %q; want tools/list_changed", msg)
	}
	if s.gw.FastCalls() != 1 {
		t.Errorf("%d fast calls; want add_tool's", s.gw.FastCalls())
	}
}

// A fast call's progress reaches its own POST, as an event stream begun
// before its reply. The call is cancelled by the client's
// notifications/cancelled (its POST then carries the cancelled call's
// error reply, and the upstream call ends); an id still in flight is refused as go-sdk refuses it.
// DELETE ends the session (as go-sdk's, once its calls have returned):
// it is not found after.
func TestLegacyFastCancelAndDelete(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo"))
	sid := legacySession(t, s.url)
	sleep := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"demo__sleep","arguments":{"ms":600000},"_meta":{"progressToken":"tok"}}}`
	resp := do(t, legacyPost(t, s.url, sid, sleep, nil))
	ev := eventsOf(t, resp)
	if msg := ev.next(); !strings.Contains(msg, `"notifications/progress"`) || !strings.Contains(msg, "sleeping 600000 ms") {
		t.Fatalf("first event %s; want the sleep's progress", msg)
	}
	if s.gw.FastCalls() != 1 {
		t.Fatalf("%d fast calls; want the sleep's", s.gw.FastCalls())
	}
	dup := answerOf(t, do(t, legacyPost(t, s.url, sid, sleep, nil)))
	if dup.status != http.StatusBadRequest || len(dup.messages) != 1 || !strings.Contains(dup.messages[0], `"code":-32600`) {
		t.Errorf("a second call of id 7 in flight: %+v; want go-sdk's 400 and invalid request", dup)
	}
	cancel := do(t, legacyPost(t, s.url, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, nil))
	cancel.Body.Close()
	if cancel.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: HTTP %d", cancel.StatusCode)
	}
	var reply struct {
		ID    int             `json:"id"`
		Error json.RawMessage `json:"error"`
	}
	if msg := ev.next(); json.Unmarshal([]byte(msg), &reply) != nil || reply.ID != 7 || reply.Error == nil {
		t.Fatalf("after the cancellation the POST carried %q; want the call's error reply", msg)
	}
	if msg := ev.next(); msg != "" {
		t.Errorf("after the reply: %q; want the stream's end", msg)
	}
	resp.Body.Close()
	if _, callers, _ := s.gw.InFlight(); callers != 0 {
		t.Errorf("%d upstream calls in flight after the cancellation; want none", callers)
	}

	del, _ := http.NewRequest(http.MethodDelete, s.url, nil)
	del.Header.Set("Mcp-Session-Id", sid)
	r := do(t, del)
	r.Body.Close()
	if r.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: HTTP %d", r.StatusCode)
	}
	after := do(t, legacyPost(t, s.url, sid, `{"jsonrpc":"2.0","id":8,"method":"ping"}`, nil))
	after.Body.Close()
	if after.StatusCode != http.StatusNotFound {
		t.Errorf("a POST after DELETE: HTTP %d; want 404", after.StatusCode)
	}
}

// A request the server makes in the course of a fast call (sampling)
// reaches the client, and the client's reply, a POST of its own, reaches
// the session through go-sdk's transport: the call completes with it.
func TestLegacyFastServerRequest(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo", "--sampling"))
	sess := s.clientAt(t, "", &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "sampled: " + req.Params.Messages[0].Content.(*mcp.TextContent).Text}}, nil
		},
	}, config.ProtocolLegacy)
	res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__sample", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(res); got != "sampled: hello" {
		t.Errorf("sample answered %q; want the client's sample", got)
	}
	if s.gw.FastCalls() != 1 {
		t.Errorf("%d fast calls; want the sample call's", s.gw.FastCalls())
	}
}

// Without a key file a session lives only in the process (and Handler)
// that began it, as with go-sdk's handler: another one does not find its
// id, and once DELETE ended it, it is not found (not rebuilt) here
// either.
func TestOwnSessionsEndWithTheirProcess(t *testing.T) {
	a := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo"))
	b := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo"))
	sid := legacySession(t, a.url)
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	status := func(url string) int {
		resp := do(t, legacyPost(t, url, sid, ping, nil))
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status(a.url); got != http.StatusOK {
		t.Fatalf("a ping in its session: HTTP %d", got)
	}
	if got := status(b.url); got != http.StatusNotFound {
		t.Errorf("the session's id in another process: HTTP %d, want 404", got)
	}
	del := func() int {
		req, _ := http.NewRequest(http.MethodDelete, a.url, nil)
		req.Header.Set("Mcp-Session-Id", sid)
		resp := do(t, req)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := del(); got != http.StatusNoContent {
		t.Fatalf("DELETE: HTTP %d", got)
	}
	if got := status(a.url); got != http.StatusNotFound {
		t.Errorf("a ping after DELETE: HTTP %d, want 404", got)
	}
	if got := del(); got != http.StatusNotFound {
		t.Errorf("DELETE again: HTTP %d, want 404", got)
	}
}

// In a sealed session (a key file: the sessions have an event store) a
// fast call's event stream is stored as go-sdk stores its streams: a
// client whose POST broke resumes it with Last-Event-ID, here while the
// call runs (the rest comes on the GET), and after it (go-sdk's transport
// replays it from the store).
func TestLegacyFastResumes(t *testing.T) {
	keys, err := gateway.NewSessionKeys([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, gateway.HTTPOptions{SessionKeys: keys}, demoServer(t, "demo"))
	sid := legacySession(t, s.url)
	sleep := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"demo__sleep","arguments":{"ms":600000},"_meta":{"progressToken":"tok"}}}`
	ctx, giveUp := context.WithCancel(context.Background())
	resp := do(t, legacyPost(t, s.url, sid, sleep, nil).WithContext(ctx))
	first, msg := eventsOf(t, resp).nextEvent()
	if !strings.Contains(msg, "sleeping 600000 ms") || first == "" {
		t.Fatalf("first event %q %s; want the sleep's progress, with an id", first, msg)
	}
	if s.gw.FastCalls() != 1 {
		t.Fatalf("%d fast calls; want the sleep's", s.gw.FastCalls())
	}
	giveUp()
	resp.Body.Close()

	resume := func(lastID string) *http.Response {
		get, _ := http.NewRequest(http.MethodGet, s.url, nil)
		get.Header.Set("Accept", "text/event-stream")
		get.Header.Set("Mcp-Session-Id", sid)
		get.Header.Set("Mcp-Protocol-Version", config.ProtocolLegacy)
		get.Header.Set("Last-Event-ID", lastID)
		return do(t, get)
	}
	// The POST's end reaches the server a moment after the client's: until
	// then the stream is the POST's (409, as go-sdk answers).
	deadline := time.Now().Add(30 * time.Second)
	var stream *http.Response
	for {
		stream = resume(first)
		if stream.StatusCode != http.StatusConflict || time.Now().After(deadline) {
			break
		}
		stream.Body.Close()
		time.Sleep(10 * time.Millisecond) // no event marks the POST's end on the server
	}
	defer stream.Body.Close()
	ev := eventsOf(t, stream)
	cancel := do(t, legacyPost(t, s.url, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, nil))
	cancel.Body.Close()
	last, msg := ev.nextEvent()
	if !strings.Contains(msg, `"id":7`) || !strings.Contains(msg, `"error"`) || last == "" || strings.Split(last, "_")[0] != strings.Split(first, "_")[0] {
		t.Fatalf("the resumed stream carried %q %s; want the cancelled call's reply, an event of its stream", last, msg)
	}

	// Answered: go-sdk's transport replays the stream from the store.
	replay := resume(first)
	defer replay.Body.Close()
	if id, msg := eventsOf(t, replay).nextEvent(); id != last || !strings.Contains(msg, `"id":7`) {
		t.Errorf("the replay after the reply: %q %s; want the reply, %q", id, msg, last)
	}
}
