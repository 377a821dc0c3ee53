package oauthtest_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/switchboard-mcp/switchboard/internal/testkit/oauthtest"
)

// TestGoSDKClientFlow: go-sdk's own client discovers the server,
// registers, authorizes in the test browser and calls with the token.
func TestGoSDKClientFlow(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{Scopes: []string{"mcp:read", "mcp:call"}})
	var side clientSide
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: s.URL, OAuthHandler: dcrHandler(t, s, &side), HTTPClient: httpClient(t)})

	cfg, tok, _ := side.state()
	if got, want := call(t, cs, "whoami", nil), "client "+cfg.ClientID; got != want {
		t.Errorf("whoami = %q, want %q", got, want)
	}
	if got := call(t, cs, "echo", map[string]any{"text": "hi"}); got != "hi" {
		t.Errorf("echo = %q", got)
	}
	granted := strings.Fields(tok.Extra("scope").(string))
	if slices.Sort(granted); !slices.Equal(granted, []string{"mcp:call", "mcp:read"}) {
		t.Errorf("granted scope %q", granted)
	}
	st := s.Stats()
	if st.Registrations != 1 || st.Authorizations != 1 || st.CodeExchanges != 1 || st.Unauthorized != 1 || st.Refreshes != 0 {
		t.Errorf("stats %+v", st)
	}
	for _, v := range []string{tok.AccessToken, tok.RefreshToken} {
		if !slices.Contains(s.Secrets(), v) {
			t.Errorf("Secrets() lacks an issued token")
		}
	}

	// The client believes its token good for an hour; the server says no,
	// and go-sdk's handler authorizes afresh.
	s.ExpireAccessTokens()
	call(t, cs, "whoami", nil)
	if st := s.Stats(); st.Unauthorized != 2 || st.Authorizations != 2 {
		t.Errorf("after ExpireAccessTokens: stats %+v", st)
	}
}

// TestGoSDKClientRefreshes: with tokens short enough that the oauth2
// token source refreshes before each request, expiring the access tokens
// costs a refresh, not an authorization; revoking the refresh tokens
// makes the refresh fail with invalid_grant and the client authorize
// again.
func TestGoSDKClientRefreshes(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{TokenLifetime: 5 * time.Second})
	var side clientSide
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: s.URL, OAuthHandler: dcrHandler(t, s, &side), HTTPClient: httpClient(t)})
	call(t, cs, "whoami", nil)

	before := s.Stats()
	s.ExpireAccessTokens()
	call(t, cs, "whoami", nil)
	st := s.Stats()
	if st.Refreshes <= before.Refreshes || st.Authorizations != 1 || st.Unauthorized != before.Unauthorized {
		t.Errorf("after ExpireAccessTokens: stats %+v, before %+v", st, before)
	}

	s.RevokeRefreshTokens()
	cfg, _, _ := side.state()
	call(t, cs, "whoami", nil)
	if st := s.Stats(); st.Authorizations != 2 || st.TokenErrors == 0 {
		t.Errorf("after RevokeRefreshTokens: stats %+v", st)
	}
	_, _, errs := side.state()
	if len(errs) == 0 {
		t.Fatal("the token source met no error")
	}
	wantOAuthError(t, errs[0], "invalid_grant")
	if cfg2, _, _ := side.state(); cfg2.ClientID == cfg.ClientID {
		t.Error("the client did not register again")
	}
}

// TestExpireAndRevoke drives the token endpoint by hand: an expired
// token gets 401 with the challenge, a refresh rotates, a revoked
// refresh token is invalid_grant.
func TestExpireAndRevoke(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{Scopes: []string{"mcp"}})
	f := newFlow(t, s, "none")
	tok := f.token()
	if resp, body := initialize(t, s.URL, tok.AccessToken); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %s %s", resp.Status, body)
	}

	s.ExpireAccessTokens()
	resp, _ := initialize(t, s.URL, tok.AccessToken)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("expired token: %s", resp.Status)
	}
	want := `Bearer resource_metadata="` + s.ResourceMetadataURL + `", scope="mcp"`
	if got := resp.Header.Get("WWW-Authenticate"); got != want {
		t.Errorf("WWW-Authenticate = %q, want %q", got, want)
	}

	tok2, err := f.refresh(tok.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if tok2.RefreshToken == tok.RefreshToken || tok2.AccessToken == tok.AccessToken {
		t.Error("refresh did not rotate")
	}
	if resp, _ := initialize(t, s.URL, tok2.AccessToken); resp.StatusCode != http.StatusOK {
		t.Errorf("refreshed token: %s", resp.Status)
	}
	_, err = f.refresh(tok.RefreshToken)
	wantOAuthError(t, err, "invalid_grant")

	s.RevokeRefreshTokens()
	_, err = f.refresh(tok2.RefreshToken)
	wantOAuthError(t, err, "invalid_grant")
	if st := s.Stats(); st.Refreshes != 1 || st.TokenErrors != 2 || st.Unauthorized != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestBearerCheck(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{Scopes: []string{"a", "b"}})
	for name, token := range map[string]string{"none": "", "unknown": "not-a-token"} {
		resp, _ := initialize(t, s.URL, token)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: %s", name, resp.Status)
		}
		if got := resp.Header.Get("WWW-Authenticate"); !strings.Contains(got, `resource_metadata="`+s.ResourceMetadataURL+`"`) {
			t.Errorf("%s: WWW-Authenticate = %q", name, got)
		}
	}
	// A token lacking a required scope is refused.
	f := newFlow(t, s, "none")
	tok, err := f.exchange(f.code(oauth2.SetAuthURLParam("scope", "a")))
	if err != nil {
		t.Fatal(err)
	}
	if resp, _ := initialize(t, s.URL, tok.AccessToken); resp.StatusCode != http.StatusForbidden {
		t.Errorf("token with scope a: %s", resp.Status)
	}
}

func TestMetadata(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{Scopes: []string{"mcp"}, ClientCredentials: true})
	hc := httpClient(t)
	prm, err := oauthex.GetProtectedResourceMetadata(t.Context(), s.ResourceMetadataURL, s.URL, hc)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(prm.AuthorizationServers, []string{s.Issuer}) || !slices.Equal(prm.ScopesSupported, []string{"mcp"}) {
		t.Errorf("protected resource metadata %+v", prm)
	}
	if !strings.HasSuffix(s.ResourceMetadataURL, "/.well-known/oauth-protected-resource/mcp") {
		t.Errorf("ResourceMetadataURL %s", s.ResourceMetadataURL)
	}

	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		asm, err := oauthex.GetAuthServerMeta(t.Context(), s.Issuer+path, s.Issuer, hc)
		if err != nil || asm == nil {
			t.Fatalf("%s: %v", path, err)
		}
		want := &oauthex.AuthServerMeta{
			Issuer:                                     s.Issuer,
			AuthorizationEndpoint:                      s.Issuer + "/authorize",
			TokenEndpoint:                              s.Issuer + "/token",
			RegistrationEndpoint:                       s.Issuer + "/register",
			ScopesSupported:                            []string{"mcp"},
			ResponseTypesSupported:                     []string{"code"},
			GrantTypesSupported:                        []string{"authorization_code", "refresh_token", "client_credentials"},
			TokenEndpointAuthMethodsSupported:          []string{"none", "client_secret_post", "client_secret_basic"},
			CodeChallengeMethodsSupported:              []string{"S256"},
			AuthorizationResponseIssParameterSupported: true,
		}
		if a, b := jsonOf(asm), jsonOf(want); a != b {
			t.Errorf("%s:\n got %s\nwant %s", path, a, b)
		}
	}

	s2 := oauthtest.New(t, oauthtest.Options{NoDynamicRegistration: true})
	asm, err := auth.GetAuthServerMetadata(t.Context(), s2.Issuer, hc)
	if err != nil || asm.RegistrationEndpoint != "" {
		t.Errorf("NoDynamicRegistration: %+v, %v", asm, err)
	}
	resp, err := hc.Post(s2.Issuer+"/register", "application/json", strings.NewReader(`{"redirect_uris":["http://127.0.0.1/cb"]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("NoDynamicRegistration: /register answered %s", resp.Status)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestAuthorizeRejects(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{Scopes: []string{"mcp"}})
	f := newFlow(t, s, "none")
	for _, tc := range []struct {
		name string
		url  string
		want string // in Browse's error
	}{
		{"unknown client", f.authURL(oauth2.SetAuthURLParam("client_id", "nobody")), "400"},
		{"unregistered redirect", f.authURL(oauth2.SetAuthURLParam("redirect_uri", "http://127.0.0.1:1/elsewhere")), "400"},
		{"no redirect", f.authURL(oauth2.SetAuthURLParam("redirect_uri", "")), "400"},
		{"wrong resource", f.authURL(oauth2.SetAuthURLParam("resource", "http://127.0.0.1:1/mcp")), "invalid_target"},
		{"no resource", f.authURL(oauth2.SetAuthURLParam("resource", "")), "invalid_target"},
		{"no challenge", f.authURL(oauth2.SetAuthURLParam("code_challenge", "")), "invalid_request"},
		{"plain challenge", f.authURL(oauth2.SetAuthURLParam("code_challenge_method", "plain")), "invalid_request"},
		{"token response", f.authURL(oauth2.SetAuthURLParam("response_type", "token")), "unsupported_response_type"},
		{"unknown scope", f.authURL(oauth2.SetAuthURLParam("scope", "mcp admin")), "invalid_scope"},
	} {
		err := s.Browse(t.Context(), tc.url)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Browse: %v, want %s", tc.name, err, tc.want)
		}
	}
	if err := s.Browse(t.Context(), "http://127.0.0.1:1/authorize"); err == nil {
		t.Error("Browse went to another server")
	}
	if st := s.Stats(); st.Authorizations != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestLoopbackRedirectAnyPort: a loopback redirect URI matches on any
// port (RFC 8252 §7.3), and nothing else about it may differ.
func TestLoopbackRedirectAnyPort(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{PreRegistered: &oauthtest.Client{ID: "native", RedirectURIs: []string{"http://127.0.0.1/callback"}}})
	cb := newCallback(t)
	f := &flow{t: t, s: s, cb: cb, hc: httpClient(t), cfg: &oauth2.Config{
		ClientID:    "native",
		Endpoint:    oauth2.Endpoint{AuthURL: s.Issuer + "/authorize", TokenURL: s.Issuer + "/token", AuthStyle: oauth2.AuthStyleInParams},
		RedirectURL: cb.URL,
	}}
	f.token()
	for _, other := range []string{
		strings.Replace(cb.URL, "/callback", "/other", 1),
		strings.Replace(cb.URL, "127.0.0.1", "localhost", 1),
		strings.Replace(cb.URL, "http:", "https:", 1),
	} {
		if err := s.Browse(t.Context(), f.authURL(oauth2.SetAuthURLParam("redirect_uri", other))); err == nil || !strings.Contains(err.Error(), "400") {
			t.Errorf("redirect %s: Browse: %v", other, err)
		}
	}
}

func TestTokenRejects(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{})
	f := newFlow(t, s, "none")

	t.Run("wrong verifier", func(t *testing.T) {
		code := f.code()
		_, err := f.exchange(code, oauth2.VerifierOption(oauth2.GenerateVerifier()))
		wantOAuthError(t, err, "invalid_grant")
		_, err = f.exchange(code) // a code is spent by any attempt
		wantOAuthError(t, err, "invalid_grant")
	})
	t.Run("no verifier", func(t *testing.T) {
		_, err := f.exchange(f.code(), oauth2.SetAuthURLParam("code_verifier", ""))
		wantOAuthError(t, err, "invalid_grant")
	})
	t.Run("reused code", func(t *testing.T) {
		code := f.code()
		if _, err := f.exchange(code); err != nil {
			t.Fatal(err)
		}
		_, err := f.exchange(code)
		wantOAuthError(t, err, "invalid_grant")
	})
	t.Run("other redirect", func(t *testing.T) {
		_, err := f.exchange(f.code(), oauth2.SetAuthURLParam("redirect_uri", f.cfg.RedirectURL+"x"))
		wantOAuthError(t, err, "invalid_grant")
	})
	t.Run("other resource", func(t *testing.T) {
		_, err := f.exchange(f.code(), oauth2.SetAuthURLParam("resource", s.Issuer))
		wantOAuthError(t, err, "invalid_target")
	})
	t.Run("other client", func(t *testing.T) {
		code := f.code()
		g := newFlow(t, s, "none")
		g.verifier = f.verifier
		_, err := g.exchange(code, oauth2.SetAuthURLParam("redirect_uri", f.cfg.RedirectURL))
		wantOAuthError(t, err, "invalid_grant")
	})
	t.Run("refresh of another client", func(t *testing.T) {
		tok := f.token()
		g := newFlow(t, s, "none")
		_, err := g.refresh(tok.RefreshToken)
		wantOAuthError(t, err, "invalid_grant")
	})
	t.Run("unknown client", func(t *testing.T) {
		code := f.code()
		cfg := *f.cfg
		cfg.ClientID = "nobody"
		_, err := cfg.Exchange(f.ctx(), code, oauth2.VerifierOption(f.verifier))
		wantOAuthError(t, err, "invalid_client")
	})
	t.Run("unknown grant type", func(t *testing.T) {
		resp, err := f.hc.PostForm(s.Issuer+"/token", url.Values{"grant_type": {"password"}, "client_id": {f.cfg.ClientID}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e struct{ Error string }
		if json.NewDecoder(resp.Body).Decode(&e); resp.StatusCode != http.StatusBadRequest || e.Error != "unsupported_grant_type" {
			t.Errorf("%s %+v", resp.Status, e)
		}
	})
}

// TestClientAuthentication: a confidential client must authenticate by
// the method it registered, with its secret.
func TestClientAuthentication(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{})
	for _, method := range []string{"client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			f := newFlow(t, s, method)
			if f.cfg.ClientSecret == "" || !slices.Contains(s.Secrets(), f.cfg.ClientSecret) {
				t.Fatal("no client secret issued, or Secrets() lacks it")
			}
			f.token()

			wrong := *f.cfg
			wrong.ClientSecret = "wrong"
			_, err := wrong.Exchange(f.ctx(), f.code(), oauth2.VerifierOption(f.verifier))
			wantOAuthError(t, err, "invalid_client")

			other := *f.cfg
			other.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
			if f.cfg.Endpoint.AuthStyle == oauth2.AuthStyleInHeader {
				other.Endpoint.AuthStyle = oauth2.AuthStyleInParams
			}
			_, err = other.Exchange(f.ctx(), f.code(), oauth2.VerifierOption(f.verifier))
			wantOAuthError(t, err, "invalid_client")

			none := *f.cfg
			none.ClientSecret = ""
			none.Endpoint.AuthStyle = oauth2.AuthStyleInParams
			_, err = none.Exchange(f.ctx(), f.code(), oauth2.VerifierOption(f.verifier))
			wantOAuthError(t, err, "invalid_client")
		})
	}
	t.Run("public client with a secret", func(t *testing.T) {
		f := newFlow(t, s, "none")
		f.cfg.ClientSecret = "made-up"
		_, err := f.exchange(f.code())
		wantOAuthError(t, err, "invalid_client")
	})
	t.Run("method not supported", func(t *testing.T) {
		s := oauthtest.New(t, oauthtest.Options{TokenAuthMethods: []string{"client_secret_post"}, PreRegistered: &oauthtest.Client{ID: "c", Secret: "s3cret", RedirectURIs: []string{"http://127.0.0.1/cb"}}})
		cfg := &oauth2.Config{ClientID: "c", ClientSecret: "s3cret", Endpoint: oauth2.Endpoint{TokenURL: s.Issuer + "/token", AuthStyle: oauth2.AuthStyleInHeader}}
		_, err := cfg.Exchange(t.Context(), "code")
		wantOAuthError(t, err, "invalid_client")
	})
}

func TestRegisterRejects(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{TokenAuthMethods: []string{"none"}})
	for name, meta := range map[string]*oauthex.ClientRegistrationMetadata{
		"no redirect":       {TokenEndpointAuthMethod: "none"},
		"remote redirect":   {RedirectURIs: []string{"http://example.com/cb"}, TokenEndpointAuthMethod: "none"},
		"https redirect":    {RedirectURIs: []string{"https://127.0.0.1/cb"}, TokenEndpointAuthMethod: "none"},
		"custom scheme":     {RedirectURIs: []string{"com.example:/cb"}, TokenEndpointAuthMethod: "none"},
		"default method":    {RedirectURIs: []string{"http://127.0.0.1/cb"}}, // client_secret_basic
		"unsupported grant": {RedirectURIs: []string{"http://127.0.0.1/cb"}, TokenEndpointAuthMethod: "none", GrantTypes: []string{"client_credentials"}},
		"implicit":          {RedirectURIs: []string{"http://127.0.0.1/cb"}, TokenEndpointAuthMethod: "none", ResponseTypes: []string{"token"}},
	} {
		_, err := oauthex.RegisterClient(t.Context(), s.Issuer+"/register", meta, httpClient(t))
		var re *oauthex.ClientRegistrationError
		if !errors.As(err, &re) {
			t.Errorf("%s: %v", name, err)
		}
	}
	reg := register(t, s, &oauthex.ClientRegistrationMetadata{RedirectURIs: []string{"http://[::1]/cb"}, TokenEndpointAuthMethod: "none"})
	if reg.ClientID == "" || reg.ClientSecret != "" || reg.TokenEndpointAuthMethod != "none" {
		t.Errorf("registered %+v", reg)
	}
	if st := s.Stats(); st.Registrations != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestClientCredentials(t *testing.T) {
	pre := &oauthtest.Client{ID: "robot", Secret: "robot-secret"}
	s := oauthtest.New(t, oauthtest.Options{ClientCredentials: true, PreRegistered: pre, Scopes: []string{"mcp"}})
	cc := &clientcredentials.Config{
		ClientID: pre.ID, ClientSecret: pre.Secret, TokenURL: s.Issuer + "/token",
		EndpointParams: url.Values{"resource": {s.URL}},
	}
	tok, err := cc.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if tok.RefreshToken != "" {
		t.Error("client_credentials issued a refresh token")
	}
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: bearerClient(t, oauth2.StaticTokenSource(tok))})
	if got := call(t, cs, "whoami", nil); got != "client robot" {
		t.Errorf("whoami = %q", got)
	}
	if st := s.Stats(); st.ClientCredentialsGrants != 1 {
		t.Errorf("stats %+v", st)
	}

	cc.ClientSecret = "wrong"
	_, err = cc.Token(t.Context())
	wantOAuthError(t, err, "invalid_client")

	public := oauthtest.New(t, oauthtest.Options{ClientCredentials: true, PreRegistered: &oauthtest.Client{ID: "pub"}})
	_, err = (&clientcredentials.Config{ClientID: "pub", TokenURL: public.Issuer + "/token", AuthStyle: oauth2.AuthStyleInParams}).Token(t.Context())
	wantOAuthError(t, err, "unauthorized_client")

	off := oauthtest.New(t, oauthtest.Options{PreRegistered: pre})
	_, err = (&clientcredentials.Config{ClientID: pre.ID, ClientSecret: pre.Secret, TokenURL: off.Issuer + "/token"}).Token(t.Context())
	wantOAuthError(t, err, "unsupported_grant_type")
}

// TestPreRegisteredClient: go-sdk's handler with a client ID configured
// in advance, against a server that does not register.
func TestPreRegisteredClient(t *testing.T) {
	cb := newCallback(t)
	s := oauthtest.New(t, oauthtest.Options{
		NoDynamicRegistration: true,
		PreRegistered:         &oauthtest.Client{ID: "switchboard", Secret: "pre-secret", RedirectURIs: []string{"http://127.0.0.1/callback"}},
	})
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient:      &oauthex.ClientCredentials{ClientID: "switchboard", ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: "pre-secret"}},
		RedirectURL:              cb.URL,
		AuthorizationCodeFetcher: cb.fetcher(s),
		Client:                   httpClient(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: s.URL, OAuthHandler: h, HTTPClient: httpClient(t)})
	if got := call(t, cs, "whoami", nil); got != "client switchboard" {
		t.Errorf("whoami = %q", got)
	}
	if !slices.Contains(s.Secrets(), "pre-secret") {
		t.Error("Secrets() lacks the pre-registered secret")
	}
}

func TestSSE(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{SSE: true})
	f := newFlow(t, s, "none")
	tok, err := f.exchange(f.code(oauth2.SetAuthURLParam("resource", s.SSEURL)))
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, &mcp.SSEClientTransport{Endpoint: s.SSEURL, HTTPClient: bearerClient(t, f.cfg.TokenSource(f.ctx(), tok))})
	if got := call(t, cs, "whoami", nil); got != "client "+f.cfg.ClientID {
		t.Errorf("whoami = %q", got)
	}

	// A token for the streamable endpoint is not one for /sse.
	mcpTok := f.token()
	_, err = mcp.NewClient(&mcp.Implementation{Name: "x", Version: "1"}, nil).Connect(t.Context(),
		&mcp.SSEClientTransport{Endpoint: s.SSEURL, HTTPClient: bearerClient(t, oauth2.StaticTokenSource(mcpTok))}, nil)
	if err == nil {
		t.Error("an /mcp token opened an SSE session")
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.SSEURL, nil)
	resp, err := httpClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(got, "/.well-known/oauth-protected-resource/sse") {
		t.Errorf("no token: %s, WWW-Authenticate %q", resp.Status, got)
	}
	prm, err := oauthex.GetProtectedResourceMetadata(t.Context(), strings.Replace(s.SSEURL, "/sse", "/.well-known/oauth-protected-resource/sse", 1), s.SSEURL, httpClient(t))
	if err != nil || prm.AuthorizationServers[0] != s.Issuer {
		t.Errorf("SSE metadata %+v, %v", prm, err)
	}
}

// TestConcurrentFlows: many clients at once, for the race detector.
func TestConcurrentFlows(t *testing.T) {
	s := oauthtest.New(t, oauthtest.Options{})
	const n = 8
	flows := make([]*flow, n)
	for i := range flows {
		flows[i] = newFlow(t, s, "none")
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for _, f := range flows {
		wg.Go(func() {
			verifier := oauth2.GenerateVerifier()
			authURL := f.cfg.AuthCodeURL("state-1", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", s.URL))
			if err := s.Browse(t.Context(), authURL); err != nil {
				errs <- err
				return
			}
			res, err := f.cb.result()
			if err != nil {
				errs <- err
				return
			}
			tok, err := f.cfg.Exchange(f.ctx(), res.Code, oauth2.VerifierOption(verifier))
			if err != nil {
				errs <- err
				return
			}
			if _, err := f.refresh(tok.RefreshToken); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := s.Stats(); st.Authorizations != n || st.CodeExchanges != n || st.Refreshes != n {
		t.Errorf("stats %+v", st)
	}
}

// TestStartClose: Start and Close without a testing.TB. Close does not
// wait for sessions a client left open, and twice is harmless.
func TestStartClose(t *testing.T) {
	s, err := oauthtest.Start(oauthtest.Options{SSE: true})
	if err != nil {
		t.Fatal(err)
	}
	f := newFlow(t, s, "none")
	mcpTok := f.token()
	sseTok, err := f.exchange(f.code(oauth2.SetAuthURLParam("resource", s.SSEURL)))
	if err != nil {
		t.Fatal(err)
	}
	mcpClient := mcp.NewClient(&mcp.Implementation{Name: "x", Version: "1"}, nil)
	for _, tr := range []mcp.Transport{
		&mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: bearerClient(t, oauth2.StaticTokenSource(mcpTok))},
		&mcp.SSEClientTransport{Endpoint: s.SSEURL, HTTPClient: bearerClient(t, oauth2.StaticTokenSource(sseTok))},
	} {
		cs, err := mcpClient.Connect(t.Context(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
	}
	s.Close()
	s.Close()
	if _, err := oauthtest.Start(oauthtest.Options{PreRegistered: &oauthtest.Client{ID: "x", RedirectURIs: []string{"https://example.com/cb"}}}); err == nil {
		t.Error("Start accepted a non-loopback redirect URI")
	}
}
