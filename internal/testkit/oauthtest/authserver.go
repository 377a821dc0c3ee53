package oauthtest

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Token endpoint client authentication methods (RFC 7591 §2).
const (
	methodNone  = "none"
	methodPost  = "client_secret_post"
	methodBasic = "client_secret_basic"
)

// Grant types.
const (
	grantCode    = "authorization_code"
	grantRefresh = "refresh_token"
	grantClient  = "client_credentials"
)

// codeLifetime bounds how long an authorization code may wait for its
// exchange (RFC 6749 §4.1.2 recommends at most ten minutes).
const codeLifetime = time.Minute

// authServer serves the authorization server's endpoints.
func (s *Server) authServer() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.serveMetadata)
	mux.HandleFunc("GET /.well-known/openid-configuration", s.serveMetadata)
	mux.HandleFunc("GET /authorize", s.serveAuthorize)
	mux.HandleFunc("POST /token", s.serveToken)
	if !s.opts.NoDynamicRegistration {
		mux.HandleFunc("POST /register", s.serveRegister)
	}
	return mux
}

// grantTypes are the grant types the server accepts.
func (s *Server) grantTypes() []string {
	g := []string{grantCode, grantRefresh}
	if s.opts.ClientCredentials {
		g = append(g, grantClient)
	}
	return g
}

// serveMetadata answers RFC 8414 discovery (and OpenID discovery, which
// some clients try first, with the same document).
func (s *Server) serveMetadata(w http.ResponseWriter, r *http.Request) {
	meta := map[string]any{
		"issuer":                                         s.Issuer,
		"authorization_endpoint":                         s.Issuer + "/authorize",
		"token_endpoint":                                 s.Issuer + "/token",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          s.grantTypes(),
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          s.opts.TokenAuthMethods,
		"authorization_response_iss_parameter_supported": true,
	}
	if !s.opts.NoDynamicRegistration {
		meta["registration_endpoint"] = s.Issuer + "/register"
	}
	if len(s.opts.Scopes) > 0 {
		meta["scopes_supported"] = s.opts.Scopes
	}
	writeJSON(w, http.StatusOK, meta)
}

// serveRegister registers a client (RFC 7591). Redirect URIs must be
// loopback http URLs: this server only serves native clients on this
// machine.
func (s *Server) serveRegister(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "Content-Type must be application/json")
		return
	}
	var meta oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&meta); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "body is not client metadata: "+err.Error())
		return
	}
	if len(meta.RedirectURIs) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required")
		return
	}
	for _, u := range meta.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_redirect_uri", err.Error())
			return
		}
	}
	if meta.TokenEndpointAuthMethod == "" {
		meta.TokenEndpointAuthMethod = methodBasic // RFC 7591 §2's default
	}
	if !slices.Contains(s.opts.TokenAuthMethods, meta.TokenEndpointAuthMethod) {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "unsupported token_endpoint_auth_method "+meta.TokenEndpointAuthMethod)
		return
	}
	if len(meta.GrantTypes) == 0 {
		meta.GrantTypes = []string{grantCode}
	}
	for _, g := range meta.GrantTypes {
		if !slices.Contains(s.grantTypes(), g) {
			writeError(w, http.StatusBadRequest, "invalid_client_metadata", "unsupported grant type "+g)
			return
		}
	}
	if len(meta.ResponseTypes) == 0 {
		meta.ResponseTypes = []string{"code"}
	}
	if !slices.Equal(meta.ResponseTypes, []string{"code"}) {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "response_types must be [code]")
		return
	}

	s.mu.Lock()
	c := &client{id: "client-" + rand.Text()[:10], method: meta.TokenEndpointAuthMethod, redirectURIs: meta.RedirectURIs}
	if c.method != methodNone {
		c.secret = s.newSecret()
	}
	s.clients[c.id] = c
	s.stats.Registrations++
	s.mu.Unlock()

	resp := struct {
		oauthex.ClientRegistrationMetadata
		ClientID              string `json:"client_id"`
		ClientIDIssuedAt      int64  `json:"client_id_issued_at"`
		ClientSecret          string `json:"client_secret,omitempty"`
		ClientSecretExpiresAt *int64 `json:"client_secret_expires_at,omitempty"`
	}{ClientRegistrationMetadata: meta, ClientID: c.id, ClientIDIssuedAt: time.Now().Unix()}
	if c.secret != "" {
		resp.ClientSecret = c.secret
		resp.ClientSecretExpiresAt = new(int64(0)) // never
	}
	writeJSON(w, http.StatusCreated, resp)
}

// serveAuthorize is the authorization endpoint without its person: it
// checks the request and redirects at once with a code. Until client and
// redirect URI are known good it answers 400 itself (RFC 6749 §4.1.2.1:
// never redirect to an unchecked URI); after, errors go to the redirect.
func (s *Server) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	c := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	if c == nil {
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	}
	redirect := q.Get("redirect_uri")
	if !c.allowsRedirect(redirect) {
		http.Error(w, "redirect_uri is not registered for this client", http.StatusBadRequest)
		return
	}
	fail := func(code, desc string) {
		s.redirect(w, r, redirect, url.Values{"error": {code}, "error_description": {desc}, "state": q["state"]})
	}
	if q.Get("response_type") != "code" {
		fail("unsupported_response_type", "response_type must be code")
		return
	}
	challenge := q.Get("code_challenge")
	if challenge == "" {
		fail("invalid_request", "code_challenge is required (PKCE)")
		return
	}
	if q.Get("code_challenge_method") != "S256" {
		fail("invalid_request", "code_challenge_method must be S256")
		return
	}
	if len(challenge) != 43 {
		fail("invalid_request", "code_challenge is not a base64url SHA-256")
		return
	}
	resource := q.Get("resource")
	if !s.isResource(resource) {
		fail("invalid_target", "resource must name this MCP server")
		return
	}
	scopes, ok := s.grantScopes(q.Get("scope"), s.opts.Scopes)
	if !ok {
		fail("invalid_scope", "unknown scope")
		return
	}

	s.mu.Lock()
	code := s.newSecret()
	s.codes[code] = &grant{
		clientID: c.id, resource: resource, scopes: scopes,
		redirectURI: redirect, challenge: challenge,
		expires: time.Now().Add(codeLifetime),
	}
	s.stats.Authorizations++
	s.mu.Unlock()
	s.redirect(w, r, redirect, url.Values{"code": {code}, "state": q["state"]})
}

// redirect sends the browser to the client's redirect URI with params and
// the issuer (RFC 9207, against mix-up attacks).
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, to string, params url.Values) {
	u, _ := url.Parse(to) // checked at registration
	q := u.Query()
	for k, v := range params {
		if len(v) > 0 && v[0] != "" {
			q[k] = v[:1]
		}
	}
	q.Set("iss", s.Issuer)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// serveToken is the token endpoint: it authenticates the client, then
// redeems the grant.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.tokenError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, status, code, desc := s.authenticate(r)
	if c == nil {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="oauthtest"`)
		}
		s.tokenError(w, status, code, desc)
		return
	}
	var g *grant
	withRefresh := true
	switch gt := r.PostForm.Get("grant_type"); gt {
	case grantCode:
		g, code, desc = s.redeemCode(c, r.PostForm)
		if g != nil {
			s.stats.CodeExchanges++
		}
	case grantRefresh:
		g, code, desc = s.redeemRefresh(c, r.PostForm)
		if g != nil {
			s.stats.Refreshes++
		}
	case grantClient:
		if !s.opts.ClientCredentials {
			code, desc = "unsupported_grant_type", gt
			break
		}
		g, code, desc = s.clientCredentials(c, r.PostForm)
		withRefresh = false
		if g != nil {
			s.stats.ClientCredentialsGrants++
		}
	default:
		code, desc = "unsupported_grant_type", gt
	}
	if g == nil {
		s.tokenError(w, http.StatusBadRequest, code, desc)
		return
	}
	writeJSON(w, http.StatusOK, s.issue(g, withRefresh))
}

// authenticate finds the client a token request is from and checks its
// credentials by the method it registered. s.mu is held. On failure c is
// nil and status, code and desc are the error to answer.
func (s *Server) authenticate(r *http.Request) (c *client, status int, code, desc string) {
	invalid := func(desc string) (*client, int, string, string) {
		return nil, http.StatusUnauthorized, "invalid_client", desc
	}
	id, secret, basic := r.BasicAuth()
	method := methodNone
	switch {
	case basic:
		// RFC 6749 §2.3.1: both are form-encoded inside the header.
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return invalid("malformed Basic credentials")
		}
		if r.PostForm.Has("client_secret") {
			return nil, http.StatusBadRequest, "invalid_request", "more than one client authentication method"
		}
		if fid := r.PostForm.Get("client_id"); fid != "" && fid != id {
			return nil, http.StatusBadRequest, "invalid_request", "client_id differs from the Basic credentials"
		}
		method = methodBasic
	case r.PostForm.Has("client_secret"):
		id, secret, method = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret"), methodPost
	default:
		id = r.PostForm.Get("client_id")
	}
	if id == "" {
		return invalid("no client_id")
	}
	if !slices.Contains(s.opts.TokenAuthMethods, method) {
		return invalid("token endpoint auth method " + method + " is not supported")
	}
	c = s.clients[id]
	switch {
	case c == nil:
		return invalid("unknown client")
	case c.secret == "" && method != methodNone:
		return invalid("a public client has no secret")
	case c.secret != "" && method == methodNone:
		return invalid("client authentication required")
	case c.method != "" && c.method != method:
		return invalid("client registered " + c.method + ", not " + method)
	case subtle.ConstantTimeCompare([]byte(secret), []byte(c.secret)) != 1:
		return invalid("wrong client secret")
	}
	return c, 0, "", ""
}

// redeemCode checks an authorization_code grant (RFC 6749 §4.1.3, PKCE
// RFC 7636 §4.6, resource RFC 8707). A code is spent by any attempt to
// redeem it, so a stolen one is good at most once. s.mu is held.
func (s *Server) redeemCode(c *client, form url.Values) (*grant, string, string) {
	code := form.Get("code")
	g := s.codes[code]
	delete(s.codes, code)
	switch {
	case g == nil:
		return nil, "invalid_grant", "unknown or used authorization code"
	case time.Now().After(g.expires):
		return nil, "invalid_grant", "authorization code expired"
	case g.clientID != c.id:
		return nil, "invalid_grant", "authorization code was issued to another client"
	case form.Get("redirect_uri") != g.redirectURI:
		return nil, "invalid_grant", "redirect_uri differs from the authorization request's"
	case !pkceMatches(form.Get("code_verifier"), g.challenge):
		return nil, "invalid_grant", "code_verifier does not match the code_challenge"
	case form.Has("resource") && form.Get("resource") != g.resource:
		return nil, "invalid_target", "resource differs from the authorization request's"
	}
	return g, "", ""
}

// redeemRefresh rotates a refresh token (OAuth 2.1 §4.3.1): the old one
// is spent, issue gives a new one. s.mu is held.
func (s *Server) redeemRefresh(c *client, form url.Values) (*grant, string, string) {
	rt := form.Get("refresh_token")
	g := s.refresh[rt]
	switch {
	case g == nil:
		return nil, "invalid_grant", "unknown, used or revoked refresh token"
	case g.clientID != c.id:
		return nil, "invalid_grant", "refresh token was issued to another client"
	case form.Has("resource") && form.Get("resource") != g.resource:
		return nil, "invalid_target", "resource differs from the grant's"
	}
	scopes, ok := s.grantScopes(form.Get("scope"), g.scopes)
	if !ok {
		return nil, "invalid_scope", "scope exceeds the grant's"
	}
	delete(s.refresh, rt)
	return &grant{clientID: c.id, resource: g.resource, scopes: scopes}, "", ""
}

// clientCredentials grants a confidential client a token for itself
// (RFC 6749 §4.4). s.mu is held.
func (s *Server) clientCredentials(c *client, form url.Values) (*grant, string, string) {
	if c.secret == "" {
		return nil, "unauthorized_client", "client_credentials needs a confidential client"
	}
	resource := s.URL
	if form.Has("resource") {
		resource = form.Get("resource")
	}
	if !s.isResource(resource) {
		return nil, "invalid_target", "resource must name this MCP server"
	}
	scopes, ok := s.grantScopes(form.Get("scope"), s.opts.Scopes)
	if !ok {
		return nil, "invalid_scope", "unknown scope"
	}
	return &grant{clientID: c.id, resource: resource, scopes: scopes}, "", ""
}

// tokenResponse is RFC 6749 §5.1's.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope,omitempty"`
}

// issue makes the tokens for a redeemed grant. s.mu is held.
func (s *Server) issue(g *grant, withRefresh bool) tokenResponse {
	lifetime := s.opts.TokenLifetime
	at := s.newSecret()
	s.access[at] = &accessToken{clientID: g.clientID, resource: g.resource, scopes: g.scopes, expires: time.Now().Add(lifetime)}
	resp := tokenResponse{
		AccessToken: at,
		TokenType:   "Bearer",
		// At least 1: a client reads 0 as "never expires".
		ExpiresIn: max(1, int(math.Ceil(lifetime.Seconds()))),
		Scope:     strings.Join(g.scopes, " "),
	}
	if withRefresh {
		resp.RefreshToken = s.newSecret()
		s.refresh[resp.RefreshToken] = &grant{clientID: g.clientID, resource: g.resource, scopes: g.scopes}
	}
	return resp
}

// tokenError answers a token request with an RFC 6749 §5.2 error. s.mu
// is held.
func (s *Server) tokenError(w http.ResponseWriter, status int, code, desc string) {
	s.stats.TokenErrors++
	writeError(w, status, code, desc)
}

// isResource reports whether r is one of this server's MCP endpoints,
// which a token must name (RFC 8707).
func (s *Server) isResource(r string) bool {
	return r != "" && (r == s.URL || r == s.SSEURL)
}

// grantScopes returns the scopes a request asked for, all of allowed if
// it named none; ok is false if it asked for one outside allowed.
func (s *Server) grantScopes(requested string, allowed []string) (scopes []string, ok bool) {
	fields := strings.Fields(requested)
	if len(fields) == 0 {
		return slices.Clone(allowed), true
	}
	for _, f := range fields {
		if !slices.Contains(allowed, f) {
			return nil, false
		}
	}
	return fields, true
}

// allowsRedirect reports whether uri is one of c's redirect URIs. For a
// loopback one any port matches (RFC 8252 §7.3: a native client listens
// where it can).
func (c *client) allowsRedirect(uri string) bool {
	u, err := url.Parse(uri)
	if err != nil || uri == "" {
		return false
	}
	for _, reg := range c.redirectURIs {
		if reg == uri {
			return true
		}
		ru, err := url.Parse(reg)
		if err == nil && isLoopback(ru.Hostname()) &&
			ru.Scheme == u.Scheme && ru.Hostname() == u.Hostname() &&
			ru.Path == u.Path && ru.RawQuery == u.RawQuery {
			return true
		}
	}
	return false
}

// checkRedirectURI accepts loopback http URLs without a fragment.
func checkRedirectURI(uri string) error {
	u, err := url.Parse(uri)
	if err != nil {
		return fmt.Errorf("redirect URI %q: %v", uri, err)
	}
	if u.Scheme != "http" || !isLoopback(u.Hostname()) || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("redirect URI %q is not a loopback http URL", uri)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// pkceMatches checks an RFC 7636 S256 verifier against its challenge.
func pkceMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	for _, r := range verifier {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~", r)) {
			return false
		}
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// writeJSON answers v as JSON. No response may be cached: some carry
// tokens (RFC 6749 §5.1).
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers an OAuth error (RFC 6749 §5.2, RFC 7591 §3.2.2).
func writeError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}
