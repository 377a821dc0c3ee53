package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
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
