package app_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
)

// TestDrainAnswers503: a draining replica answers 503 with Retry-After,
// before any handler sees it, a call that another replica can serve the
// same: a 2026-07-28 call (no requestState), and with session keys a
// call in a 2025-11-25 session. Nothing of it ran: it leaves no audit
// line (a call refused by the gateway leaves one, "refused"). A call
// continuing a round without keys, a notification, and a call in a
// session without keys reach the gateway as before.
func TestDrainAnswers503(t *testing.T) {
	key := make([]byte, 32)
	keys, err := gateway.NewSessionKeys(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		keys *gateway.SessionKeys
	}{{"without keys", nil}, {"with keys", keys}} {
		t.Run(tc.name, func(t *testing.T) {
			file := t.TempDir() + "/audit.log"
			s := serveDemo(t, &app.Options{Audit: &app.AuditOptions{File: file}}, gateway.HTTPOptions{Token: drainToken, SessionKeys: tc.keys})
			c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			hc := &http.Client{Transport: bearerTransport{drainToken, http.DefaultTransport}}
			sess, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.url + gateway.Path, HTTPClient: hc, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			s.a.BeginDrain()

			code, retry, msg := modernCall(t, s, "demo__echo", map[string]any{"text": "moved"}, "", nil)
			if code != http.StatusServiceUnavailable || retry == "" {
				t.Errorf("a 2026-07-28 call while draining: %d (Retry-After %q) %v, want 503 with Retry-After", code, retry, msg)
			}
			code, _, msg = modernCall(t, s, "demo__echo", map[string]any{"text": "moved"}, "some-state", map[string]any{})
			if tc.keys == nil && (code == http.StatusServiceUnavailable || msg["error"] == nil) {
				t.Errorf("a 2026-07-28 call with a requestState, no keys, while draining: %d %v, want the gateway's answer", code, msg)
			}
			if tc.keys != nil && code != http.StatusServiceUnavailable {
				t.Errorf("a 2026-07-28 call with a requestState, keys, while draining: %d %v, want 503", code, msg)
			}
			legacy := map[string]string{"Mcp-Session-Id": sess.ID(), "Mcp-Protocol-Version": config.ProtocolLegacy}
			if code, _, _ := post(t, s, legacy, map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 99}}); code == http.StatusServiceUnavailable {
				t.Errorf("a notification in a session while draining: 503, want it taken")
			}
			code, retry, msg = post(t, s, legacy, map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{"name": "demo__echo", "arguments": map[string]any{"text": "late"}}})
			switch {
			case tc.keys != nil && (code != http.StatusServiceUnavailable || retry == ""):
				t.Errorf("a call in a sealed session while draining: %d (Retry-After %q) %v, want 503", code, retry, msg)
			case tc.keys == nil && (code != http.StatusOK || !strings.Contains(refusalOf(msg), "shutting down")):
				t.Errorf("a call in a session without keys while draining: %d %v, want the JSON-RPC refusal", code, msg)
			}
			if err := s.a.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
			refused := 0
			for _, l := range readAudit(t, file) {
				if l.Outcome != "refused" {
					t.Errorf("audit line %+v: only refusals expected", l)
				}
				refused++
			}
			// Without keys, the legacy call is refused by the gateway; the
			// calls answered 503 never reached it.
			if want := map[bool]int{true: 1, false: 0}[tc.keys == nil]; refused != want {
				t.Errorf("%d calls refused by the gateway, want %d: a 503 must come before any handler", refused, want)
			}
		})
	}
}

func refusalOf(msg map[string]any) string {
	e, _ := msg["error"].(map[string]any)
	s, _ := e["message"].(string)
	return s
}
