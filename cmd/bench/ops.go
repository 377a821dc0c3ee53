package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/otlptest"
)

// opsContenders are the gateway with its operations off and on (issue
// 25's cost): asked for by name, as the gateway processes are.
var opsContenders = []string{"ops-off", "ops-on"}

// opsCaller calls through the app's gateway served over streamable HTTP
// on loopback, all in the contender's process, as `serve --http` runs it:
// ops-off with nothing observed, ops-on with the Prometheus metrics,
// traces exported over OTLP/HTTP to the harness's receiver on loopback
// (spanSink) and the audit log in a file of its own. The client speaks
// the legacy era, as gatewayCaller's.
type opsCaller struct {
	on       bool
	dir      string // the audit log's folder; removed on close
	a        *app.App
	stop     context.CancelFunc // ends ServeHTTP
	served   chan error
	sess     *mcp.ClientSession
	http     *http.Client
	params   *mcp.CallToolParams
	made     atomic.Int64 // calls made, to check the audit log against
	endTrace func(context.Context) error
}

func dialOps(on bool) func(context.Context, *target) (caller, error) {
	return func(ctx context.Context, t *target) (caller, error) {
		c := &opsCaller{on: on}
		if err := c.start(ctx, t); err != nil {
			return nil, errors.Join(fmt.Errorf("ops: %w", err), c.close())
		}
		return c, nil
	}
}

func (c *opsCaller) start(ctx context.Context, t *target) error {
	opts := &app.Options{Gateway: &gateway.Options{}}
	if c.on {
		var err error
		if c.dir, err = os.MkdirTemp("", "switchboard-bench-ops-"); err != nil {
			return err
		}
		opts.Audit = &app.AuditOptions{File: filepath.Join(c.dir, "audit.log")}
		opts.Metrics = app.NewMetrics()
		if opts.Tracing, err = c.startTracing(ctx); err != nil {
			return err
		}
	}
	var err error
	c.a, err = app.Start(ctx, &app.Loaded{Servers: []config.ServerConfig{t.serverConfig("bench")}}, opts)
	if err != nil {
		return err
	}
	h := c.a.Host()
	st := h.Status()[0]
	if st.State != host.StateConnected {
		return fmt.Errorf("server %s: %s", st.State, st.Error)
	}
	var exposed string
	for _, tool := range h.Tools().Tools {
		if tool.Tool == t.Tool {
			exposed = tool.Name
		}
	}
	if exposed == "" {
		return fmt.Errorf("no tool %q", t.Tool)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	serveCtx, stop := context.WithCancel(context.Background())
	c.stop, c.served = stop, make(chan error, 1)
	go func() { c.served <- c.a.ServeHTTP(serveCtx, ln, gateway.HTTPOptions{}) }()
	c.http = pooledClient()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + gateway.Path, HTTPClient: c.http}
	if c.sess, err = client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: host.ProtocolVersion}); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	c.params = &mcp.CallToolParams{Name: exposed, Arguments: t.Arguments}
	return nil
}

// envOTLP is the ops-on contender's OTLP/HTTP endpoint: the harness's
// receiver (spanSink), in a process of its own as a collector would be.
const envOTLP = "SWITCHBOARD_BENCH_OTLP"

// startTracing makes the tracer provider serve would make from the
// environment, pointed at the harness's receiver (this process is the
// contender's alone, so its environment is ours to set).
func (c *opsCaller) startTracing(ctx context.Context) (trace.TracerProvider, error) {
	endpoint := os.Getenv(envOTLP)
	if endpoint == "" {
		return nil, errors.New(envOTLP + " names no OTLP receiver")
	}
	for _, name := range []string{"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_EXPORTER"} {
		os.Unsetenv(name)
	}
	os.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	tp, end, err := app.TracingFromEnv(ctx)
	if err != nil {
		return nil, err
	}
	if tp == nil {
		return nil, errors.New("the OTEL_* environment turned traces off")
	}
	c.endTrace = end
	return tp, nil
}

// spanSink is the OTLP/HTTP receiver on loopback the ops-on contender
// exports its spans to, in the harness's process: it counts them.
type spanSink struct {
	rc  *otlptest.Receiver
	srv *http.Server
	url string
}

func startSpanSink() (*spanSink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &spanSink{rc: &otlptest.Receiver{CountOnly: true}, url: "http://" + ln.Addr().String()}
	s.srv = &http.Server{Handler: s.rc, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// stop ends the receiver once the contenders have ended (ops-on flushes
// its spans as it closes) and checks that ops-on traced: at least two
// spans (the gateway's, the host's) for each call it made.
func (s *spanSink) stop(cases []*callCase, warmup int) error {
	err := s.srv.Close()
	made := max(warmup, 1)
	for _, cc := range cases {
		for _, r := range cc.series("ops-on", func(r roundResult) float64 { return float64(r.Calls) }) {
			if !math.IsNaN(r) {
				made += int(r)
			}
		}
	}
	if got := s.rc.Count(); made > max(warmup, 1) && got < 2*made {
		return errors.Join(err, fmt.Errorf("ops-on: the OTLP receiver got %d spans for %d calls", got, made))
	}
	return err
}

func (c *opsCaller) calls(ctx context.Context, lat []time.Duration, callers int) error {
	return concurrently(lat, callers, func() error {
		c.made.Add(1)
		res, err := c.sess.CallTool(ctx, c.params)
		if err == nil && res.IsError {
			err = fmt.Errorf("%s: %s", c.params.Name, host.ResultText(res))
		}
		return err
	})
}

// close ends the session, the HTTP serving, the app, then flushes the
// spans, and with the operations on checks the audit log: a line a call.
func (c *opsCaller) close() error {
	var errs []error
	if c.sess != nil {
		errs = append(errs, c.sess.Close())
		c.http.CloseIdleConnections()
	}
	if c.stop != nil {
		c.stop()
		errs = append(errs, <-c.served)
	}
	if c.a != nil {
		errs = append(errs, c.a.Close())
	}
	if c.endTrace != nil {
		errs = append(errs, c.endTrace(context.Background()))
	}
	if c.on && c.sess != nil && errors.Join(errs...) == nil {
		errs = append(errs, c.check())
	}
	if c.dir != "" {
		errs = append(errs, os.RemoveAll(c.dir))
	}
	return errors.Join(errs...)
}

// checksOnClose says clientRole is to fail when close's check fails.
func (*opsCaller) checksOnClose() {}

func (c *opsCaller) check() error {
	made := c.made.Load()
	b, err := os.ReadFile(filepath.Join(c.dir, "audit.log"))
	if err != nil {
		return err
	}
	if lines := int64(bytes.Count(b, []byte("\n"))); lines != made {
		return fmt.Errorf("ops-on: the audit log has %d lines for %d calls", lines, made)
	}
	return nil
}

// p90us is a round's 90th percentile.
var p90us = func(r roundResult) float64 { return nanIf(r.P90Ns <= 0, float64(r.P90Ns)/1e3) }

// printOps compares, for each case where both ran, the gateway with its
// operations on and off: p50 and p90, their ratios round by round, the
// process's CPU, allocations and bytes per call.
func printOps(w io.Writer, cases []*callCase) {
	var shown []*callCase
	for _, cc := range cases {
		if slices.Contains(cc.contenders, "ops-off") && slices.Contains(cc.contenders, "ops-on") {
			shown = append(shown, cc)
		}
	}
	if len(shown) == 0 {
		return
	}
	fmt.Fprintln(w, "What operations cost a call through the gateway (streamable HTTP on loopback, in one process):")
	fmt.Fprintln(w, "ops-on has the metrics, traces exported to an OTLP receiver on loopback and the audit log; ops-off none.")
	fmt.Fprintln(w, "Medians over the rounds; on/off ratios are taken round by round: median [lowest–highest round].")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\ttransport\tcallers\toff p50 µs\ton p50 µs\ton/off p50\toff p90 µs\ton p90 µs\ton/off p90\tCPU µs/call off, on\tallocs/call off, on\tKB/call off, on\t")
	for _, cc := range shown {
		off50, on50 := cc.series("ops-off", p50us), cc.series("ops-on", p50us)
		off90, on90 := cc.series("ops-off", p90us), cc.series("ops-on", p90us)
		pair := func(f func(roundResult) float64, text func(float64) string) string {
			return text(summarize(cc.series("ops-off", f)).Median) + ", " + text(summarize(cc.series("ops-on", f)).Median)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", cc.server, cc.transport, cc.callers,
			medianText(off50), medianText(on50), ratioText(summarize(ratios(on50, off50))),
			medianText(off90), medianText(on90), ratioText(summarize(ratios(on90, off90))),
			pair(cpuUs, num), pair(allocs, whole), pair(kbytes, num))
	}
	tw.Flush()
	fmt.Fprintln(w)
}
