package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// downable serves the demo server over streamable HTTP from this
// process, its readme resource saying readme when not empty, until down
// is set; from then on every new request's connection is dropped without
// an answer, as a server that went down (or a network that lost it) does.
// The host's connection stays published: nothing tells it yet.
func downable(t *testing.T, name, readme string) (config.ServerConfig, *atomic.Bool) {
	t.Helper()
	var down atomic.Bool
	srv := demo.NewServer(demo.Options{Name: name})
	if readme != "" {
		srv.AddResource(&mcp.Resource{URI: demo.ReadmeURI, Name: "readme"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: demo.ReadmeURI, Text: readme}}}, nil
		})
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !down.Load() {
			handler.ServeHTTP(w, r)
			return
		}
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		// The host's goodbye (DELETE) was dropped with everything else.
		for ss := range srv.Sessions() {
			ss.Close()
		}
	})
	return config.ServerConfig{Name: name, Type: config.TransportHTTP, URL: ts.URL,
		Source: config.Source{Provider: "test", Path: "reply_test.go", Level: config.LevelExplicit}}, &down
}

// A call that never reached its server (a remote one that went down) is
// a tool error saying why, for the model to read, as DESIGN.md "The
// gateway" says; before, go-sdk's "rejected by transport" came back to
// the client as JSON-RPC error -32005. Both eras of client.
func TestUnreachedCallIsToolError(t *testing.T) {
	cfg, down := downable(t, "far", "")
	s := serve(t, gateway.HTTPOptions{}, cfg)
	ctx := context.Background()
	for _, version := range []string{config.ProtocolLegacy, ""} {
		sess := s.clientAt(t, "", nil, version)
		down.Store(false)
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "far__echo", Arguments: map[string]any{"text": "up"}})
		if err != nil || textOf(res) != "up" {
			t.Fatalf("%q: while up: %v %v", version, res, err)
		}
		down.Store(true)
		res, err = sess.CallTool(ctx, &mcp.CallToolParams{Name: "far__echo", Arguments: map[string]any{"text": "down"}})
		if err != nil {
			t.Errorf("%q: while down: %v; want a tool error, not a JSON-RPC error", version, err)
			continue
		}
		if why := textOf(res); !res.IsError || !strings.Contains(why, `"far"`) {
			t.Errorf("%q: while down: %q (isError %v); want a tool error naming the server", version, why, res.IsError)
		}
	}
}
