package app_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/otlptest"
)

// listen serves h on loopback until the test ends; it returns the base url.
func listen(t *testing.T, h http.Handler) string { return listenB(t, h) }

func listenB(t testing.TB, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// TestTraces: a call through the gateway to a server over HTTP is one
// trace, from the client's traceparent in _meta through the gateway's
// server span and the host's client span to the server, which gets the
// host's span as its parent in _meta and in the traceparent header.
func TestTraces(t *testing.T) {
	rc := &otlptest.Receiver{}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", listen(t, rc))
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	ctx := context.Background()
	tp, shutdown, err := app.TracingFromEnv(ctx)
	if err != nil || tp == nil {
		t.Fatalf("TracingFromEnv: %v, %v", tp, err)
	}

	// The upstream records the trace context each tools/call brought.
	var mu sync.Mutex
	var metaParents, headerParents []string
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	mcp.AddTool(up, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		defer mu.Unlock()
		s, _ := req.Params.Meta["traceparent"].(string)
		metaParents = append(metaParents, s)
		headerParents = append(headerParents, req.Extra.Header.Get("Traceparent"))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil, nil
	})
	upURL := listen(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil))

	first := &app.Loaded{Servers: []config.ServerConfig{{Name: "up", Type: config.TransportHTTP, URL: upURL, ProtocolVersion: config.ProtocolLegacy}}}
	a, err := app.Start(ctx, first, &app.Options{Host: &host.Options{ToolPrefix: host.NoToolPrefix}, Gateway: &gateway.Options{}, Tracing: tp})
	if err != nil {
		t.Fatal(err)
	}
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- a.ServePipe(ctx, host.ViewFilter{}, serverIn, serverOut) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	// The client's messages, as sent: the tools/call's JSON-RPC id is the
	// one the gateway's span must carry.
	var sent bytes.Buffer
	tr := &mcp.LoggingTransport{Transport: &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, Writer: &sent}
	sess, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	const traceID, clientSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	params := &mcp.CallToolParams{Name: "up__echo", Arguments: map[string]any{}}
	params.Meta = mcp.Meta{"traceparent": "00-" + traceID + "-" + clientSpan + "-01"}
	if res, err := sess.CallTool(ctx, params); err != nil || res.IsError {
		t.Fatalf("call: %+v, %v", res, err)
	}
	sess.Close()
	<-served
	a.Close()
	if err := shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}

	byName := map[string]*tracepb.Span{}
	for _, s := range rc.Spans() {
		byName[s.GetName()] = s
	}
	down, upCall := byName["tools/call up__echo"], byName["tools/call echo"]
	if down == nil || upCall == nil {
		names := []string{}
		for n := range byName {
			names = append(names, n)
		}
		t.Fatalf("spans received: %v; want the gateway's and the host's tools/call", names)
	}
	for _, s := range []*tracepb.Span{down, upCall} {
		if got := hex.EncodeToString(s.GetTraceId()); got != traceID {
			t.Errorf("span %q is in trace %s, want the client's %s", s.GetName(), got, traceID)
		}
		attrs := attrsOf(s)
		if attrs["mcp.method.name"] != "tools/call" || attrs["gen_ai.tool.name"] == "" {
			t.Errorf("span %q attributes: %v", s.GetName(), attrs)
		}
		if s == upCall && attrs["mcp.session.id"] == "" {
			t.Errorf("the host's span has no mcp.session.id of its HTTP server's session: %v", attrs)
		}
	}
	if got, want := attrsOf(down)["jsonrpc.request.id"], sentID(t, sent.String(), "tools/call"); got != want {
		t.Errorf("the gateway's span has jsonrpc.request.id %q, want the client's request's id %q", got, want)
	}
	if got := hex.EncodeToString(down.GetParentSpanId()); got != clientSpan {
		t.Errorf("the gateway's span has parent %s, want the client's %s", got, clientSpan)
	}
	if down.GetKind() != tracepb.Span_SPAN_KIND_SERVER || upCall.GetKind() != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("kinds: %v, %v; want server, client", down.GetKind(), upCall.GetKind())
	}
	if string(upCall.GetParentSpanId()) != string(down.GetSpanId()) {
		t.Errorf("the host's span is not the gateway's child")
	}
	want := "00-" + traceID + "-" + hex.EncodeToString(upCall.GetSpanId()) + "-01"
	mu.Lock()
	defer mu.Unlock()
	if len(metaParents) != 1 || metaParents[0] != want {
		t.Errorf("upstream _meta traceparent: %q, want [%q]", metaParents, want)
	}
	if len(headerParents) != 1 || headerParents[0] != want {
		t.Errorf("upstream traceparent header: %q, want [%q]", headerParents, want)
	}
}

func attrsOf(s *tracepb.Span) map[string]string {
	attrs := map[string]string{}
	for _, kv := range s.GetAttributes() {
		attrs[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	return attrs
}

// sentID is the JSON-RPC id, as its JSON text, of the one request for
// method in an mcp.LoggingTransport's log.
func sentID(t *testing.T, log, method string) string {
	t.Helper()
	var ids []string
	for line := range strings.Lines(log) {
		rest, ok := strings.CutPrefix(line, "write: ")
		if !ok {
			continue
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal([]byte(rest), &msg); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if msg.Method == method && msg.ID != nil {
			ids = append(ids, string(msg.ID))
		}
	}
	if len(ids) != 1 {
		t.Fatalf("the client sent %d %s requests (%v), want 1", len(ids), method, ids)
	}
	return ids[0]
}

// TestTracesRequestIDOverHTTP: over streamable HTTP, as serve --http runs
// it, a client's tools/call span carries the JSON-RPC id the client sent,
// in the legacy era's sessions and the new era's stateless requests.
func TestTracesRequestIDOverHTTP(t *testing.T) {
	rc := &otlptest.Receiver{}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", listen(t, rc))
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	ctx := context.Background()
	tp, shutdown, err := app.TracingFromEnv(ctx)
	if err != nil || tp == nil {
		t.Fatalf("TracingFromEnv: %v, %v", tp, err)
	}
	flusher, ok := tp.(interface{ ForceFlush(context.Context) error })
	if !ok {
		t.Fatalf("TracingFromEnv's provider %T cannot be flushed", tp)
	}
	s := serveDemo(t, &app.Options{Tracing: tp}, gateway.HTTPOptions{})
	for _, era := range []string{config.ProtocolLegacy, config.ProtocolModern} {
		var sent bytes.Buffer
		tr := &mcp.LoggingTransport{Transport: &mcp.StreamableClientTransport{Endpoint: s.url + gateway.Path, DisableStandaloneSSE: true}, Writer: &sent}
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		sess, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: era})
		if err != nil {
			t.Fatalf("%s: %v", era, err)
		}
		// The tool's name tells the eras' spans apart.
		params := &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": era}}
		params.Meta = mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
		if res, err := sess.CallTool(ctx, params); err != nil || res.IsError {
			t.Fatalf("%s: call: %+v, %v", era, res, err)
		}
		sess.Close()
		if err := flusher.ForceFlush(ctx); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, sp := range rc.Spans() {
			if sp.GetName() == "tools/call demo__echo" {
				ids = append(ids, attrsOf(sp)["jsonrpc.request.id"])
			}
		}
		want := sentID(t, sent.String(), "tools/call")
		if len(ids) == 0 || ids[len(ids)-1] != want {
			t.Errorf("%s: the gateway's tools/call spans have jsonrpc.request.id %q, want the last %q", era, ids, want)
		}
	}
	if err := shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}
