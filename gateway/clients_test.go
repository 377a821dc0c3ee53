package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// A client's subscription is its own: client B, which never subscribed,
// unsubscribing does not end client A's, and the server is told to stop
// only when A, the last subscriber, unsubscribes. Both eras of client.
func TestSubscriptionsPerClient(t *testing.T) {
	for _, version := range []string{config.ProtocolLegacy, ""} {
		t.Run("version="+version, func(t *testing.T) { testSubscriptionsPerClient(t, version) })
	}
}

func testSubscriptionsPerClient(t *testing.T, version string) {
	const uri = "note://one"
	var subs, unsubs atomic.Int32
	unsubscribed := make(chan struct{}, 8)
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error { subs.Add(1); return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error {
			unsubs.Add(1)
			unsubscribed <- struct{}{}
			return nil
		},
	})
	srv.AddResource(&mcp.Resource{URI: uri, Name: "one"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: "1"}}}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		for ss := range srv.Sessions() {
			ss.Close()
		}
	})
	cfg := config.ServerConfig{Name: "notes", Type: config.TransportHTTP, URL: ts.URL,
		Source: config.Source{Provider: "test", Path: "subs_test.go", Level: config.LevelExplicit}}
	s := serve(t, gateway.HTTPOptions{}, cfg)
	ctx := context.Background()
	updated := make(chan string, 8)
	a := s.clientAt(t, "", &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		updated <- req.Params.URI
	}}, version)
	b := s.clientAt(t, "", nil, version)
	if err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if err := b.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if n := unsubs.Load(); n != 0 {
		t.Errorf("the server was told to stop %d times for a client that never subscribed", n)
	}
	if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("update of %s, want %s", got, uri)
		}
	case <-time.After(30 * time.Second): // only a lost subscription gets here
		t.Fatal("client A got no update after client B unsubscribed")
	}
	if err := a.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-unsubscribed:
	case <-time.After(30 * time.Second):
		t.Fatal("the server was not told to stop after the last subscriber left")
	}
	if s, u := subs.Load(), unsubs.Load(); s != 1 || u != 1 {
		t.Errorf("the server got %d subscribes and %d unsubscribes, want 1 and 1", s, u)
	}
}

// A page that rebound a name to this machine learns nothing, not even
// which server names are real: the Host check comes before ?servers=, and
// ?servers= answers a made-up name and a real one kept out of the view
// alike.
func TestRebindingLearnsNoNames(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{Filter: host.ViewFilter{Servers: []string{"a"}}}, demoServer(t, "a"), demoServer(t, "hidden"))
	do := func(hostHeader, query string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, s.url+query, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if hostHeader != "" {
			req.Host = hostHeader
			req.Header.Set("Origin", "http://"+hostHeader)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	rebound := map[string]string{}
	for _, q := range []string{"?servers=a", "?servers=hidden", "?servers=madeup", ""} {
		code, body := do("attacker.example:8080", q)
		if code != http.StatusForbidden {
			t.Errorf("rebound %q: %d, want 403", q, code)
		}
		rebound[q] = body
	}
	if rebound["?servers=a"] != rebound["?servers=madeup"] || rebound["?servers=hidden"] != rebound["?servers=madeup"] {
		t.Errorf("a rebound page tells names apart: %q", rebound)
	}
	_, hidden := do("", "?servers=hidden")
	_, madeup := do("", "?servers=madeup")
	if hidden != madeup || strings.Contains(hidden, "hidden") {
		t.Errorf("?servers= tells a real name kept out from a made-up one: %q vs %q", hidden, madeup)
	}
}

// Views are bounded without locking anyone out: past the bound, a view
// no client uses gives way; while every one is in use a new ?servers= list
// is refused with 503 saying why; and the whole gateway (/mcp) always
// answers. Before, 64 distinct lists filled the table and plain /mcp
// answered 400 to everyone until restart.
func TestViewsBounded(t *testing.T) {
	defer gateway.SetMaxViews(2)()
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "a"), demoServer(t, "b"), demoServer(t, "c"))
	status := func(query string) (int, string) {
		code, body, id := rawInitialize(t, s.url+query)
		if id != "" {
			del, _ := http.NewRequest(http.MethodDelete, s.url+query, nil)
			del.Header.Set("Mcp-Session-Id", id)
			if r, err := http.DefaultClient.Do(del); err == nil {
				r.Body.Close()
			}
		}
		return code, body
	}
	// Two views held by clients: a third is refused, the whole is not.
	a := s.clientAt(t, "?servers=a", nil, config.ProtocolLegacy)
	b := s.clientAt(t, "?servers=b", nil, config.ProtocolLegacy)
	if code, body := status("?servers=c"); code != http.StatusServiceUnavailable || !strings.Contains(body, "too many distinct ?servers= views in use") {
		t.Errorf("a third view while two are in use: %d %q, want 503 saying why", code, body)
	}
	if code, _ := status(""); code != http.StatusOK {
		t.Errorf("the whole gateway: %d, want 200", code)
	}
	// Once a client leaves, its view gives way.
	a.Close()
	if code, body := status("?servers=c"); code != http.StatusOK {
		t.Errorf("a third view once one is idle: %d %q, want 200", code, body)
	}
	if names := toolNames(t, b); !slices.Contains(names, "b__echo") || slices.Contains(names, "a__echo") {
		t.Errorf("the view in use kept its tools: %v", names)
	}
}

// Sessions are bounded: past MaxSessions a new one is refused with 503,
// and an idle one is closed after SessionIdle, making room. Before,
// 20,000 initializes held 250 MB with no end.
func TestSessionsBounded(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{MaxSessions: 2, SessionIdle: 300 * time.Millisecond}, demoServer(t, "a"))
	initialize := func() (int, string) {
		code, body, _ := rawInitialize(t, s.url)
		return code, body
	}
	for i := range 2 {
		if code, body := initialize(); code != http.StatusOK {
			t.Fatalf("session %d: %d %q", i+1, code, body)
		}
	}
	if code, body := initialize(); code != http.StatusServiceUnavailable || !strings.Contains(body, "too many sessions (2)") {
		t.Errorf("a third session: %d %q, want 503 saying why", code, body)
	}
	// The two are idle: they are closed, and a new one is taken.
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _ := initialize()
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("idle sessions were never closed")
		}
		time.Sleep(100 * time.Millisecond) // the idle timer is go-sdk's: nothing to await
	}
}

// rawInitialize posts a legacy initialize to url, answering its status,
// body and session id.
func rawInitialize(t *testing.T, url string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header.Get("Mcp-Session-Id")
}
