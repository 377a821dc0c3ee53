// Package oauth authorizes the host with remote servers that ask for
// OAuth (DESIGN.md F40–F42), on go-sdk's auth, auth/extauth and oauthex:
// a Handler per server gives go-sdk's streamable transport its tokens and
// runs the flow on a 401 or 403; the Store keeps what a flow obtained, so
// a server stays authorized across runs. Discovery (RFC 9728, RFC 8414),
// registration, PKCE, state and iss checks are go-sdk's; this package
// decides when a person is asked, listens for the redirect on loopback,
// refreshes and keeps the tokens, and says when a server needs a login.
package oauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// NeedsAuthError is why a server cannot be used until a person authorizes
// it: it asked for authorization, and no flow could run without them.
type NeedsAuthError struct {
	Server string // its name
	Why    string // what happened, never a token
}

func (e *NeedsAuthError) Error() string { return "needs authorization: " + e.Why }

// AuthError is a flow that ran and failed: the person refused, a
// token request was refused, the metadata would not do.
type AuthError struct{ Err error }

func (e *AuthError) Error() string { return "authorization failed: " + e.Err.Error() }
func (e *AuthError) Unwrap() error { return e.Err }

// IsAuthError reports whether err is an authorization that failed or
// that needs a person: what repeating the request cannot mend.
func IsAuthError(err error) bool {
	var ae *AuthError
	var na *NeedsAuthError
	return errors.As(err, &ae) || errors.As(err, &na)
}

// ErrNotRequired is Login's answer for a server that lets the host in
// without authorization.
var ErrNotRequired = errors.New("the server does not ask for authorization")

// Consent shows a person the page where they authorize the host (opens a
// browser, prints the url) and returns once it is shown; the redirect
// that follows comes to the loopback listener the flow started.
type Consent func(ctx context.Context, authURL string) error

// Settings are what a Handler needs to know of its server.
type Settings struct {
	Server string        // the server's name, for messages
	URL    string        // its MCP endpoint: the resource, and the store's key
	OAuth  *config.OAuth // the config's client settings; nil for none
	// SSE says the server speaks legacy SSE, whose endpoint Login probes
	// with a GET instead of an initialize POST.
	SSE bool
	// ClientName is the name a dynamically registered client gets.
	ClientName string
	// Client makes the requests to the authorization server, and Probe the
	// one Login sends the server to learn how it wants to be authorized
	// (the server's own client, with its configured headers).
	Client, Probe *http.Client
	Store         *Store
	// Secret learns values that must never be printed, as soon as the
	// handler has them.
	Secret func(values ...string)
}

// Handler is a server's auth.OAuthHandler. One lives as long as the
// server's config, across connections, so a token obtained once serves
// every reconnect.
type Handler struct {
	set     Settings
	consent Consent // nil: a server that asks waits for Login

	flow chan struct{} // holds a token while an authorization runs: one at a time

	mu     sync.Mutex
	loaded bool               // the store was read for a grant since the last loss
	src    oauth2.TokenSource // nil until there is a grant
	gen    int                // counts the grants set, so a waiting flow sees one came
	why    string             // why the last grant was lost
	lost   chan struct{}      // closed when authorization is needed and cannot be had alone
	need   *NeedsAuthError    // why, while lost is closed
	// wanted are the scopes the server asked for, kept when a grant is
	// lost, so the next flow (a Login after a step-up) asks for them all.
	wanted []string
	cc     *extauth.ClientCredentialsHandler
}

var _ auth.OAuthHandler = (*Handler)(nil)

// New returns the handler of a server. consent, when set, runs the
// authorization code flow whenever the server asks, at connect or later;
// nil leaves the server needing authorization until Login.
func New(set Settings, consent Consent) *Handler {
	if set.Store == nil {
		set.Store = NewStore("")
	}
	if set.Secret == nil {
		set.Secret = func(...string) {}
	}
	if set.Client == nil {
		set.Client = &http.Client{Timeout: 30 * time.Second}
	}
	return &Handler{set: set, consent: consent, lost: make(chan struct{}), flow: make(chan struct{}, 1)}
}

// lockFlow waits for the authorization running, or for ctx: a person may
// take minutes, and a request given up on must not wait for them.
// probeKey marks the context of a request sent under a short bound of its
// own (the host's server/discover probe, 5 s): an authorization that
// request runs into may wait for a person, so it runs under the probe's
// parent context instead, and the probe learns that it did.
type probeKey struct{}

type probe struct {
	parent     context.Context
	authorized atomic.Bool
}

// UnderProbe returns bounded, marked so that an authorization a request
// sent under it runs into is held to parent instead, and a function that
// reports whether one was obtained: the request's time may have gone to
// a person, and it is worth sending again.
func UnderProbe(bounded, parent context.Context) (context.Context, func() bool) {
	p := &probe{parent: parent}
	return context.WithValue(bounded, probeKey{}, p), p.authorized.Load
}

func (h *Handler) lockFlow(ctx context.Context) error {
	select {
	case h.flow <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (h *Handler) unlockFlow() { <-h.flow }

// machine reports whether the server's grant needs no person: client
// credentials, or an identity provider's word.
func (h *Handler) machine() bool {
	return h.set.OAuth != nil && (h.set.OAuth.Grant == config.GrantClientCredentials || h.set.OAuth.Grant == config.GrantEnterprise)
}

func (h *Handler) clientID() string {
	if h.set.OAuth != nil {
		return h.set.OAuth.ClientID
	}
	return ""
}

// Lost is closed when the server needs authorization and no flow can run
// without a person: a connection that uses the handler is then of no use.
// A later grant (Login) makes a new channel.
func (h *Handler) Lost() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lost
}

// TokenSource is the source of the current grant: the one a flow
// obtained, else the stored one, else nil (the request goes without, and
// the server's 401 starts Authorize).
func (h *Handler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.src != nil || h.loaded || h.machine() {
		return h.src, nil
	}
	g, err := h.set.Store.Lookup(h.set.URL, h.clientID())
	if err != nil {
		return nil, err
	}
	h.loaded = true
	if g != nil {
		h.set.Secret(g.Secrets()...)
		h.src = &source{h: h, g: *g}
	}
	return h.src, nil
}

// Authorize answers the server's 401 or 403 (go-sdk's transport calls it,
// then repeats the request once): a refresh when the token it refused may
// be renewed, the client credentials grant for a machine-to-machine
// server, the authorization code flow when a person can be asked, and
// else a *NeedsAuthError.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) (err error) {
	if p, ok := ctx.Value(probeKey{}).(*probe); ok {
		ctx = p.parent
		defer func() {
			if err == nil {
				p.authorized.Store(true)
			}
		}()
	}
	boundBody(resp)
	defer resp.Body.Close()
	defer io.Copy(io.Discard, resp.Body)
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusForbidden && challengeError(challenges) != "insufficient_scope" {
		return nil // refused, not unauthorized: the repeated request says so
	}
	h.remember(challengeScopes(challenges))
	h.mu.Lock()
	gen, src := h.gen, h.src
	h.mu.Unlock()

	if err := h.lockFlow(ctx); err != nil {
		return err
	}
	defer h.unlockFlow()
	h.mu.Lock()
	renewed := h.gen != gen
	h.mu.Unlock()
	if renewed {
		return nil // another request's authorization finished meanwhile
	}
	if h.machine() {
		var err error
		switch {
		case h.set.OAuth.Grant == config.GrantEnterprise:
			err = h.grantEnterprise(ctx, req, challenges)
		case h.set.OAuth.PrivateKey != "":
			err = h.grantPrivateKeyJWT(ctx, req, challenges)
		default:
			err = h.grantClientCredentials(ctx, req, resp)
		}
		if err != nil && !IsAuthError(err) {
			err = &AuthError{err}
		}
		return err
	}
	// A token refused before it expired (revoked, or the server restarted
	// with new keys) may still be refreshed; a scope it lacks may not.
	if s, ok := src.(*source); ok && resp.StatusCode == http.StatusUnauthorized && s.refresh() {
		return nil
	}
	if h.consent == nil {
		return h.needsAuth(h.reason(resp))
	}
	return h.authorizationCode(ctx, req, resp, h.consent)
}

// reason is what to tell a person about a refusal.
func (h *Handler) reason(resp *http.Response) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.why != "":
		return h.why
	case resp.StatusCode == http.StatusForbidden:
		return "the server asks for more scopes than were granted"
	}
	return "the server asks for authorization (HTTP 401)"
}

// needsAuth drops the grant, closes Lost and returns the error that says so.
func (h *Handler) needsAuth(why string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.src, h.loaded = nil, false // a login elsewhere is found on the next connect
	h.need = &NeedsAuthError{Server: h.set.Server, Why: why}
	select {
	case <-h.lost:
	default:
		close(h.lost)
	}
	return h.need
}

// Retry clears a loss before a new connection tries again: the person
// may have logged in meanwhile (here, or in another process, whose grant
// the store now holds).
func (h *Handler) Retry() {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.lost:
		h.lost, h.need = make(chan struct{}), nil
	default:
	}
}

// Need is why the server needs authorization, while Lost is closed; nil
// otherwise.
func (h *Handler) Need() *NeedsAuthError {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.lost:
		return h.need
	default:
		return nil
	}
}

// lose forgets src's grant, when it is still the current one, for why.
func (h *Handler) lose(src *source, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.src == src {
		h.src, h.why = nil, why
	}
}

// set makes src the current grant.
func (h *Handler) setSource(src oauth2.TokenSource) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.src, h.why, h.need = src, "", nil
	h.gen++
	select {
	case <-h.lost:
		h.lost = make(chan struct{})
	default:
	}
}

func (h *Handler) grantClientCredentials(ctx context.Context, req *http.Request, resp *http.Response) error {
	if h.cc == nil {
		cc, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{
				ClientID:         h.set.OAuth.ClientID,
				ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: h.set.OAuth.ClientSecret},
			},
			HTTPClient: h.set.Client,
		})
		if err != nil {
			return err
		}
		h.cc = cc
	}
	if err := h.cc.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("client credentials grant: %w", plainError(err))
	}
	ts, err := h.cc.TokenSource(ctx)
	if err != nil {
		return err
	}
	h.setSource(&learning{ts: ts, secret: h.set.Secret})
	return nil
}

// authorizationCode runs go-sdk's authorization code flow: discovery,
// registration, the person's consent through a loopback redirect, the
// exchange; the grant it ends with is stored.
func (h *Handler) authorizationCode(ctx context.Context, req *http.Request, resp *http.Response, consent Consent) error {
	port := 0
	if h.set.OAuth != nil {
		port = h.set.OAuth.CallbackPort
	}
	cb, err := listen(port)
	if err != nil {
		return err
	}
	defer cb.close()
	redirect := cb.redirectURL()
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			res, err := cb.await(ctx, args.URL, consent)
			if res != nil {
				h.set.Secret(res.Code)
			}
			return res, err
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{redirect},
			ClientName:              h.set.ClientName,
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
		Client:              h.set.Client,
		RequestRefreshToken: true,
		ScopeFilter:         h.scopes,
	}
	if o := h.set.OAuth; o != nil {
		if o.ClientMetadataURL != "" {
			cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
		}
		if o.ClientID != "" {
			cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: o.ClientID}
			if o.ClientSecret != "" {
				cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
			}
		}
	}
	var obtained *source
	cfg.NewTokenSource = func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
		g := Grant{
			Server: h.set.URL, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
			TokenURL: c.Endpoint.TokenURL, AuthStyle: c.Endpoint.AuthStyle, Scopes: grantedScopes(tok, c.Scopes),
			Obtained: time.Now(),
		}
		g.setToken(tok)
		h.set.Secret(g.Secrets()...)
		// A client the flow registered replaces the server's earlier ones:
		// each login registers anew, and their grants must not pile up.
		if err := h.set.Store.Replace(g, h.clientID() == ""); err != nil {
			return nil, err
		}
		obtained = &source{h: h, g: g}
		return obtained, nil
	}
	flow, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return fmt.Errorf("authorization: %w", err)
	}
	if err := flow.Authorize(ctx, req, resp); err != nil {
		return &AuthError{plainError(err)}
	}
	if obtained == nil {
		return errors.New("authorization failed: no token was obtained")
	}
	h.setSource(obtained)
	return nil
}

// scopes is the flow's scope filter: the config's scopes when it names
// some, else what the server asks for now together with what it asked
// for and granted before, so a step-up does not lose the earlier scopes,
// and a login after a step-up asks for the new ones too.
func (h *Handler) scopes(discovered []string) []string {
	if h.set.OAuth != nil && len(h.set.OAuth.Scopes) > 0 {
		return h.set.OAuth.Scopes
	}
	h.mu.Lock()
	src, _ := h.src.(*source)
	out := slices.Clone(h.wanted)
	h.mu.Unlock()
	if src != nil {
		out = union(out, src.scopes())
	}
	return union(out, discovered)
}

// remember adds scopes to those the next flow asks for.
func (h *Handler) remember(scopes []string) {
	if len(scopes) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.wanted = union(h.wanted, scopes)
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// Login runs the authorization code flow now, asking consent: it probes
// the server for how it wants to be authorized (without the current
// token), and stores the grant. A server that lets the host in without
// authorization is ErrNotRequired.
func (h *Handler) Login(ctx context.Context, consent Consent) error {
	if h.machine() {
		return errors.New("the server is authorized from its config (" + h.set.OAuth.Grant + "); there is nothing to log in to")
	}
	req, resp, err := h.probe(ctx)
	if err != nil {
		return err
	}
	boundBody(resp)
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
	default:
		// Not drained: an SSE server that lets us in answers with a
		// stream that never ends.
		resp.Body.Close()
		if resp.StatusCode < 300 {
			h.endProbeSession(resp)
			return ErrNotRequired
		}
		return fmt.Errorf("the server answered %s, not a request for authorization", resp.Status)
	}
	defer resp.Body.Close()
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	h.remember(challengeScopes(challenges))
	if err := h.lockFlow(ctx); err != nil {
		return err
	}
	defer h.unlockFlow()
	return h.authorizationCode(ctx, req, resp, consent)
}

// probeBody is the initialize request Login sends: what a client's first
// request is, so the server answers it as it would the host's.
const probeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"switchboard","version":"login"}}}`

func (h *Handler) probe(ctx context.Context) (*http.Request, *http.Response, error) {
	method, body := http.MethodPost, []byte(probeBody)
	if h.set.SSE {
		method, body = http.MethodGet, nil
	}
	req, err := http.NewRequestWithContext(ctx, method, h.set.URL, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	client := h.set.Probe
	if client == nil {
		client = h.set.Client
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("asking the server how to authorize: %w", err)
	}
	return req, resp, nil
}

// endProbeSession closes the session a probe's initialize opened on a
// server that needed no authorization.
func (h *Handler) endProbeSession(resp *http.Response) {
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" || h.set.SSE {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, h.set.URL, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", id)
	client := h.set.Probe
	if client == nil {
		client = h.set.Client
	}
	if resp, err := client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// Logout forgets the server's grants, here and in the store, and reports
// how many the store held.
func (h *Handler) Logout() (int, error) {
	h.mu.Lock()
	h.src, h.why, h.loaded = nil, "logged out", false
	h.mu.Unlock()
	return h.set.Store.Delete(h.set.URL, "")
}

func challengeError(cs []oauthex.Challenge) string {
	for _, c := range cs {
		if e := c.Params["error"]; e != "" {
			return e
		}
	}
	return ""
}

// grantedScopes are the scopes a token response names, else those asked for.
func grantedScopes(tok *oauth2.Token, asked []string) []string {
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		return splitScopes(s)
	}
	return slices.Clone(asked)
}

func splitScopes(s string) []string {
	var out []string
	for _, f := range bytes.Fields([]byte(s)) {
		out = append(out, string(f))
	}
	return out
}

// learning passes a source's tokens on, telling the redactor each new one.
type learning struct {
	ts     oauth2.TokenSource
	secret func(...string)
	mu     sync.Mutex
	last   string
}

func (l *learning) Token() (*oauth2.Token, error) {
	t, err := l.ts.Token()
	if err != nil || t == nil {
		return t, err
	}
	l.mu.Lock()
	if t.AccessToken != l.last {
		l.last = t.AccessToken
		l.secret(t.AccessToken, t.RefreshToken)
	}
	l.mu.Unlock()
	return t, nil
}

// maxChallengeBody bounds what is read of a 401 or 403 body: nothing in
// it is used, and a hostile server may send one without end.
const maxChallengeBody = 64 << 10

// boundBody caps the body of resp at maxChallengeBody, for go-sdk's
// handlers, which drain it whole.
func boundBody(resp *http.Response) {
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.LimitReader(resp.Body, maxChallengeBody), resp.Body}
}

// plainError is err without what an authorization server's answer put
// in it: oauth2's RetrieveError carries the whole response body, which
// may echo the request (the code, the verifier, the client secret). Its
// error code and description stay, shortened.
func plainError(err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return clippedError{err}
	}
	msg := "the authorization server refused the token request"
	if re.Response != nil {
		msg += " (HTTP " + strconv.Itoa(re.Response.StatusCode) + ")"
	}
	if re.ErrorCode != "" {
		msg += ": " + clip.Text(re.ErrorCode)
		if re.ErrorDescription != "" {
			msg += ": " + clip.Text(re.ErrorDescription)
		}
	}
	return &refusedError{msg: msg, code: re.ErrorCode}
}

// refusedError is a token endpoint's refusal, without its body.
type refusedError struct{ msg, code string }

func (e *refusedError) Error() string { return e.msg }

// clippedError shortens a message that may quote a response (go-sdk puts
// a registration response's body in its decoding errors).
type clippedError struct{ err error }

func (e clippedError) Error() string {
	const max = 300
	msg := e.err.Error()
	if len(msg) > max {
		return msg[:max] + "…"
	}
	return msg
}

func (e clippedError) Unwrap() error { return e.err }
