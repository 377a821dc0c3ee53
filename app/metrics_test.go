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
	"time"

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
// with token; it returns the app and the base url.
func serveHTTP(t *testing.T, opts *app.Options, token string) (*app.App, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// slow's calls time out at once: its sleep is a timeout.
	first := &app.Loaded{Servers: []config.ServerConfig{
		{Name: "demo", Command: exe, Env: map[string]string{demo.EnvServerMode: "1"}},
		{Name: "slow", Command: exe, Env: map[string]string{demo.EnvServerMode: "1"}, Timeout: 100 * time.Millisecond},
	}}
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
	return a, "http://" + ln.Addr().String()
}

// TestMetrics: a scrape of /metrics after a few calls of every outcome
// passes promtool, and its counters are the calls made.
func TestMetrics(t *testing.T) {
	promtool := peers.Promtool(t)
	const token = "metrics-test-token"
	m := app.NewMetrics()
	a, base := serveHTTP(t, &app.Options{Metrics: m}, token)
	ctx := context.Background()
	client, anonymous := clients(t, token)
	progressed := make(chan struct{}, 1)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		},
	})
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
	if res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "slow__sleep", Arguments: map[string]any{"ms": 60000}}); err != nil || !res.IsError {
		t.Fatalf("a call past its timeout: %+v, %v; want a tool error saying so", res, err)
	}
	// A call cancelled once it reached the server (its progress says so).
	cctx, cancel := context.WithCancel(ctx)
	sleeping := &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"ms": 60000}}
	sleeping.SetProgressToken("p1")
	cancelled := make(chan error, 1)
	go func() {
		_, err := sess.CallTool(cctx, sleeping)
		cancelled <- err
	}()
	<-progressed
	cancel()
	if err := <-cancelled; err == nil {
		t.Fatal("a cancelled call returned no error")
	}

	// slow connects again: a reconnect.
	if err := a.Host().Restart("slow"); err != nil {
		t.Fatal(err)
	}

	if resp, err := anonymous.Get(base + app.MetricsPath); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/metrics without the token: %v, %v; want 401", resp, err)
	} else {
		resp.Body.Close()
	}
	want := map[[3]string]float64{
		{"demo", "demo__echo", host.OutcomeOK}:         3,
		{"demo", "demo__fail", host.OutcomeToolError}:  2,
		{"slow", "slow__sleep", host.OutcomeTimeout}:   1,
		{"demo", "demo__sleep", host.OutcomeCancelled}: 1,
	}
	// The gateway answers a cancelled call before the host has its
	// outcome: scrape until it is counted.
	var body []byte
	var families map[string]*dto.MetricFamily
	got := map[[3]string]float64{}
	for deadline := time.Now().Add(eventBound); ; {
		body, families = scrape(t, client, base)
		clear(got)
		for _, mf := range families["switchboard_tool_calls_total"].GetMetric() {
			l := labels(mf)
			got[[3]string{l["server"], l["tool"], l["outcome"]}] = mf.GetCounter().GetValue()
		}
		reconnected := counter(families, "switchboard_server_reconnects_total", "server", "slow") == 1
		if (len(got) == len(want) && reconnected) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}

	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = bytes.NewReader(body)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}

	if len(got) != len(want) {
		t.Errorf("calls counted: %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("calls to %s of %s with outcome %s: %v, want %v", k[0], k[1], k[2], got[k], n)
		}
	}
	var observed uint64
	for _, mf := range families["switchboard_tool_call_duration_seconds"].GetMetric() {
		observed += mf.GetHistogram().GetSampleCount()
	}
	if observed != 7 {
		t.Errorf("latencies observed: %d, want 7", observed)
	}
	if g := gauge(families, "switchboard_servers", "state", string(host.StateConnected)); g != 2 {
		t.Errorf("connected servers: %v, want 2", g)
	}
	if n := counter(families, "switchboard_server_reconnects_total", "server", "slow"); n != 1 {
		t.Errorf("reconnects of slow: %v, want 1", n)
	}
	if g := gauge(families, "switchboard_gateway_sessions", "era", config.ProtocolLegacy); g != 1 {
		t.Errorf("legacy sessions: %v, want 1", g)
	}
}

// scrape gets /metrics and parses it.
func scrape(t *testing.T, client *http.Client, base string) ([]byte, map[string]*dto.MetricFamily) {
	t.Helper()
	resp, err := client.Get(base + app.MetricsPath)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d, %v", resp.StatusCode, err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return body, families
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

// counter is the value of the counter name whose label is value.
func counter(families map[string]*dto.MetricFamily, name, label, value string) float64 {
	for _, m := range families[name].GetMetric() {
		if labels(m)[label] == value {
			return m.GetCounter().GetValue()
		}
	}
	return -1
}
