package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// dialBareHTTP is the floor of a call over streamable HTTP: a go-sdk
// client, with dialGateway's settings, to a demo server in this process
// behind go-sdk's own handler, no gateway and no upstream between. Its
// server is stateful in the 2025-11-25 era and stateless in 2026-07-28,
// as go-sdk serves each era (it answers 2026-07-28 only statelessly).
// Beside it a gateway call's own share is gateway − bare-http − host.
func dialBareHTTP(b testing.TB, version string, args map[string]any) func(context.Context) error {
	srv := demo.NewServer(demo.Options{Name: "bare-http"})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: version >= config.ProtocolModern, PropagateRequestCancellation: true})
	ts := httptest.NewServer(h)
	b.Cleanup(ts.Close)
	return dialHTTP(b, ts.URL, version, "echo", args)
}

// dialHTTP connects a go-sdk client to the MCP endpoint at url, speaking
// version, with an HTTP client that keeps a connection per caller, and
// returns a call of tool.
func dialHTTP(b testing.TB, url, version, tool string, args map[string]any) func(context.Context) error {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	sess, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sess.Close() })
	if got := sess.InitializeResult().ProtocolVersion; got != version {
		b.Fatalf("%s speaks %s, want %s", url, got, version)
	}
	return func(ctx context.Context) error {
		return resultErr(sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args}))
	}
}
