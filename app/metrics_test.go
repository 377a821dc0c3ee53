package app_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// bearerTransport adds a token to every request.
type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// clients are an HTTP client with the token and one without, whose
// connections close when the test ends (goleak).
func clients(t *testing.T, token string) (with, without *http.Client) {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: bearerTransport{token, tr}}, &http.Client{Transport: tr}
}

// serveHTTP starts an app over the demo server, serving HTTP on loopback
// with token; it returns the base url.
func serveHTTP(t *testing.T, opts *app.Options, token string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	first := &app.Loaded{Servers: []config.ServerConfig{{
		Name: "demo", Command: exe, Env: map[string]string{demo.EnvServerMode: "1"},
	}}}
	opts.Host = &host.Options{ToolPrefix: host.NoToolPrefix}
	opts.Gateway = &gateway.Options{}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.Start(ctx, first, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- a.ServeHTTP(ctx, ln, gateway.HTTPOptions{Token: token}) }()
	t.Cleanup(func() {
		cancel()
		<-served
		a.Close()
	})
	return "http://" + ln.Addr().String()
}

// TestMetrics: a scrape of /metrics after a few calls of every outcome
// passes promtool, and its counters are the calls made.
func TestMetrics(t *testing.T) {
	promtool := peers.Promtool(t)
	const token = "metrics-test-token"
	m := app.NewMetrics()
	base := serveHTTP(t, &app.Options{Metrics: m}, token)
	ctx := context.Background()
	client, anonymous := clients(t, token)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + gateway.Path, HTTPClient: client},
		&mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for range 3 {
		if res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hi"}}); err != nil || res.IsError {
			t.Fatalf("echo: %+v, %v", res, err)
		}
	}
	for range 2 {
		if res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__fail", Arguments: map[string]any{"message": "no"}}); err != nil || !res.IsError {
			t.Fatalf("fail: %+v, %v", res, err)
		}
	}

	if resp, err := anonymous.Get(base + app.MetricsPath); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/metrics without the token: %v, %v; want 401", resp, err)
	} else {
		resp.Body.Close()
	}
	resp, err := client.Get(base + app.MetricsPath)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d, %v", resp.StatusCode, err)
	}

	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = bytes.NewReader(body)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}

	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]string]float64{{"demo__echo", host.OutcomeOK}: 3, {"demo__fail", host.OutcomeToolError}: 2}
	got := map[[2]string]float64{}
	for _, mf := range families["switchboard_tool_calls_total"].GetMetric() {
		l := labels(mf)
		if l["server"] != "demo" {
			t.Errorf("a call counted for server %q", l["server"])
		}
		got[[2]string{l["tool"], l["outcome"]}] = mf.GetCounter().GetValue()
	}
	if len(got) != len(want) {
		t.Errorf("calls counted: %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("calls of %s with outcome %s: %v, want %v", k[0], k[1], got[k], n)
		}
	}
	var observed uint64
	for _, mf := range families["switchboard_tool_call_duration_seconds"].GetMetric() {
		observed += mf.GetHistogram().GetSampleCount()
	}
	if observed != 5 {
		t.Errorf("latencies observed: %d, want 5", observed)
	}
	if g := gauge(families, "switchboard_servers", "state", string(host.StateConnected)); g != 1 {
		t.Errorf("connected servers: %v, want 1", g)
	}
	if g := gauge(families, "switchboard_gateway_sessions", "era", config.ProtocolLegacy); g != 1 {
		t.Errorf("legacy sessions: %v, want 1", g)
	}
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// gauge is the value of the gauge name whose label is value.
func gauge(families map[string]*dto.MetricFamily, name, label, value string) float64 {
	for _, m := range families[name].GetMetric() {
		if labels(m)[label] == value {
			return m.GetGauge().GetValue()
		}
	}
	return -1
}
