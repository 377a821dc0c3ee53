package app_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/otlptest"
)

// TestTeamCallerObserved: behind a token verifier, the audit trail and
// the traces name the user who called (never the token), and a call
// past the user's rate is refused, audited as rate_limited and counted in
// /metrics by limit.
func TestTeamCallerObserved(t *testing.T) {
	rc := &otlptest.Receiver{}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", listen(t, rc))
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	ctx := context.Background()
	tp, shutdown, err := app.TracingFromEnv(ctx)
	if err != nil || tp == nil {
		t.Fatalf("TracingFromEnv: %v, %v", tp, err)
	}
	defer shutdown(ctx)
	srv, err := demoserver.Config("demo")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "audit.log")
	metrics := app.NewMetrics()
	a, err := app.Start(ctx, &app.Loaded{Servers: []config.ServerConfig{srv}}, &app.Options{
		Host: &host.Options{ToolPrefix: host.NoToolPrefix}, Gateway: &gateway.Options{},
		Audit: &app.AuditOptions{File: file}, Metrics: metrics, Tracing: tp,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	const token = "alice-opaque-token-0123"
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if tok != token {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "alice", Expiration: time.Now().Add(time.Hour)}, nil
	}
	limits := &gateway.Limits{PerUser: &gateway.Rate{Rate: 0.001, Burst: 1}}
	mux := http.NewServeMux()
	mux.Handle(app.MetricsPath, metrics.Handler(""))
	mux.Handle("/", auth.RequireBearerToken(verify, nil)(a.Handler(gateway.HTTPOptions{Limits: limits})))
	base := listen(t, mux)
	with, without := clients(t, token)

	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + gateway.Path, HTTPClient: with, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	call := func() *mcp.CallToolResult {
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call(); res.IsError {
		t.Fatalf("first call refused: %v", res.Content)
	}
	res := call()
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.HasPrefix(text, "rate limit: try again in ") {
		t.Errorf("second call: %v %q, want refused with when to try again", res.IsError, text)
	}

	waitLines(t, file, 2)
	lines := readAudit(t, file)
	for i, want := range []string{"ok", "rate_limited"} {
		if l := lines[i]; l.User != "alice" || l.Outcome != want || l.Name != "echo" {
			t.Errorf("audit line %d: user %q, outcome %q, name %q; want alice, %s, echo", i+1, l.User, l.Outcome, l.Name, want)
		}
	}
	body, families := scrape(t, without, base)
	if strings.Contains(string(body), "alice") {
		t.Error("/metrics names a user: its labels must be bounded")
	}
	if n := counter(families, "switchboard_gateway_rate_limited_total", "limit", "user"); n != 1 {
		t.Errorf("rate_limited_total{limit=user}: %v, want 1", n)
	}

	sess.Close()
	flusher, ok := tp.(interface{ ForceFlush(context.Context) error })
	if !ok {
		t.Fatalf("provider %T cannot be flushed", tp)
	}
	if err := flusher.ForceFlush(ctx); err != nil {
		t.Fatal(err)
	}
	users := 0
	for _, sp := range rc.Spans() {
		if sp.GetName() != "tools/call demo__echo" {
			continue
		}
		attrs := attrsOf(sp)
		if attrs["enduser.id"] == "alice" {
			users++
		}
		for k, v := range attrs {
			if strings.Contains(v, token) {
				t.Errorf("span attribute %s holds the token", k)
			}
		}
	}
	if users != 2 {
		t.Errorf("%d gateway spans of tools/call name enduser.id alice, want 2 (the call and the refusal)", users)
	}
}

// TestTeamUnknownToolAudited: a call of a tool the caller's view does not
// have (outside their profile, withheld, or no such tool) is refused by
// go-sdk as unknown, and the audit trail has it too: the user, the name
// asked for, no server, outcome unknown.
func TestTeamUnknownToolAudited(t *testing.T) {
	ctx := context.Background()
	srv, err := demoserver.Config("demo")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "audit.log")
	a, err := app.Start(ctx, &app.Loaded{Servers: []config.ServerConfig{srv}}, &app.Options{
		Host: &host.Options{ToolPrefix: host.NoToolPrefix}, Gateway: &gateway.Options{}, Audit: &app.AuditOptions{File: file},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: "bob", Expiration: time.Now().Add(time.Hour)}, nil
	}
	base := listen(t, auth.RequireBearerToken(verify, nil)(a.Handler(gateway.HTTPOptions{})))
	with, _ := clients(t, "bob-token")
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + gateway.Path, HTTPClient: with, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "dev__deploy", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), `unknown tool "dev__deploy"`) {
		t.Fatalf("calling dev__deploy: %v, want go-sdk's unknown tool", err)
	}
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatal(err)
	}
	waitLines(t, file, 2)
	lines := readAudit(t, file)
	if l := lines[0]; l.User != "bob" || l.Server != "" || l.Name != "dev__deploy" || l.Outcome != "unknown" || l.ArgsSHA == "" {
		t.Errorf("the unknown call's audit line: %+v, want bob, no server, dev__deploy, unknown, the arguments' digest", l)
	}
	if l := lines[1]; l.User != "bob" || l.Server != "demo" || l.Name != "echo" || l.Outcome != "ok" {
		t.Errorf("the known call's audit line: %+v", l)
	}
}
