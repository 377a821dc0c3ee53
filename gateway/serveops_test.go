package gateway_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testkit/otlptest"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// TestServeOperations: `switchboard serve --http` with the OTEL_*
// environment set sends a call's spans, under the client's traceparent,
// to an OTLP/HTTP receiver, and its /metrics (behind the token) passes
// promtool and counts the call.
func TestServeOperations(t *testing.T) {
	promtool := peers.Promtool(t)
	rc := &otlptest.Receiver{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	recv := &http.Server{Handler: rc}
	go recv.Serve(ln)
	defer recv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+ln.Addr().String())
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50") // spans reach the receiver while serve runs
	t.Setenv("SWITCHBOARD_TOKEN", "ops-token-3c9d")

	sb := tsBuildSwitchboard(t)
	e := newTSServe(t, sb, "", nil)
	delete(e.servers, "everything") // the demo alone: no npm peer
	e.writeConfig(t)
	url := e.startHTTP(t)

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tokenTransport{"ops-token-3c9d", tr}}
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	const traceID, clientSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	params := &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hi"}}
	params.Meta = mcp.Meta{"traceparent": "00-" + traceID + "-" + clientSpan + "-01"}
	if res, err := sess.CallTool(ctx, params); err != nil || res.IsError {
		t.Fatalf("call: %+v, %v", res, err)
	}
	sess.Close()

	down, up := rc.Await("tools/call demo__echo", tsRunBound), rc.Await("tools/call echo", tsRunBound)
	if down == nil || up == nil {
		t.Fatalf("spans: gateway %v, host %v; want both", down, up)
	}
	if hex.EncodeToString(down.GetTraceId()) != traceID || hex.EncodeToString(up.GetTraceId()) != traceID {
		t.Errorf("traces %x and %x, want the client's %s", down.GetTraceId(), up.GetTraceId(), traceID)
	}
	if hex.EncodeToString(down.GetParentSpanId()) != clientSpan || !bytes.Equal(up.GetParentSpanId(), down.GetSpanId()) {
		t.Errorf("parents: gateway's %x (want the client's %s), host's %x (want the gateway's %x)",
			down.GetParentSpanId(), clientSpan, up.GetParentSpanId(), down.GetSpanId())
	}

	metrics := strings.TrimSuffix(url, "/mcp") + "/metrics"
	if resp, err := (&http.Client{Transport: tr}).Get(metrics); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/metrics without the token: %v, %v; want 401", resp, err)
	} else {
		resp.Body.Close()
	}
	resp, err := client.Get(metrics)
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
	want := `switchboard_tool_calls_total{outcome="ok",server="demo",tool="demo__echo"} 1`
	if !strings.Contains(string(body), want+"\n") {
		t.Errorf("/metrics has no line %q", want)
	}
}

type tokenTransport struct {
	token string
	next  http.RoundTripper
}

func (b tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
