package gateway_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// TestMain doubles as the demo server: a config that runs this test binary
// with SWITCHBOARD_DEMO_SERVER=1 gets a real MCP server child process.
func TestMain(m *testing.M) {
	if os.Getenv(demo.EnvServerMode) == "1" {
		os.Exit(demo.Main(os.Args[1:]))
	}
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	goleak.VerifyTestMain(peers.Reporting(m))
}

func demoServer(t testing.TB, name string, flags ...string) config.ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return config.ServerConfig{
		Name: name, Command: exe, Args: append([]string{"--name", name}, flags...),
		Env:    map[string]string{demo.EnvServerMode: "1"},
		Source: config.Source{Provider: "test", Path: "gateway_test.go", Level: config.LevelExplicit},
	}
}

// served is a host with a gateway in front of it, over HTTP on loopback.
type served struct {
	h   *host.Host
	gw  *gateway.Gateway
	url string
}

func serve(t testing.TB, http gateway.HTTPOptions, configs ...config.ServerConfig) *served {
	t.Helper()
	return serveWith(t, nil, http, configs...)
}

// serveWith is serve with the gateway's options.
func serveWith(t testing.TB, opts *gateway.Options, http gateway.HTTPOptions, configs ...config.ServerConfig) *served {
	t.Helper()
	var gw *gateway.Gateway
	h := host.New(&host.Options{
		ToolPrefix: host.NoToolPrefix,
		Sampling: func(ctx context.Context, server string, req *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return gw.Sampling(ctx, server, req)
		},
		ListRoots: func(ctx context.Context, server string) ([]*mcp.Root, error) {
			return gw.ListRoots(ctx, server)
		},
		Roots: []*mcp.Root{{URI: "file:///host-root", Name: "host"}},
	})
	gw = gateway.New(h, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gw.Run(ctx) }()
	srv := httptest.NewServer(gw.Handler(http))
	t.Cleanup(func() {
		cancel() // ends the gateway's rounds, whose handlers the server waits for
		<-done
		srv.CloseClientConnections()
		srv.Close()
		h.Close()
	})
	if err := h.Start(ctx, configs); err != nil {
		t.Fatal(err)
	}
	h.WaitSettled(ctx)
	<-gw.Synced()
	return &served{h: h, gw: gw, url: srv.URL + gateway.Path}
}

// client connects a go-sdk client to the gateway (or a view of it).
func (s *served) client(t *testing.T, suffix string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return s.clientAt(t, suffix, opts, "")
}

// clientAt connects a client that asks for protocol version ("" for the
// newest).
func (s *served) clientAt(t testing.TB, suffix string, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	sess, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.url + suffix}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func toolNames(t *testing.T, sess *mcp.ClientSession) []string {
	t.Helper()
	res, err := sess.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// Tools of every server under SERVER__TOOL; a call, its progress passed
// through to the client's own token; a tool the server adds reaches the
// client as list_changed.
func TestCallProgressAndListChanged(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo", "--test-tools"), demoServer(t, "other"))
	progressed := make(chan string, 16)
	changed := make(chan struct{}, 8)
	// A client of the stateful era, whose cancellation is a notification
	// (a new-era client's is the end of its POST: the stress test has it).
	sess := s.clientAt(t, "", &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- req.Params.Message:
			default:
			}
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { notify(changed) },
	}, config.ProtocolLegacy)
	names := toolNames(t, sess)
	for _, want := range []string{"demo__echo", "other__echo", "demo__progress"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s in %v", want, names)
		}
	}
	ctx := context.Background()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "other__echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || textOf(res) != "hi" {
		t.Fatalf("echo: %v %v", res, err)
	}
	// Progress during a call reaches the client under its own token; the
	// client's cancellation ends the call. (A server's last report sent
	// just before its result may be lost: go-sdk hands notifications on
	// apart from results, and once the call is answered there is no
	// request left to carry it.)
	callCtx, cancel := context.WithCancel(ctx)
	params := &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"ms": 600000}}
	params.SetProgressToken("client-token")
	ended := make(chan error, 1)
	go func() { _, err := sess.CallTool(callCtx, params); ended <- err }()
	select {
	case msg := <-progressed:
		if msg != "sleeping 600000 ms" {
			t.Errorf("progress seen by the client: %q", msg)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no progress reached the client")
	}
	cancel()
	select {
	case err := <-ended:
		if err == nil {
			t.Error("a cancelled call succeeded")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled call did not end")
	}
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__add_tool", Arguments: map[string]any{"name": "extra"}}); err != nil {
		t.Fatal(err)
	}
	for !slices.Contains(toolNames(t, sess), "demo__extra") {
		select {
		case <-changed:
		case <-time.After(20 * time.Second):
			t.Fatalf("no list_changed with demo__extra; tools %v", toolNames(t, sess))
		}
	}
}

// A reload that adds a server reaches a connected client as list_changed.
func TestReloadReachesClient(t *testing.T) {
	first := demoServer(t, "one")
	s := serve(t, gateway.HTTPOptions{}, first)
	changed := make(chan struct{}, 8)
	sess := s.client(t, "", &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { notify(changed) },
	})
	if _, err := s.h.Reload(context.Background(), []config.ServerConfig{first, demoServer(t, "two")}); err != nil {
		t.Fatal(err)
	}
	for !slices.Contains(toolNames(t, sess), "two__echo") {
		select {
		case <-changed:
		case <-time.After(20 * time.Second):
			t.Fatalf("no list_changed after the reload; tools %v", toolNames(t, sess))
		}
	}
}

// ?servers= is a view; a token is required when set; a foreign Origin is
// refused.
func TestViewsTokenOrigin(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{Token: "sekrit-token"}, demoServer(t, "a"), demoServer(t, "b"))
	do := func(header map[string]string, query string) int {
		req, _ := http.NewRequest(http.MethodPost, s.url+query, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := do(nil, ""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code := do(map[string]string{"Authorization": "Bearer wrong"}, ""); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d, want 401", code)
	}
	if code := do(map[string]string{"Authorization": "Bearer sekrit-token", "Origin": "https://evil.example"}, ""); code != http.StatusForbidden {
		t.Errorf("foreign origin: %d, want 403", code)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: s.url + "?servers=a", HTTPClient: &http.Client{Transport: bearerTransport("sekrit-token")}}
	sess, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	names := toolNames(t, sess)
	if !slices.Contains(names, "a__echo") || slices.Contains(names, "b__echo") {
		t.Errorf("view of a: %v", names)
	}
}

type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// An upstream's sampling request goes to the client whose call led to it,
// in both eras (a request of the server's own under 2025-11-25, an
// input-required result under 2026-07-28); a client that does not offer
// sampling gets a refusal that says so.
func TestSamplingGoesToTheCaller(t *testing.T) {
	command, args := peers.GoEverythingStdio(t)
	for _, era := range []struct{ version, tool string }{
		{config.ProtocolLegacy, "ev__test_sampling"},
		{config.ProtocolModern, "ev__test_input_required_result_sampling"},
	} {
		for _, client := range []string{config.ProtocolLegacy, config.ProtocolModern} {
			t.Run("upstream "+era.version+" client "+client, func(t *testing.T) {
				s := serve(t, gateway.HTTPOptions{}, config.ServerConfig{Name: "ev", Command: command, Args: args, ProtocolVersion: era.version,
					Source: config.Source{Provider: "test", Level: config.LevelExplicit}})
				asked := make(chan string, 4)
				sess := s.clientAt(t, "", &mcp.ClientOptions{
					CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
						asked <- "asked"
						return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "from the client"}}, nil
					},
				}, client)
				if got := sess.InitializeResult().ProtocolVersion; got != client {
					t.Fatalf("the client speaks %s, want %s", got, client)
				}
				args := map[string]any{"prompt": "hello"}
				res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: era.tool, Arguments: args})
				if err != nil || res.IsError || !strings.Contains(textOf(res), "from the client") {
					t.Fatalf("sampling through the gateway: %q %v", textOf(res), err)
				}
				select {
				case <-asked:
				default:
					t.Error("the client's sampling handler was not asked")
				}
				plain := s.clientAt(t, "", nil, client)
				res, err = plain.CallTool(context.Background(), &mcp.CallToolParams{Name: era.tool, Arguments: args})
				if why := failure(res, err); !strings.Contains(why, "does not offer sampling") {
					t.Errorf("a client without sampling: %q; want a refusal naming sampling", why)
				}
			})
		}
	}
}

// A result over MaxResultText is cut with a note, and the whole of it is
// a resource the client can read.
func TestResultCutToSize(t *testing.T) {
	s := serveWith(t, &gateway.Options{MaxResultText: 100}, gateway.HTTPOptions{}, demoServer(t, "demo"))
	sess := s.client(t, "", nil)
	long := strings.Repeat("word ", 200)
	res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": long}})
	if err != nil {
		t.Fatal(err)
	}
	text := textOf(res)
	if len(text) > 300 || !strings.Contains(text, "cut at 100") {
		t.Fatalf("cut result: %q", text)
	}
	var uri string
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			uri = l.URI
		}
	}
	if !strings.HasPrefix(uri, "switchboard://results/") || !strings.Contains(text, uri) {
		t.Fatalf("no link to the whole result: %q %v", uri, res.Content)
	}
	whole, err := sess.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(whole.Contents) != 1 || whole.Contents[0].Text != long {
		t.Fatalf("reading the whole result: %v", err)
	}
	short, _ := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hi"}})
	if textOf(short) != "hi" {
		t.Errorf("a short result was changed: %q", textOf(short))
	}
}

// With ToolSearch a client sees three tools, finds one by what it does,
// reads its schema and calls it.
func TestToolSearch(t *testing.T) {
	s := serveWith(t, &gateway.Options{ToolSearch: true}, gateway.HTTPOptions{}, demoServer(t, "demo"), demoServer(t, "other"))
	sess := s.client(t, "", nil)
	names := toolNames(t, sess)
	slices.Sort(names)
	if !slices.Equal(names, []string{"call_tool", "describe_tool", "search_tools"}) {
		t.Fatalf("tools offered: %v", names)
	}
	ctx := context.Background()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "add two numbers", "limit": 3}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %v", err, res)
	}
	first, _, _ := strings.Cut(textOf(res), ":")
	if !strings.HasSuffix(first, "__add") {
		t.Fatalf("first hit %q, want an add tool:\n%s", first, textOf(res))
	}
	// It says why, as the library's search does (host.SearchToolHits).
	if !strings.Contains(textOf(res), "[matched: add, two, numbers]") {
		t.Errorf("search_tools does not say why the tools matched:\n%s", textOf(res))
	}
	res, err = sess.CallTool(ctx, &mcp.CallToolParams{Name: "describe_tool", Arguments: map[string]any{"name": first}})
	if err != nil || !strings.Contains(textOf(res), `"inputSchema"`) {
		t.Fatalf("describe: %v %q", err, textOf(res))
	}
	res, err = sess.CallTool(ctx, &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": first, "arguments": map[string]any{"a": 2, "b": 3}}})
	if err != nil || res.IsError || !strings.Contains(textOf(res), "5") {
		t.Fatalf("call: %v %q", err, textOf(res))
	}
}

// A call that reached its server and came back without a result is an
// error for the client too: the server's own JSON-RPC error with its
// code, or an internal error when the response was lost (go-sdk's
// conformance server closes the stream of test_reconnection and keeps no
// event store). A tool error stays a result. Both eras of client.
func TestUpstreamErrorsStayErrors(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo", "--test-tools"),
		config.ServerConfig{Name: "ev", Type: config.TransportHTTP, URL: peers.StartGoEverything(t, false), ProtocolVersion: config.ProtocolLegacy})
	ctx := context.Background()
	for _, version := range []string{"2025-11-25", ""} {
		sess := s.clientAt(t, "", nil, version)
		_, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__refuse", Arguments: map[string]any{"message": "no such thing"}})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, "no such thing") || !strings.Contains(rpc.Message, `"demo"`) {
			t.Errorf("%q: refuse: %v; want the server's -32602 naming it", version, err)
		}
		_, err = sess.CallTool(ctx, &mcp.CallToolParams{Name: "ev__test_reconnection"})
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInternalError || !strings.Contains(rpc.Message, "without response") {
			t.Errorf("%q: lost response: %v; want an internal error", version, err)
		}
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__fail", Arguments: map[string]any{"message": "tool says no"}})
		if err != nil || !res.IsError || textOf(res) != "tool says no" {
			t.Errorf("%q: fail: %v %v; want the tool error as a result", version, err, res)
		}
	}
}

// A completion for a prompt the view does not have is refused as invalid
// params, with a code, as an unknown tool or prompt is.
func TestCompleteUnknownPrompt(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo"))
	sess := s.client(t, "", nil)
	_, err := sess.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "A"},
	})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, `"greet"`) {
		t.Errorf("completion of a bare prompt name: %v; want -32602 naming it", err)
	}
}

// An upstream's roots/list during a call goes to the client that made it,
// in both eras of client; outside any call the host's roots answer; a
// client that offers no roots gets a refusal that says so.
func TestRootsComeFromTheCaller(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo", "--legacy", "--roots"))
	ctx := context.Background()
	for _, client := range []string{config.ProtocolLegacy, config.ProtocolModern} {
		c := mcp.NewClient(&mcp.Implementation{Name: "roots-client", Version: "1"}, nil)
		uri := "file:///client-" + client
		c.AddRoots(&mcp.Root{URI: uri, Name: "mine"})
		sess, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url}, &mcp.ClientSessionOptions{ProtocolVersion: client})
		if err != nil {
			t.Fatal(err)
		}
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__roots"})
		if err != nil {
			t.Fatalf("client %s: %v", client, err)
		}
		if res.IsError || textOf(res) != uri+" mine" {
			t.Errorf("client %s: roots seen by the server %q; want its own", client, textOf(res))
		}
		sess.Close()
	}
	if roots, err := s.gw.ListRoots(ctx, "demo"); roots != nil || err != nil {
		t.Errorf("outside a call: %v %v; want none of the gateway's, for the host's", roots, err)
	}
	bare := mcp.NewClient(&mcp.Implementation{Name: "no-roots", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	sess, err := bare.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__roots"})
	if why := failure(res, err); !strings.Contains(why, "does not offer roots") {
		t.Errorf("a client without roots: %q; want a refusal naming roots", why)
	}
}

// failure is why a call failed, from its error or its tool error, or ""
// when it did not.
func failure(res *mcp.CallToolResult, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case res.IsError:
		return textOf(res)
	}
	return ""
}

// pipeTransport serves the gateway's default view over a pair of pipes,
// as ServeStdio does on stdin and stdout, and returns a client's
// transport to them. t.Cleanup ends the serving; a session on it must be
// closed first (a cleanup registered later runs first).
func pipeTransport(t testing.TB, gw *gateway.Gateway) *mcp.IOTransport {
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	toClient, fromServer, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = gw.ServePipe(ctx, host.ViewFilter{}, toServer, fromServer)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		for _, f := range []*os.File{toServer, fromClient, toClient, fromServer} {
			f.Close()
		}
	})
	return &mcp.IOTransport{Reader: toClient, Writer: fromClient}
}

// Over a pipe (what serve runs on stdin and stdout) a line that is no
// JSON-RPC message is dropped, and the client's session goes on.
func TestServePipeSkipsNoise(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "demo"))
	tr := pipeTransport(t, s.gw)
	if _, err := io.WriteString(tr.Writer, "npm WARN not a message\n{\"level\":30}\n"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "pipe", Version: "1"}, nil)
	sess, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "through the pipe"}})
	if err != nil || textOf(res) != "through the pipe" {
		t.Fatalf("echo over the pipe: %v %v", err, res)
	}
}

// ?servers= narrows a client's window within what serve shows; a name
// outside it, or unknown, is refused rather than dropped (an empty list
// would show everything), and the same servers in another order are the
// same view.
func TestViewsStayWithinServe(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{Filter: host.ViewFilter{Servers: []string{"a"}}}, demoServer(t, "a"), demoServer(t, "b"))
	for query, want := range map[string]int{ // refused before any session is made
		"?servers=b":        http.StatusForbidden,
		"?servers=a,b":      http.StatusForbidden,
		"?servers=nosuch":   http.StatusForbidden,
		"?servers=,":        http.StatusForbidden,
		"?servers=%1b[31ma": http.StatusForbidden,
	} {
		req, _ := http.NewRequest(http.MethodPost, s.url+query, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: HTTP %d, want %d", query, resp.StatusCode, want)
		}
	}
	sess := s.client(t, "?servers=a", nil)
	if names := toolNames(t, sess); len(names) == 0 || !strings.HasPrefix(names[0], "a__") {
		t.Errorf("?servers=a shows %v", names)
	}
}

// A new-era client that gets an input-required result and never comes
// back leaves no round behind: the upstream's question is refused, and
// the round dropped, once roundIdle has passed.
func TestAbandonedRoundIsDropped(t *testing.T) {
	defer gateway.SetRoundIdle(100 * time.Millisecond)()
	command, args := peers.GoEverythingStdio(t)
	s := serve(t, gateway.HTTPOptions{}, config.ServerConfig{Name: "ev", Command: command, Args: args, ProtocolVersion: config.ProtocolLegacy,
		Source: config.Source{Provider: "test", Level: config.LevelExplicit}})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}`
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ev__test_sampling","arguments":{"prompt":"hello"},` + meta + `}}`
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", config.ProtocolModern)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "ev__test_sampling")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(got), "inputRequests") {
		t.Fatalf("HTTP %d %s; want an input-required result", resp.StatusCode, got)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		rounds, _, roundCallers := s.gw.InFlight()
		if rounds == 0 && roundCallers == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the client left: %d rounds, %d round callers; want none", rounds, roundCallers)
		}
		time.Sleep(20 * time.Millisecond) // no event marks a round's end
	}
}

// notify signals c without blocking: a full buffer has the news already,
// and a client's notification handler must not hang its session's close.
func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// serve --tools GLOB (a view's tool filter) matches exposed names, as its
// help says, not the servers' own (config.ToolFilter, issue 23).
func TestServeToolsMatchExposedNames(t *testing.T) {
	for glob, want := range map[string]string{"a__e*": "a__echo", "*__echo": "a__echo b__echo", "echo": ""} {
		s := serve(t, gateway.HTTPOptions{Filter: host.ViewFilter{Tools: config.ToolFilter{Allow: []string{glob}}}}, demoServer(t, "a"), demoServer(t, "b"))
		if got := strings.Join(toolNames(t, s.client(t, "", nil)), " "); got != want {
			t.Errorf("--tools %s serves %q, want %q", glob, got, want)
		}
	}
}
