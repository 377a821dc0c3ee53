package app_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/gateway/resource"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/idptest"
)

// With the protected resource on (--auth-issuer) and no shared token,
// /readyz answers anyone on the network, as a load balancer's check
// needs, but names no server: the servers' names and states are for the
// operator (the shared token), never for a caller without a token, nor
// for a user whose profile may hide some of them.
func TestReadyzNamesNoServerBehindTheGuard(t *testing.T) {
	for _, token := range []string{"", "ops-token-123"} {
		guard, err := resource.New(resource.Options{Resource: "http://127.0.0.1/mcp", Issuers: []string{"http://127.0.0.1:1"}})
		if err != nil {
			t.Fatal(err)
		}
		s := serveDemo(t, &app.Options{}, gateway.HTTPOptions{Resource: guard, Token: token})
		get := func(authz string) (int, string) {
			t.Helper()
			req, _ := http.NewRequest(http.MethodGet, s.url+app.ReadyPath, nil)
			if authz != "" {
				req.Header.Set("Authorization", authz)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		for _, authz := range []string{"", "Bearer made-up", "Bearer a.b.c"} {
			if code, body := get(authz); code != http.StatusOK || strings.Contains(body, "demo") {
				t.Errorf("token %q, Authorization %q: %d %s; want 200 naming no server", token, authz, code, body)
			}
		}
		if token != "" {
			if code, body := get("Bearer " + token); code != http.StatusOK || !strings.Contains(body, `"demo"`) {
				t.Errorf("the shared token: %d %s; want 200 naming demo", code, body)
			}
		}
	}
}

// With access rules, /metrics (whose labels name every server and tool)
// takes the shared token alone: a user's access token, whose profile may
// hide servers on /mcp, is refused, so no profile is widened through the
// metrics' label values.
func TestMetricsBehindAccessRules(t *testing.T) {
	idp := idptest.New(t, idptest.Options{User: idptest.User{Subject: "alice"}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + gateway.Path
	ln.Close()
	guard, err := resource.New(resource.Options{Resource: url, Issuers: []string{idp.Issuer}, HTTPClient: idp.Client()})
	if err != nil {
		t.Fatal(err)
	}
	access := &gateway.Access{
		Profiles: map[string]host.ViewFilter{"none-here": {Servers: []string{"elsewhere"}}},
		Default:  []string{"none-here"},
	}
	s := serveDemo(t, &app.Options{Metrics: app.NewMetrics()}, gateway.HTTPOptions{Resource: guard, Token: "ops-token-123", Access: access})
	get := func(token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.url+app.MetricsPath, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(idp.Mint(idptest.Mint{Audience: []string{url}})); code != http.StatusForbidden || strings.Contains(body, "demo") {
		t.Errorf("alice's access token: %d %.300s; want 403 naming no server", code, body)
	}
	if code, body := get("ops-token-123"); code != http.StatusOK || !strings.Contains(body, "switchboard_") {
		t.Errorf("the shared token: %d %.300s; want the metrics", code, body)
	}
}
