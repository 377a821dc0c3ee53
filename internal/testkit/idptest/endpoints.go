package idptest

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	if !s.opts.OpenIDOnly {
		mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.serveMetadata)
	}
	mux.HandleFunc("GET /.well-known/openid-configuration", s.serveMetadata)
	mux.HandleFunc("GET /jwks", s.serveKeys)
	mux.HandleFunc("POST /register", s.serveRegister)
	mux.HandleFunc("GET /authorize", s.serveAuthorize)
	mux.HandleFunc("POST /token", s.serveToken)
	if s.opts.Introspector.ID != "" {
		mux.HandleFunc("POST /introspect", s.serveIntrospect)
	}
	return mux
}

func (s *Server) serveMetadata(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.stats.MetadataFetches++
	s.mu.Unlock()
	meta := map[string]any{
		"issuer":                                s.Issuer,
		"authorization_endpoint":                s.Issuer + "/authorize",
		"token_endpoint":                        s.Issuer + "/token",
		"registration_endpoint":                 s.Issuer + "/register",
		"jwks_uri":                              s.Issuer + "/jwks",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic", "client_secret_post"},
		"id_token_signing_alg_values_supported": []string{"RS256", "ES256"},
		"subject_types_supported":               []string{"public"},
	}
	if s.opts.Introspector.ID != "" {
		meta["introspection_endpoint"] = s.Issuer + "/introspect"
		meta["introspection_endpoint_auth_methods_supported"] = []string{"client_secret_basic"}
	}
	writeJSON(w, http.StatusOK, meta)
}

// serveKeys publishes the public halves of the published keys.
func (s *Server) serveKeys(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.stats.KeyFetches++
	set := jose.JSONWebKeySet{}
	for _, k := range s.keys {
		set.Keys = append(set.Keys, k.jwk.Public())
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, set)
}

// serveRegister registers a client (RFC 7591): loopback http redirect
// URIs only (native clients on this machine).
func (s *Server) serveRegister(w http.ResponseWriter, r *http.Request) {
	var meta oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&meta); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "body is not client metadata")
		return
	}
	if len(meta.RedirectURIs) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required")
		return
	}
	for _, u := range meta.RedirectURIs {
		p, err := url.Parse(u)
		if err != nil || p.Scheme != "http" || !loopback(p.Hostname()) {
			writeError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect URIs must be loopback http URLs")
			return
		}
	}
	if meta.TokenEndpointAuthMethod == "" {
		meta.TokenEndpointAuthMethod = "client_secret_basic"
	}
	c := &client{id: "client-" + rand.Text()[:10], method: meta.TokenEndpointAuthMethod, redirectURIs: meta.RedirectURIs}
	if c.method != "none" {
		c.secret = rand.Text()
	}
	s.mu.Lock()
	s.clients[c.id] = c
	s.stats.Registrations++
	s.mu.Unlock()
	resp := map[string]any{
		"client_id": c.id, "client_id_issued_at": time.Now().Unix(),
		"redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": c.method,
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
	}
	if c.secret != "" {
		resp["client_secret"], resp["client_secret_expires_at"] = c.secret, 0
	}
	writeJSON(w, http.StatusCreated, resp)
}

// serveAuthorize approves the preset user at once: it checks the client,
// its redirect URI, PKCE S256 and the resource, and redirects with a code.
func (s *Server) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clients[q.Get("client_id")]
	if c == nil {
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	}
	redirect := q.Get("redirect_uri")
	if !slices.Contains(c.redirectURIs, redirect) {
		http.Error(w, "redirect_uri is not registered for this client", http.StatusBadRequest)
		return
	}
	back := func(v url.Values) {
		u, _ := url.Parse(redirect)
		rq := u.Query()
		for k := range v {
			rq.Set(k, v.Get(k))
		}
		if st := q.Get("state"); st != "" {
			rq.Set("state", st)
		}
		rq.Set("iss", s.Issuer)
		u.RawQuery = rq.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code":
		back(url.Values{"error": {"unsupported_response_type"}})
		return
	case q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43:
		back(url.Values{"error": {"invalid_request"}, "error_description": {"PKCE S256 is required"}})
		return
	case q.Get("resource") == "":
		back(url.Values{"error": {"invalid_target"}, "error_description": {"resource is required (RFC 8707)"}})
		return
	}
	code := rand.Text()
	s.codes[code] = &grant{
		clientID: c.id, resource: q.Get("resource"), redirectURI: redirect,
		challenge: q.Get("code_challenge"), user: s.user, scope: q.Get("scope"),
		expires: time.Now().Add(time.Minute),
	}
	s.stats.Authorizations++
	back(url.Values{"code": {code}})
}

// serveToken redeems a code (checking client, redirect URI, PKCE and
// resource) or a refresh token for an access token.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "bad form")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.authenticate(r)
	if c == nil {
		writeError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	f := r.PostForm
	var g *grant
	switch f.Get("grant_type") {
	case "authorization_code":
		g = s.codes[f.Get("code")]
		delete(s.codes, f.Get("code"))
		switch {
		case g == nil || time.Now().After(g.expires) || g.clientID != c.id:
			writeError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired code")
			return
		case f.Get("redirect_uri") != g.redirectURI:
			writeError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs")
			return
		case !pkce(f.Get("code_verifier"), g.challenge):
			writeError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match")
			return
		case f.Has("resource") && f.Get("resource") != g.resource:
			writeError(w, http.StatusBadRequest, "invalid_target", "resource differs")
			return
		}
	case "refresh_token":
		g = s.codes["refresh:"+f.Get("refresh_token")]
		delete(s.codes, "refresh:"+f.Get("refresh_token"))
		if g == nil || g.clientID != c.id {
			writeError(w, http.StatusBadRequest, "invalid_grant", "unknown or used refresh token")
			return
		}
	default:
		writeError(w, http.StatusBadRequest, "unsupported_grant_type", "")
		return
	}
	var access string
	if s.opts.Opaque {
		access = s.opaqueFor(g.user, []string{g.resource}, g.scope)
	} else {
		access = s.mint(Mint{Audience: []string{g.resource}, Subject: g.user.Subject, Groups: g.user.Groups, Scope: g.scope,
			Extra: map[string]any{"client_id": c.id}})
	}
	refresh := rand.Text()
	s.codes["refresh:"+refresh] = &grant{clientID: c.id, resource: g.resource, user: g.user, scope: g.scope}
	s.stats.Tokens++
	resp := map[string]any{
		"access_token": access, "token_type": "Bearer", "refresh_token": refresh,
		"expires_in": max(1, int(math.Ceil(s.opts.TokenLifetime.Seconds()))),
	}
	if g.scope != "" {
		resp["scope"] = g.scope
	}
	writeJSON(w, http.StatusOK, resp)
}

// authenticate finds the client of a token request by its registered
// method. s.mu is held.
func (s *Server) authenticate(r *http.Request) *client {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	c := s.clients[id]
	if c == nil || subtle.ConstantTimeCompare([]byte(secret), []byte(c.secret)) != 1 {
		return nil
	}
	return c
}

// serveIntrospect answers RFC 7662 for the introspector client only.
func (s *Server) serveIntrospect(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	id, _ = url.QueryUnescape(id)
	secret, _ = url.QueryUnescape(secret)
	want := s.opts.Introspector
	if !ok || id != want.ID || subtle.ConstantTimeCompare([]byte(secret), []byte(want.Secret)) != 1 {
		w.Header().Set("WWW-Authenticate", `Basic realm="idptest"`)
		writeError(w, http.StatusUnauthorized, "invalid_client", "introspection needs the resource server's credentials")
		return
	}
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "bad form")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Introspections++
	o := s.opaque[r.PostForm.Get("token")]
	if o == nil || o.revoked || time.Now().Unix() > o.claims["exp"].(int64) {
		writeJSON(w, http.StatusOK, map[string]any{"active": false})
		return
	}
	ans := map[string]any{"active": true}
	for k, v := range o.claims {
		ans[k] = v
	}
	writeJSON(w, http.StatusOK, ans)
}

func pkce(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

func loopback(host string) bool {
	return host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}
