package app_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
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
// metrics, with both (spans exported to a receiver on loopback), with the
// audit log, and with all three: what observing costs a call.
//
//	go test -run '^$' -bench ObservedCall -count 5 ./app
func BenchmarkObservedCall(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, overHTTP := range []bool{false, true} {
		for _, bc := range []struct {
			name                    string
			metrics, tracing, audit bool
		}{{"off", false, false, false}, {"metrics", true, false, false}, {"metrics+traces", true, true, false},
			{"audit", false, false, true}, {"all", true, true, true}} {
			name := bc.name
			if overHTTP {
				name = "http/" + name
			}
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				opts := &app.Options{Host: &host.Options{ToolPrefix: host.NoToolPrefix}, Gateway: &gateway.Options{}}
				if bc.metrics {
					opts.Metrics = app.NewMetrics()
				}
				if bc.audit {
					opts.Audit = &app.AuditOptions{File: filepath.Join(b.TempDir(), "audit.log")}
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
					b.Cleanup(func() { shutdown(ctx) })
					opts.Tracing = tp
				}
				first := &app.Loaded{Servers: []config.ServerConfig{{Name: "demo", Command: exe, Env: map[string]string{demo.EnvServerMode: "1"}}}}
				a, err := app.Start(ctx, first, opts)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { a.Close() }) // after the session's and the serving's, registered below
				sess := benchSession(b, ctx, a, overHTTP)
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
}

// benchSession is a legacy-era client session to a's gateway: over a
// pair of pipes (ServePipe), or over streamable HTTP on loopback
// (ServeHTTP), as serve --http runs it.
func benchSession(b *testing.B, ctx context.Context, a *app.App, overHTTP bool) *mcp.ClientSession {
	b.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	opts := &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy}
	var tr mcp.Transport
	if overHTTP {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		serveCtx, stop := context.WithCancel(ctx)
		served := make(chan error, 1)
		go func() { served <- a.ServeHTTP(serveCtx, ln, gateway.HTTPOptions{}) }()
		b.Cleanup(func() { stop(); <-served })
		tr = &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + gateway.Path}
	} else {
		clientIn, serverOut := io.Pipe()
		serverIn, clientOut := io.Pipe()
		served := make(chan error, 1)
		go func() { served <- a.ServePipe(ctx, host.ViewFilter{}, serverIn, serverOut) }()
		b.Cleanup(func() { <-served })
		tr = &mcp.IOTransport{Reader: clientIn, Writer: clientOut}
	}
	sess, err := c.Connect(ctx, tr, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sess.Close() })
	return sess
}
