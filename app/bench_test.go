package app_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// BenchmarkObservedCall is a call through the gateway (a client over a
// pipe, the demo server over stdio) with metrics and traces off, with
// metrics, and with both (spans exported to a receiver on loopback):
// what observing costs a call.
//
//	go test -run '^$' -bench ObservedCall -count 5 ./app
func BenchmarkObservedCall(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name             string
		metrics, tracing bool
	}{{"off", false, false}, {"metrics", true, false}, {"metrics+traces", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			opts := &app.Options{Host: &host.Options{ToolPrefix: host.NoToolPrefix}, Gateway: &gateway.Options{}}
			if bc.metrics {
				opts.Metrics = app.NewMetrics()
			}
			if bc.tracing {
				b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", listenB(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					w.Header().Set("Content-Type", "application/x-protobuf")
				})))
				tp, shutdown, err := app.TracingFromEnv(ctx)
				if err != nil {
					b.Fatal(err)
				}
				defer shutdown(ctx)
				opts.Tracing = tp
			}
			first := &app.Loaded{Servers: []config.ServerConfig{{Name: "demo", Command: exe, Env: map[string]string{demo.EnvServerMode: "1"}}}}
			a, err := app.Start(ctx, first, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			clientIn, serverOut := io.Pipe()
			serverIn, clientOut := io.Pipe()
			served := make(chan error, 1)
			go func() { served <- a.ServePipe(ctx, host.ViewFilter{}, serverIn, serverOut) }()
			defer func() { <-served }()
			c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			sess, err := c.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Close()
			params := &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hi"}}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := sess.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
