package gateway_test

import (
	"context"
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
