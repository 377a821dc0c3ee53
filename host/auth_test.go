package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/oauthtest"
)

// collected gathers everything a host lets out (its log, every event),
// for the check that no secret is in any of it.
type collected struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *collected) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

func (c *collected) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// record copies every event of h into out until the test ends.
func record(t *testing.T, h *host.Host, out *collected) {
	sub := h.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range sub.C {
			b, _ := json.Marshal(e)
			out.Write(append(b, '\n'))
		}
	}()
	t.Cleanup(func() { sub.Close(); <-done })
}

func noSecrets(t *testing.T, srv *oauthtest.Server, what, text string) {
	t.Helper()
	for _, s := range srv.Secrets() {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s holds a secret the authorization server issued", what)
			return
		}
	}
}

// The whole life of a server that needs OAuth, on loopback against a real
// authorization server: needs-auth, login through the browser, calls,
// a token refused and renewed, a new host (a restart of switchboard)
// using the stored grant, the refresh token revoked (back to needs-auth),
// logout; no token in any output.
func TestOAuthLifecycle(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Options{})
	tokenFile := filepath.Join(t.TempDir(), "oauth", "tokens.json")
	var out collected
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := config.ServerConfig{Name: "secure", Type: config.TransportHTTP, URL: srv.URL}
	ctx := context.Background()

	var refreshed, refused atomic.Int32 // what the Observer hears
	observer := &host.Observer{AuthRefresh: func(server string, err error) {
		if server != "secure" {
			t.Errorf("a refresh for %q", server)
		}
		if err == nil {
			refreshed.Add(1)
		} else {
			refused.Add(1)
		}
	}}
	h := host.New(&host.Options{TokenFile: tokenFile, Logger: logger, Observer: observer})
	t.Cleanup(func() { h.Close() })
	record(t, h, &out)
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(ctx, []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	if err := h.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	st := status(t, h, "secure")
	if st.State != host.StateNeedsAuth || !strings.Contains(st.Error, "needs authorization") {
		t.Fatalf("before login: %s %q, want needs-auth", st.State, st.Error)
	}
	if _, err := h.CallTool(ctx, "mcp__secure__whoami", nil); err == nil {
		t.Fatal("a call to a server that needs authorization worked")
	}

	if err := h.Login(ctx, "secure", srv.Browse); err != nil {
		t.Fatal(err)
	}
	awaitState(t, sub, "secure", host.StateConnected)
	res, err := h.CallTool(ctx, "mcp__secure__whoami", nil)
	if err != nil || !strings.HasPrefix(text(t, res), "client ") {
		t.Fatalf("whoami after login: %v %v", res, err)
	}
	fi, err := os.Stat(tokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	infos, err := host.Authorizations(tokenFile, []config.ServerConfig{cfg})
	if err != nil || len(infos) != 1 || !infos[0].Stored || !infos[0].Refreshable || infos[0].Method != "oauth" {
		t.Fatalf("Authorizations = %+v, %v", infos, err)
	}

	// The server stops taking the access token: one refresh, no person.
	before := srv.Stats()
	srv.ExpireAccessTokens()
	if _, err := h.CallTool(ctx, "mcp__secure__whoami", nil); err != nil {
		t.Fatalf("call after the token expired: %v", err)
	}
	after := srv.Stats()
	if after.Refreshes != before.Refreshes+1 || after.Authorizations != before.Authorizations {
		t.Errorf("expired token: refreshes %d → %d, authorizations %d → %d; want one refresh, no new authorization",
			before.Refreshes, after.Refreshes, before.Authorizations, after.Authorizations)
	}
	if refreshed.Load() != 1 || refused.Load() != 0 {
		t.Errorf("the Observer heard %d refreshes and %d refused, want 1 and 0", refreshed.Load(), refused.Load())
	}

	// A new host (switchboard started again) connects with the stored grant.
	h2 := host.New(&host.Options{TokenFile: tokenFile, Logger: logger})
	record(t, h2, &out)
	if err := h2.Start(ctx, []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	h2.WaitSettled(ctx)
	if st := status(t, h2, "secure"); st.State != host.StateConnected {
		t.Fatalf("second host: %s %q, want connected with the stored grant", st.State, st.Error)
	}
	h2.Close()
	if n := srv.Stats().Authorizations; n != after.Authorizations {
		t.Errorf("second host asked for authorization again (%d → %d)", after.Authorizations, n)
	}

	// The refresh token is revoked: back to needs-auth, the grant gone.
	srv.RevokeRefreshTokens()
	srv.ExpireAccessTokens()
	if _, err := h.CallTool(ctx, "mcp__secure__whoami", nil); err == nil {
		t.Error("a call with a revoked grant worked")
	}
	e := awaitState(t, sub, "secure", host.StateNeedsAuth)
	if !strings.Contains(e.Error, "invalid_grant") {
		t.Errorf("needs-auth after the revocation says %q, want the refused refresh token", e.Error)
	}
	if refused.Load() != 1 {
		t.Errorf("the Observer heard %d refused refreshes, want 1", refused.Load())
	}
	if infos, _ := host.Authorizations(tokenFile, []config.ServerConfig{cfg}); infos[0].Stored {
		t.Error("the revoked grant is still stored")
	}

	// Log in again, then out.
	if err := h.Login(ctx, "secure", srv.Browse); err != nil {
		t.Fatal(err)
	}
	awaitState(t, sub, "secure", host.StateConnected)
	n, err := h.Logout("secure")
	if err != nil || n != 1 {
		t.Fatalf("Logout = %d, %v", n, err)
	}
	awaitState(t, sub, "secure", host.StateNeedsAuth)
	if infos, _ := host.Authorizations(tokenFile, []config.ServerConfig{cfg}); infos[0].Stored {
		t.Error("logged out, and the grant is still stored")
	}

	statusJSON, _ := json.Marshal(h.Status())
	h.Close()
	noSecrets(t, srv, "the log and the events", out.String())
	noSecrets(t, srv, "Status", string(statusJSON))
}

// With Options.Authorize the person is asked at connect, and the server
// connects without a separate login; over legacy SSE too, whose
// transport in go-sdk has no OAuth handler.
func TestOAuthAuthorizeAtConnect(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Options{SSE: true})
	var asked []string
	var mu sync.Mutex
	opts := &host.Options{Authorize: func(ctx context.Context, server, u string) error {
		mu.Lock()
		asked = append(asked, server)
		mu.Unlock()
		return srv.Browse(ctx, u)
	}}
	h := start(t, opts,
		config.ServerConfig{Name: "streamable", Type: config.TransportHTTP, URL: srv.URL},
		config.ServerConfig{Name: "legacy", Type: config.TransportSSE, URL: srv.SSEURL})
	ctx := context.Background()
	h.WaitSettled(ctx)
	for _, name := range []string{"streamable", "legacy"} {
		if st := status(t, h, name); st.State != host.StateConnected {
			t.Fatalf("%s: %s %q, want connected", name, st.State, st.Error)
		}
		res, err := h.CallTool(ctx, "mcp__"+name+"__whoami", nil)
		if err != nil || !strings.HasPrefix(text(t, res), "client ") {
			t.Fatalf("%s whoami: %v", name, err)
		}
	}
	if len(asked) != 2 {
		t.Errorf("the person was asked %d times (%v), want once per server", len(asked), asked)
	}
}

// A machine-to-machine server: the client credentials in the config are
// the authorization, nobody is asked, and the secret is masked.
func TestOAuthClientCredentials(t *testing.T) {
	const secret = "cc-secret-value-123"
	srv := oauthtest.New(t, oauthtest.Options{ClientCredentials: true,
		PreRegistered: &oauthtest.Client{ID: "machine", Secret: secret}})
	var out collected
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := start(t, &host.Options{Logger: logger}, config.ServerConfig{Name: "m2m", Type: config.TransportHTTP, URL: srv.URL,
		OAuth: &config.OAuth{Grant: config.GrantClientCredentials, ClientID: "machine", ClientSecret: secret}})
	ctx := context.Background()
	h.WaitSettled(ctx)
	if st := status(t, h, "m2m"); st.State != host.StateConnected {
		t.Fatalf("m2m: %s %q", st.State, st.Error)
	}
	res, err := h.CallTool(ctx, "mcp__m2m__whoami", nil)
	if err != nil || text(t, res) != "client machine" {
		t.Fatalf("whoami: %v %v", res, err)
	}
	if got := srv.Stats().ClientCredentialsGrants; got != 1 {
		t.Errorf("client credentials grants: %d, want 1", got)
	}
	if h.Redact("x "+secret) != "x «redacted»" {
		t.Error("the client secret is not masked")
	}
	h.Close()
	noSecrets(t, srv, "the log", out.String())
}

// A client registered in advance, with its redirect on a fixed port: the
// login listens on that port, and the authorization server, which takes
// no dynamic registration, accepts it.
func TestOAuthPreRegisteredCallbackPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", port)
	srv := oauthtest.New(t, oauthtest.Options{NoDynamicRegistration: true,
		PreRegistered: &oauthtest.Client{ID: "desk", Secret: "desk-secret-value", RedirectURIs: []string{redirect}}})
	var seen string
	h := start(t, &host.Options{Authorize: func(ctx context.Context, _, u string) error {
		q, _ := url.Parse(u)
		seen = q.Query().Get("redirect_uri")
		return srv.Browse(ctx, u)
	}}, config.ServerConfig{Name: "desk", Type: config.TransportHTTP, URL: srv.URL,
		OAuth: &config.OAuth{ClientID: "desk", ClientSecret: "desk-secret-value", CallbackPort: port}})
	h.WaitSettled(context.Background())
	if st := status(t, h, "desk"); st.State != host.StateConnected {
		t.Fatalf("desk: %s %q", st.State, st.Error)
	}
	if seen != redirect {
		t.Errorf("redirect_uri %q, want %q", seen, redirect)
	}
	if got := srv.Stats().Registrations; got != 0 {
		t.Errorf("%d dynamic registrations, want none", got)
	}
}

// A person who takes longer to consent than the server/discover probe's
// bound still gets the server connected, in the era the probe finds: the
// bound is for the server's answer, not for the person.
func TestOAuthSlowConsentOutlastsTheProbe(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Options{})
	const bound = 200 * time.Millisecond
	var asked atomic.Int32
	h := start(t, &host.Options{DiscoverTimeout: bound, Authorize: func(ctx context.Context, _, u string) error {
		asked.Add(1)
		select {
		case <-time.After(3 * bound): // the person reads the page
		case <-ctx.Done():
			return ctx.Err()
		}
		return srv.Browse(ctx, u)
	}}, config.ServerConfig{Name: "slow", Type: config.TransportHTTP, URL: srv.URL})
	h.WaitSettled(context.Background())
	st := status(t, h, "slow")
	if st.State != host.StateConnected || asked.Load() != 1 {
		t.Fatalf("slow consent: %s %q after %d consents; want connected after one", st.State, st.Error, asked.Load())
	}
	t.Logf("protocol %s", st.ProtocolVersion)
}

// An Authorize that panics leaves the server unauthorized with the panic
// as its reason; the agent goes on.
func TestOAuthAuthorizePanicIsGuarded(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Options{})
	h := start(t, &host.Options{Authorize: func(context.Context, string, string) error { panic("boom") }},
		config.ServerConfig{Name: "p", Type: config.TransportHTTP, URL: srv.URL})
	h.WaitSettled(context.Background())
	st := status(t, h, "p")
	if st.State == host.StateConnected || !strings.Contains(st.Error, "authorize handler panicked: boom") {
		t.Errorf("p: %s %q; want it not connected, the panic its error", st.State, st.Error)
	}
}
