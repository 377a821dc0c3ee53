package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

func TestCallerOf(t *testing.T) {
	r := httptest.NewRequest("POST", "/mcp", nil)
	if got := CallerOf(r); got != "" {
		t.Errorf("no token: %q", got)
	}
	r.Header.Set("Authorization", "Bearer s3cret")
	tok := CallerOf(r)
	if !strings.HasPrefix(tok, "token:") || strings.Contains(tok, "s3cret") {
		t.Errorf("bearer: %q", tok)
	}
	r2 := httptest.NewRequest("POST", "/mcp", nil)
	r2.Header.Set("Authorization", "Bearer other")
	if CallerOf(r2) == tok {
		t.Error("two tokens, one caller")
	}
	verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: "alice", Expiration: time.Now().Add(time.Hour)}, nil
	}
	var got string
	auth.RequireBearerToken(verify, nil)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got = CallerOf(r)
	})).ServeHTTP(httptest.NewRecorder(), r)
	if got != "user:alice" {
		t.Errorf("user: %q", got)
	}
}
