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
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// modernMeta is the _meta a 2026-07-28 request carries, naming version.
func modernMeta(version string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version +
		`","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
}

// modernPost is a POST of body as a 2026-07-28 client sends it, with
// edit applied to its headers.
type modernPost struct {
	name   string
	method string // HTTP method; POST when empty
	body   string
	edit   func(http.Header)
}

func (p modernPost) request(t *testing.T, url string) *http.Request {
	t.Helper()
	method := p.method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequest(method, url, strings.NewReader(p.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", config.ProtocolModern)
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(p.body), &msg) == nil {
		req.Header.Set("Mcp-Method", msg.Method)
		if name := msg.Params.Name + msg.Params.URI; name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	}
	if p.edit != nil {
		p.edit(req.Header)
	}
	return req
}

// answer is what a test compares of an HTTP answer: its status, and the
// JSON-RPC messages it carried (as JSON or as SSE events), or else its
// text.
type answer struct {
	status   int
	messages []string
	text     string
}

func answerOf(t *testing.T, resp *http.Response) answer {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: resp.StatusCode}
	switch ct := resp.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "application/json"):
		a.messages = []string{canonical(t, body)}
	case strings.HasPrefix(ct, "text/event-stream"):
		for line := range strings.SplitSeq(string(body), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok && data != "" {
				a.messages = append(a.messages, canonical(t, []byte(data)))
			}
		}
	default:
		a.text = strings.TrimSpace(string(body))
	}
	return a
}

// canonical is a JSON-RPC message with its error's message left out: the
// code is the protocol's, the words are go-sdk's to choose.
func canonical(t *testing.T, raw []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("no JSON-RPC message: %q", raw)
	}
	if e, ok := m["error"].(map[string]any); ok {
		delete(e, "message")
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// The gateway's 2026-07-28 requests are answered as go-sdk's stateless
// handler answers them, on the same view's server: the calls it serves on
// its own connection (a tool call, a list, a prompt) and everything it
// leaves to go-sdk (bad headers, a _meta that does not match, an unknown
// method, a batch, a notification, GET). Only the framing of a plain
// reply differs: JSON, where go-sdk's is a one-event SSE stream.
func TestModernAnswersAsGoSDK(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo"))
	srv, err := s.gw.View(host.ViewFilter{})
	if err != nil {
		t.Fatal(err)
	}
	ref := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true}))
	defer ref.Close()

	meta := modernMeta(config.ProtocolModern)
	echo := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo__echo","arguments":{"text":"hi"},` + meta + `}}`
	del := func(key string) func(http.Header) { return func(h http.Header) { h.Del(key) } }
	set := func(key, value string) func(http.Header) { return func(h http.Header) { h.Set(key, value) } }
	posts := []modernPost{
		{name: "tool call", body: echo},
		{name: "string id", body: strings.Replace(echo, `"id":1`, `"id":"a-b"`, 1)},
		{name: "tools/list", body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`},
		{name: "unknown tool", body: strings.Replace(echo, "demo__echo", "demo__nope", 1)},
		{name: "no Mcp-Method", body: echo, edit: del("Mcp-Method")},
		{name: "other Mcp-Method", body: echo, edit: set("Mcp-Method", "tools/list")},
		{name: "no Mcp-Name", body: echo, edit: del("Mcp-Name")},
		{name: "other Mcp-Name", body: echo, edit: set("Mcp-Name", "demo__other")},
		{name: "no _meta", body: `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`},
		{name: "other _meta version", body: strings.Replace(echo, `"2026-07-28"`, `"2025-11-25"`, 1)},
		{name: "no capabilities", body: strings.Replace(echo, `,"io.modelcontextprotocol/clientCapabilities":{}`, "", 1)},
		{name: "unsupported version", body: strings.Replace(echo, `"2026-07-28"`, `"2099-01-01"`, 1), edit: set("Mcp-Protocol-Version", "2099-01-01")},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":4,"method":"nope/nothing","params":{` + meta + `}}`},
		{name: "call without params", body: `{"jsonrpc":"2.0","id":5,"method":"tools/call"}`},
		{name: "notification", body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`},
		{name: "batch", body: `[` + echo + `]`},
		{name: "not JSON", body: `{"jsonrpc":`},
		{name: "empty", body: ``},
		{name: "text body", body: echo, edit: set("Content-Type", "text/plain")},
		{name: "JSON only accepted", body: echo, edit: set("Accept", "application/json")},
		{name: "Last-Event-ID", body: echo, edit: set("Last-Event-ID", "x_1")},
		{name: "GET", method: http.MethodGet},
		{name: "DELETE", method: http.MethodDelete},
	}
	for _, p := range posts {
		got := answerOf(t, do(t, p.request(t, s.url)))
		want := answerOf(t, do(t, p.request(t, ref.URL)))
		if got.status != want.status || got.text != want.text || strings.Join(got.messages, "\n") != strings.Join(want.messages, "\n") {
			t.Errorf("%s: the gateway answers %+v; go-sdk %+v", p.name, got, want)
		}
	}
	// The plain reply is JSON (go-sdk's an event stream).
	resp := do(t, modernPost{body: echo}.request(t, s.url))
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("a plain reply is %q; want application/json", ct)
	}
}

func do(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// A 2026-07-28 call that reports progress is answered as an event
// stream, progress first; a client that gives the POST up cancels the
// call upstream, and the request's session ends.
func TestModernProgressStreamsAndCancels(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo"))
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"demo__sleep","arguments":{"ms":600000},` +
		`"_meta":{"progressToken":"tok","io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := modernPost{body: body}.request(t, s.url).WithContext(ctx)
	resp := do(t, req)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("HTTP %d %q; want 200 and an event stream", resp.StatusCode, ct)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			if !strings.Contains(data, `"notifications/progress"`) || !strings.Contains(data, "sleeping 600000 ms") {
				t.Fatalf("first event %s; want the sleep's progress", data)
			}
			break
		}
	}
	if s.gw.Stats().Sessions != 1 {
		t.Errorf("during the call %d sessions; want the request's one", s.gw.Stats().Sessions)
	}
	cancel()
	// The request's session closes once its call has returned: only the
	// call's cancellation ends a sleep of ten minutes.
	deadline := time.Now().Add(30 * time.Second)
	for s.gw.Stats().Sessions != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the call of a POST given up did not end")
		}
		time.Sleep(10 * time.Millisecond) // no event marks a session's end
	}
}

// A tool whose schema binds an argument to a header (x-mcp-header,
// go-sdk's everything-server's test_x_mcp_header) has its Mcp-Param-*
// headers checked as go-sdk checks them: its calls are go-sdk's handler's.
func TestModernParamHeadersAsGoSDK(t *testing.T) {
	command, args := peers.GoEverythingStdio(t)
	s := serve(t, gateway.HTTPOptions{}, config.ServerConfig{Name: "ev", Command: command, Args: args, ProtocolVersion: config.ProtocolLegacy,
		Source: config.Source{Provider: "test", Level: config.LevelExplicit}})
	srv, err := s.gw.View(host.ViewFilter{})
	if err != nil {
		t.Fatal(err)
	}
	ref := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true}))
	defer ref.Close()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ev__test_x_mcp_header","arguments":{"region":"eu","level":2},` +
		modernMeta(config.ProtocolModern) + `}}`
	region := func(v string) func(http.Header) { return func(h http.Header) { h.Set("Mcp-Param-Region", v) } }
	for _, p := range []modernPost{
		{name: "its header", body: call, edit: region("eu")},
		{name: "no header", body: call},
		{name: "another value", body: call, edit: region("us")},
	} {
		got := answerOf(t, do(t, p.request(t, s.url)))
		want := answerOf(t, do(t, p.request(t, ref.URL)))
		if got.status != want.status || got.text != want.text || strings.Join(got.messages, "\n") != strings.Join(want.messages, "\n") {
			t.Errorf("%s: the gateway answers %+v; go-sdk %+v", p.name, got, want)
		}
		if p.name == "no header" && want.status != http.StatusBadRequest {
			t.Errorf("go-sdk let a call without its Mcp-Param-Region header through: %+v", want)
		}
	}
}
