package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
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
