package oauthtest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"go.uber.org/goleak"
	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/internal/testkit/oauthtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// httpClient is a test's own client, so its idle connections end with it.
func httpClient(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// callback is a client's loopback redirect endpoint: it keeps what the
// authorization server sent for the fetcher.
type callback struct {
	URL string // the redirect URI
	got chan *auth.AuthorizationResult
}

func newCallback(t *testing.T) *callback {
	cb := &callback{got: make(chan *auth.AuthorizationResult, 1)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if e := q.Get("error"); e != "" {
			http.Error(w, "authorization failed: "+e, http.StatusBadRequest)
			return
		}
		select {
		case cb.got <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
		default:
		}
		fmt.Fprintln(w, "You may close this window.")
	}))
	t.Cleanup(srv.Close)
	cb.URL = srv.URL + "/callback"
	return cb
}

// fetcher opens the authorization URL in s's browser. The callback has
// its result by the time Browse returns.
func (cb *callback) fetcher(s *oauthtest.Server) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		if err := s.Browse(ctx, args.URL); err != nil {
			return nil, err
		}
		return cb.result()
	}
}

func (cb *callback) result() (*auth.AuthorizationResult, error) {
	select {
	case r := <-cb.got:
		return r, nil
	default:
		return nil, errors.New("the callback got no code")
	}
}

// clientSide records what go-sdk's handler did with its tokens: the
// oauth2 config it built and the errors its token source met.
type clientSide struct {
	mu   sync.Mutex
	cfg  *oauth2.Config
	tok  *oauth2.Token
	errs []error
}

func (c *clientSide) newTokenSource(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	c.mu.Lock()
	c.cfg, c.tok = cfg, tok
	c.mu.Unlock()
	return &recordingSource{c, cfg.TokenSource(ctx, tok)}, nil
}

func (c *clientSide) state() (*oauth2.Config, *oauth2.Token, []error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg, c.tok, c.errs
}

type recordingSource struct {
	c  *clientSide
	ts oauth2.TokenSource
}

func (r *recordingSource) Token() (*oauth2.Token, error) {
	tok, err := r.ts.Token()
	if err != nil {
		r.c.mu.Lock()
		r.c.errs = append(r.c.errs, err)
		r.c.mu.Unlock()
	}
	return tok, err
}

// dcrHandler is go-sdk's authorization code handler, registering a public
// client dynamically and browsing with s.
func dcrHandler(t *testing.T, s *oauthtest.Server, side *clientSide) *auth.AuthorizationCodeHandler {
	t.Helper()
	cb := newCallback(t)
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				ClientName:              "oauthtest test",
				RedirectURIs:            []string{cb.URL},
				TokenEndpointAuthMethod: "none",
				GrantTypes:              []string{"authorization_code", "refresh_token"},
			},
		},
		AuthorizationCodeFetcher: cb.fetcher(s),
		Client:                   httpClient(t),
		NewTokenSource:           side.newTokenSource,
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// connect opens an MCP session over t, closed at cleanup.
func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "oauthtest-test", Version: "1.0.0"}, nil)
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s: %+v", name, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// register registers a client through s's /register.
func register(t *testing.T, s *oauthtest.Server, meta *oauthex.ClientRegistrationMetadata) *oauthex.ClientRegistrationResponse {
	t.Helper()
	resp, err := oauthex.RegisterClient(t.Context(), s.Issuer+"/register", meta, httpClient(t))
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	return resp
}

// flow is a hand-driven authorization code flow: one client, its
// redirect URI and PKCE verifier.
type flow struct {
	t        *testing.T
	s        *oauthtest.Server
	cb       *callback
	cfg      *oauth2.Config
	verifier string
	hc       *http.Client
}

// newFlow registers a client (public unless method says otherwise).
func newFlow(t *testing.T, s *oauthtest.Server, method string) *flow {
	cb := newCallback(t)
	reg := register(t, s, &oauthex.ClientRegistrationMetadata{
		RedirectURIs:            []string{cb.URL},
		TokenEndpointAuthMethod: method,
		GrantTypes:              []string{"authorization_code", "refresh_token"},
	})
	style := oauth2.AuthStyleInParams
	if method == "client_secret_basic" {
		style = oauth2.AuthStyleInHeader
	}
	return &flow{t: t, s: s, cb: cb, hc: httpClient(t),
		cfg: &oauth2.Config{
			ClientID:     reg.ClientID,
			ClientSecret: reg.ClientSecret,
			Endpoint:     oauth2.Endpoint{AuthURL: s.Issuer + "/authorize", TokenURL: s.Issuer + "/token", AuthStyle: style},
			RedirectURL:  cb.URL,
		},
	}
}

// authURL is the authorization URL for resource s.URL with a fresh PKCE
// verifier; opts may override any parameter.
func (f *flow) authURL(opts ...oauth2.AuthCodeOption) string {
	f.verifier = oauth2.GenerateVerifier()
	opts = append([]oauth2.AuthCodeOption{
		oauth2.S256ChallengeOption(f.verifier),
		oauth2.SetAuthURLParam("resource", f.s.URL),
	}, opts...)
	return f.cfg.AuthCodeURL("state-1", opts...)
}

// code browses to authURL and returns the code the callback got.
func (f *flow) code(opts ...oauth2.AuthCodeOption) string {
	f.t.Helper()
	if err := f.s.Browse(f.t.Context(), f.authURL(opts...)); err != nil {
		f.t.Fatal(err)
	}
	res, err := f.cb.result()
	if err != nil {
		f.t.Fatal(err)
	}
	if res.State != "state-1" || res.Iss != f.s.Issuer {
		f.t.Fatalf("callback got state %q, iss %q", res.State, res.Iss)
	}
	return res.Code
}

func (f *flow) ctx() context.Context {
	return context.WithValue(f.t.Context(), oauth2.HTTPClient, f.hc)
}

// exchange redeems code with the flow's verifier; opts may override.
func (f *flow) exchange(code string, opts ...oauth2.AuthCodeOption) (*oauth2.Token, error) {
	opts = append([]oauth2.AuthCodeOption{oauth2.VerifierOption(f.verifier)}, opts...)
	return f.cfg.Exchange(f.ctx(), code, opts...)
}

// token runs the whole flow.
func (f *flow) token() *oauth2.Token {
	f.t.Helper()
	tok, err := f.exchange(f.code())
	if err != nil {
		f.t.Fatal(err)
	}
	return tok
}

// refresh redeems a refresh token.
func (f *flow) refresh(rt string) (*oauth2.Token, error) {
	return f.cfg.TokenSource(f.ctx(), &oauth2.Token{RefreshToken: rt}).Token()
}

// wantOAuthError checks that err is a token endpoint error with code.
func wantOAuthError(t *testing.T, err error, code string) {
	t.Helper()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != code {
		t.Fatalf("got %v, want OAuth error %s", err, code)
	}
}

// initialize posts an MCP initialize request to url with token (if any)
// and returns the response, its body read.
func initialize(t *testing.T, url, token string) (*http.Response, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := httpClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// bearerClient sends every request with ts's token.
func bearerClient(t *testing.T, ts oauth2.TokenSource) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: &oauth2.Transport{Source: ts, Base: tr}}
}
