package gateway_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
)

// tinyBuffers is a listener whose connections have the smallest send
// buffer the kernel allows, so that a client that stops reading stalls
// the server's writes after a few kilobytes, not megabytes.
type tinyBuffers struct{ net.Listener }

func (l tinyBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(1)
	}
	return c, err
}

// A client that stops reading the event stream of its call stalls no one
// else: the upstream server's progress for that call goes on arriving
// while the client reads nothing, and the write that blocks is given up
// after a bound, so the progress of another client's call to the same
// server still arrives. Before, the write to the stalled POST blocked for
// ever on the goroutine that hands on every notification of that server
// (go-sdk handles a client's notifications one at a time): no progress,
// log line, list_changed or server request of that server reached
// anyone again.
func TestStalledCallStallsNoOne(t *testing.T) {
	const steps = 20000
	call := func(meta string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"demo__progress","arguments":{"steps":` +
			strconv.Itoa(steps) + `},"_meta":{"progressToken":"stalled"` + meta + `}}}`
	}
	for _, era := range []struct {
		name string
		post func(t *testing.T, url string) *http.Request
	}{
		{config.ProtocolLegacy, func(t *testing.T, url string) *http.Request {
			return legacyPost(t, url, legacySession(t, url), call(""), nil)
		}},
		{config.ProtocolModern, func(t *testing.T, url string) *http.Request {
			return modernPost{body: call("," + strings.TrimSuffix(strings.TrimPrefix(modernMeta(config.ProtocolModern), `"_meta":{`), "}"))}.request(t, url)
		}},
	} {
		t.Run(era.name, func(t *testing.T) { stalledCallStallsNoOne(t, era.post) })
	}
}

func stalledCallStallsNoOne(t *testing.T, post func(t *testing.T, url string) *http.Request) {
	answered := make(chan struct{})
	// Tells when the stalled call's upstream result is in: every one of its
	// progress notifications was read before it, so whatever the server
	// sends later waits behind them.
	seen := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p.Name == "demo__progress" {
				close(answered)
			}
			return res, err
		}
	}
	s := serveWith(t, &gateway.Options{Middleware: []mcp.Middleware{seen}}, gateway.HTTPOptions{}, demoServer(t, "demo", "--test-tools"))
	srv := httptest.NewUnstartedServer(s.gw.Handler(gateway.HTTPOptions{}))
	srv.Listener = tinyBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	url := srv.URL + gateway.Path

	// The stalled client: a call whose answer is an event stream of far
	// more progress than any buffer holds, never read.
	stalled := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(1)
		}
		return c, err
	}}}
	resp, err := stalled.Do(post(t, url))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() // never read
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("the stalled call is answered as HTTP %d %q, want an event stream", resp.StatusCode, ct)
	}
	select {
	case <-answered:
	case <-time.After(60 * time.Second):
		t.Fatal("the upstream never answered the stalled call")
	}

	// A call to the same server is answered meanwhile: go-sdk retires
	// replies on its reader, never behind a notification.
	callCtx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	if res, err := s.h.CallTool(callCtx, "demo__echo", map[string]any{"text": "hi"}); err != nil || textOf(res) != "hi" {
		t.Fatalf("a direct call while the client stalls: %v, %v", res, err)
	}

	// Another client's call to the same server: its progress comes after
	// the stalled call's, from the same server.
	progressed := make(chan struct{}, 1)
	other := s.clientAt(t, "", &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		select {
		case progressed <- struct{}{}:
		default:
		}
	}}, config.ProtocolLegacy)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"ms": 600000}}
	params.SetProgressToken("other")
	ended := make(chan error, 1)
	go func() { _, err := other.CallTool(ctx, params); ended <- err }()
	select {
	case <-progressed:
	case <-time.After(30 * time.Second): // the bound on a write is 5 s
		t.Fatal("another client's progress from the same server never came: the stalled client holds the server's notifications")
	}
	cancel()
	<-ended
}
