package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/gateway/resource"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testkit/idptest"
)

// headerLog keeps the Authorization headers an upstream server was sent.
type headerLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *headerLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// recordingUpstream is an HTTP MCP server (the demo's tools) that needs
// its own token and logs every Authorization header it is sent.
func recordingUpstream(t *testing.T, name, ownToken string) (config.ServerConfig, *headerLog) {
	t.Helper()
	srv := demo.NewServer(demo.Options{Name: name})
	log := &headerLog{}
	mcpH := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.mu.Lock()
		log.seen = append(log.seen, r.Header.Values("Authorization")...)
		log.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+ownToken {
			http.Error(w, "upstream: not my token", http.StatusUnauthorized)
			return
		}
		mcpH.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		for ss := range srv.Sessions() {
			ss.Close()
		}
	})
	return config.ServerConfig{Name: name, Type: config.TransportHTTP, URL: ts.URL,
		Headers: map[string]string{"Authorization": "Bearer " + ownToken},
		Source:  config.Source{Provider: "test", Path: "identity_test.go", Level: config.LevelExplicit}}, log
}

// protectedGateway serves s's gateway again on loopback, as an OAuth
// protected resource of idp's with the shared token beside it; it
// returns the MCP URL (the resource).
func protectedGateway(t *testing.T, s *served, idp *idptest.Server, token string) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	url := "http://" + ts.Listener.Addr().String() + gateway.Path
	g, err := resource.New(resource.Options{Resource: url, Issuers: []string{idp.Issuer}, HTTPClient: idp.Client()})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = s.gw.Handler(gateway.HTTPOptions{Token: token, Resource: g})
	ts.Start()
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return url
}

func connectWith(t *testing.T, url, token string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport(token)}}
	return c.Connect(context.Background(), tr, nil)
}

// Through a gateway that is an OAuth protected resource, a caller with an
// access token for it lists and calls tools of an upstream HTTP server,
// and the upstream is sent its own token only, never the caller's (the
// MCP spec forbids passing a token through); the shared token works
// beside; a token for another resource is refused.
func TestCallerTokenStaysHere(t *testing.T) {
	up, log := recordingUpstream(t, "remote", "upstream-own-7a1c")
	s := serve(t, gateway.HTTPOptions{}, up)
	idp := idptest.New(t, idptest.Options{})
	url := protectedGateway(t, s, idp, "shared-9e0b")

	callerTokens := []string{
		idp.Mint(idptest.Mint{Audience: []string{url}}),
		idp.Mint(idptest.Mint{Audience: []string{url}, Alg: jose.ES256}),
	}
	for _, tok := range append(callerTokens, "shared-9e0b") {
		sess, err := connectWith(t, url, tok)
		if err != nil {
			t.Fatal(err)
		}
		if names := toolNames(t, sess); !slices.Contains(names, "remote__echo") {
			t.Errorf("tools: %v", names)
		}
		res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "remote__echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil || res.IsError || textOf(res) != "hi" {
			t.Errorf("call: %v, %v", res, err)
		}
		sess.Close()
	}
	seen := log.all()
	if len(seen) == 0 {
		t.Fatal("the upstream was sent nothing")
	}
	for _, h := range seen {
		if h != "Bearer upstream-own-7a1c" {
			t.Errorf("the upstream was sent Authorization %.40q…, want its own token only", h)
		}
		for _, tok := range append(callerTokens, "shared-9e0b") {
			if strings.Contains(h, tok) {
				t.Errorf("a caller's token reached the upstream")
			}
		}
	}

	if _, err := connectWith(t, url, idp.Mint(idptest.Mint{Audience: []string{up.URL}})); err == nil {
		t.Error("a token meant for the upstream was accepted by the gateway")
	}
}

// A legacy session belongs to the user whose token began it (go-sdk
// checks the TokenInfo's UserID): another user's token, or the shared
// one, cannot use its id.
func TestSessionBelongsToItsUser(t *testing.T) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "a"))
	idp := idptest.New(t, idptest.Options{})
	url := protectedGateway(t, s, idp, "shared-9e0b")
	alice := idp.Mint(idptest.Mint{Audience: []string{url}, Subject: "alice"})
	bob := idp.Mint(idptest.Mint{Audience: []string{url}, Subject: "bob"})
	post := func(token, session, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post(alice, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize as alice: %d, session %q", resp.StatusCode, id)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	for name, tok := range map[string]string{"bob": bob, "the shared token": "shared-9e0b"} {
		if code := post(tok, id, ping).StatusCode; code != http.StatusForbidden {
			t.Errorf("alice's session with %s: %d, want 403", name, code)
		}
	}
	if code := post(alice, id, ping).StatusCode; code != http.StatusOK && code != http.StatusAccepted {
		t.Errorf("alice's session with alice's token: %d", code)
	}
	// Alice ends her session (DELETE), as a client that leaves does.
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Authorization", "Bearer "+alice)
	req.Header.Set("Mcp-Session-Id", id)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode >= 300 {
		t.Errorf("ending alice's session: %v, %v", resp, err)
	} else {
		resp.Body.Close()
	}
	http.DefaultClient.CloseIdleConnections()
}
