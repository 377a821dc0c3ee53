// Package oauthtest runs, on loopback, an OAuth 2.1 authorization server and
// an MCP server that requires its tokens, so that tests can drive a real
// OAuth client end to end: discovery (RFC 9728, RFC 8414), dynamic client
// registration (RFC 7591), the authorization code grant with PKCE and
// resource indicators (RFC 7636, RFC 8707), refresh token rotation and the
// client credentials grant. Every check is made for real; only the person
// approving the request is left out, so /authorize answers at once.
// Only tests import it.
package oauthtest

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options shape the servers. The zero value is a server with dynamic
// registration, no scopes and one-hour tokens.
type Options struct {
	// TokenLifetime is how long access tokens last (0: one hour). A few
	// seconds make an OAuth client refresh before each request: the
	// golang.org/x/oauth2 token source treats a token as expired 10s early.
	TokenLifetime time.Duration
	// Scopes are advertised in both metadata documents and in the 401
	// challenge; a client that asks for none is granted all, and the MCP
	// server answers 403 to a token without all of them.
	Scopes []string
	// PreRegistered is a client known in advance, for clients configured
	// with a client ID instead of registering; nil: none.
	PreRegistered *Client
	// NoDynamicRegistration turns /register off, so a client must come
	// with a pre-registered ID.
	NoDynamicRegistration bool
	// TokenAuthMethods are the token_endpoint_auth_methods_supported; the
	// token endpoint accepts no other. Default: none, client_secret_post,
	// client_secret_basic.
	TokenAuthMethods []string
	// ClientCredentials accepts grant_type=client_credentials from
	// confidential clients (those with a secret).
	ClientCredentials bool
	// SSE also serves a legacy SSE MCP endpoint at /sse, behind the same
	// bearer check (tokens for it name it as their resource).
	SSE bool
}

// Client is a client registered in advance. A Secret makes it
// confidential: it authenticates with client_secret_post or
// client_secret_basic, whichever TokenAuthMethods allows. Without one it
// is a public client ("none"). RedirectURIs must be loopback http URLs.
type Client struct {
	ID, Secret   string
	RedirectURIs []string
}

// Stats count what the servers did, so a test can tell a refresh from a
// new authorization.
type Stats struct {
	Registrations           int // clients registered through /register
	Authorizations          int // authorization codes issued
	CodeExchanges           int // codes exchanged for tokens
	Refreshes               int // refresh tokens exchanged for new tokens
	ClientCredentialsGrants int // tokens issued for client_credentials
	TokenErrors             int // token requests answered with an error
	Unauthorized            int // 401s the MCP endpoints answered
}

// Server is a running pair: the authorization server (Issuer) on one
// port and the MCP server (URL) on another, as in a real deployment.
type Server struct {
	// URL is the streamable HTTP MCP endpoint, http://127.0.0.1:P/mcp.
	URL string
	// SSEURL is the legacy SSE endpoint when Options.SSE, else "".
	SSEURL string
	// Issuer is the authorization server's issuer identifier (and origin).
	Issuer string
	// ResourceMetadataURL is where URL's protected resource metadata is,
	// the resource_metadata of its 401 challenge.
	ResourceMetadataURL string

	opts     Options
	as, rs   *httptest.Server
	mcp      *mcp.Server  // the streamable endpoint's server
	browser  *http.Client // Browse's: follows no redirects
	browserT *http.Transport
	close    sync.Once

	mu      sync.Mutex
	clients map[string]*client
	codes   map[string]*grant
	refresh map[string]*grant
	access  map[string]*accessToken
	secrets []string
	stats   Stats
}

// client is a registered client. method is its token endpoint auth
// method; "" lets a pre-registered confidential client use either secret
// method.
type client struct {
	id, secret, method string
	redirectURIs       []string
}

// grant is what an authorization code or a refresh token stands for.
type grant struct {
	clientID, resource string
	scopes             []string
	// Set for a code only: what the token request must repeat.
	redirectURI, challenge string
	expires                time.Time
}

// accessToken is an issued access token, valid at resource until expires.
type accessToken struct {
	clientID, resource string
	scopes             []string
	expires            time.Time
}

// New starts a Server that t's cleanup closes.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a Server for callers without a testing.TB (a testscript
// command whose server lives as long as its script); Close ends it.
func Start(opts Options) (*Server, error) {
	if opts.TokenLifetime == 0 {
		opts.TokenLifetime = time.Hour
	}
	if opts.TokenAuthMethods == nil {
		opts.TokenAuthMethods = []string{methodNone, methodPost, methodBasic}
	}
	for _, m := range opts.TokenAuthMethods {
		if !slices.Contains([]string{methodNone, methodPost, methodBasic}, m) {
			return nil, fmt.Errorf("oauthtest: unknown token auth method %q", m)
		}
	}
	s := &Server{
		opts:    opts,
		clients: map[string]*client{},
		codes:   map[string]*grant{},
		refresh: map[string]*grant{},
		access:  map[string]*accessToken{},
	}
	if c := opts.PreRegistered; c != nil {
		if c.ID == "" {
			return nil, errors.New("oauthtest: a pre-registered client needs an ID")
		}
		for _, u := range c.RedirectURIs {
			if err := checkRedirectURI(u); err != nil {
				return nil, fmt.Errorf("oauthtest: pre-registered client: %v", err)
			}
		}
		s.clients[c.ID] = &client{id: c.ID, secret: c.Secret, redirectURIs: slices.Clone(c.RedirectURIs)}
		if c.Secret == "" {
			s.clients[c.ID].method = methodNone
		} else {
			s.secrets = append(s.secrets, c.Secret)
		}
	}

	// The listeners exist before the servers start, so the handlers see
	// every URL set.
	s.as = httptest.NewUnstartedServer(nil)
	s.rs = httptest.NewUnstartedServer(nil)
	s.Issuer = "http://" + s.as.Listener.Addr().String()
	origin := "http://" + s.rs.Listener.Addr().String()
	s.URL = origin + "/mcp"
	s.ResourceMetadataURL = origin + prmPath + "/mcp"
	if opts.SSE {
		s.SSEURL = origin + "/sse"
	}
	s.browserT = &http.Transport{DisableKeepAlives: true}
	s.browser = &http.Client{
		Transport:     s.browserT,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	s.as.Config.Handler = s.authServer()
	s.rs.Config.Handler = s.resourceServer()
	s.as.Start()
	s.rs.Start()
	return s, nil
}

// Close ends both servers and every MCP session, so no goroutine of
// theirs outlives it. Calling it again does nothing.
func (s *Server) Close() {
	s.close.Do(func() {
		// Streams a client left open would keep Close waiting.
		s.rs.CloseClientConnections()
		s.rs.Close()
		// No session starts now; those clients left open end here.
		for ss := range s.mcp.Sessions() {
			ss.Close()
		}
		s.as.Close()
		s.browserT.CloseIdleConnections()
	})
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Secrets returns every access token, refresh token, authorization code
// and client secret the server issued or knows, for tests that check no
// output shows one.
func (s *Server) Secrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.secrets)
}

// RevokeRefreshTokens invalidates every refresh token issued so far, as a
// server does when a person revokes access: refreshing then answers 400
// invalid_grant and the client must authorize again.
func (s *Server) RevokeRefreshTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.refresh)
}

// ExpireAccessTokens makes every access token issued so far expired, so
// the MCP server answers 401 to it and the client must refresh.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	past := time.Now().Add(-time.Second)
	for _, at := range s.access {
		at.expires = past
	}
}

// newSecret returns an unguessable value (130 random bits) and remembers
// it for Secrets. s.mu is held.
func (s *Server) newSecret() string {
	v := rand.Text()
	s.secrets = append(s.secrets, v)
	return v
}
