package transport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/config"
)

const (
	apiKey = "key-0d9c8b7a6f5e4d3c2b1a09f8e7d6c5b4a3"
	bearer = "Bearer static-5e6f7a8b9c0d1e2f3a4b5c6d"
	token  = "oauth-1a2b3c4d5e6f7a8b9c0d1e2f3a"
)

// elsewhere is a server on another origin that records the credentials
// it was sent.
type elsewhere struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		for _, h := range []string{"Authorization", "X-Api-Key"} {
			if v := r.Header.Get(h); v != "" {
				e.seen = append(e.seen, h+": "+v)
			}
		}
		e.mu.Unlock()
		http.Error(w, "nothing here", http.StatusNotFound)
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *elsewhere) credentials() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.seen...)
}

// tokenHandler is an OAuth handler that always has a token.
type tokenHandler struct{}

func (tokenHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}), nil
}

func (tokenHandler) Authorize(context.Context, *http.Request, *http.Response) error {
	return fmt.Errorf("no")
}

// TestCredentialsStayWithTheirOrigin: a config's headers and an OAuth
// token go only to the exact origin (scheme, host, port) of the server's
// url: not after a 307 to another origin (another port of the same host
// included), not to an SSE endpoint event naming another origin.
func TestCredentialsStayWithTheirOrigin(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kind  config.Transport
		oauth bool
		serve func(other string) http.HandlerFunc
	}{
		{"streamable 307", config.TransportHTTP, false, redirectTo},
		{"streamable 307 with a token", config.TransportHTTP, true, redirectTo},
		{"sse 307", config.TransportSSE, false, redirectTo},
		{"sse endpoint event", config.TransportSSE, false, endpointAt},
		{"sse endpoint event with a token", config.TransportSSE, true, endpointAt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := newElsewhere(t)
			// Both on 127.0.0.1: the same host on another port.
			server := httptest.NewServer(tc.serve(other.URL))
			defer server.Close()
			cfg := &config.ServerConfig{Name: "s", URL: server.URL + "/mcp", Headers: map[string]string{"Authorization": bearer, "X-Api-Key": apiKey}}
			if tc.oauth {
				cfg.Headers = map[string]string{"X-Api-Key": apiKey}
			}
			tr := NewHTTP(cfg, tc.kind, Hooks{}, nil)
			if tc.oauth {
				tr = NewHTTP(cfg, tc.kind, Hooks{}, tokenHandler{})
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
			if sess, err := c.Connect(ctx, tr, nil); err == nil {
				sess.Close()
			}
			if got := other.credentials(); len(got) > 0 {
				t.Errorf("another origin was sent %q", got)
			}
		})
	}
}

// redirectTo answers every request with a 307 to the same path at other.
func redirectTo(other string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other+r.URL.Path, http.StatusTemporaryRedirect)
	}
}

// endpointAt is an SSE server whose endpoint event names other.
func endpointAt(other string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s/messages\n\n", other)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// TestCredentialsReachTheirOwnOrigin: the same headers still reach the
// server itself, named with or without its default port.
func TestCredentialsReachTheirOwnOrigin(t *testing.T) {
	var mu sync.Mutex
	var got []string
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		io.Copy(io.Discard, r.Body)
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer server.Close()
	cfg := &config.ServerConfig{Name: "s", URL: server.URL + "/mcp", Headers: map[string]string{"X-Api-Key": apiKey}}
	c := NewProbeClient(cfg)
	resp, err := c.Get(server.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(got) != 1 || got[0] != apiKey {
		t.Errorf("the server itself got %q", got)
	}
	for _, tc := range []struct{ a, b string }{
		{"https://Example.com/x", "https://example.com:443/y"},
		{"http://example.com/", "http://example.com:80"},
	} {
		if originOf(tc.a) != originOf(tc.b) {
			t.Errorf("%s and %s are one origin: %q, %q", tc.a, tc.b, originOf(tc.a), originOf(tc.b))
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"https://example.com", "http://example.com"},
		{"https://example.com", "https://example.com:8443"},
		{"https://example.com", "https://api.example.com"},
	} {
		if originOf(tc.a) == originOf(tc.b) {
			t.Errorf("%s and %s are two origins", tc.a, tc.b)
		}
	}
}

// TestAuthClientChecksTheResolvedAddress: for a server on the public
// internet, the authorization requests may not reach a private or
// loopback address, whether the url names it literally or by a name that
// resolves to it ("localhost" here: no DNS on a test machine).
func TestAuthClientChecksTheResolvedAddress(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{}`)
	}))
	defer server.Close()
	port := server.URL[strings.LastIndex(server.URL, ":")+1:]
	public := NewAuthClient("https://mcp.example.com/mcp")
	for _, target := range []string{server.URL, "http://localhost:" + port, "http://[::ffff:127.0.0.1]:" + port} {
		resp, err := public.Post(target+"/register", "application/json", strings.NewReader(`{}`))
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: reached from a public server's authorization", target)
		} else if !strings.Contains(err.Error(), "refusing to connect") {
			t.Errorf("%s: %v", target, err)
		}
	}
	// A server on loopback keeps its authorization server beside it.
	local := NewAuthClient(server.URL + "/mcp")
	resp, err := local.Get(server.URL + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// TestEnvironNamesTheHost: every stdio server finds EnvStartedBy set to
// this process's pid, whatever its config sets.
func TestEnvironNamesTheHost(t *testing.T) {
	cfg := &config.ServerConfig{Command: "x", Env: map[string]string{EnvStartedBy: ""}}
	want := EnvStartedBy + "=" + fmt.Sprint(os.Getpid())
	if env := Environ(cfg, func(string) (string, bool) { return "", false }); !slices.Contains(env, want) {
		t.Errorf("Environ = %q, want %s in it", env, want)
	}
}

// TestAuthClientThroughAProxy: behind a proxy the proxy makes the
// connection, so a public server's authorization requests to a private
// or link-local address are refused before they reach it.
func TestAuthClientThroughAProxy(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.String())
		mu.Unlock()
		fmt.Fprint(w, `{}`)
	}))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	tr := publicOnly(http.ProxyURL(proxyURL))
	req := func(target string) error {
		r, _ := http.NewRequest(http.MethodGet, target, nil)
		resp, err := tr.RoundTrip(r)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for _, target := range []string{"http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/.well-known/oauth-authorization-server", "http://[fd00::1]/x"} {
		if err := req(target); err == nil || !strings.Contains(err.Error(), "refusing to connect") {
			t.Errorf("%s through the proxy: %v, want a refusal", target, err)
		}
	}
	// A public name still goes through it.
	if err := req("http://mcp.example.com/x"); err != nil && strings.Contains(err.Error(), "refusing") {
		t.Errorf("a public name: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || !strings.Contains(asked[0], "mcp.example.com") {
		t.Errorf("the proxy was asked for %q, want the public name alone", asked)
	}
}
