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
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/config"
)

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
	// Refreshed, when set, hears of each refresh of an access token sent
	// to the token endpoint, with its error (nil: a new token), for
	// metrics.
	Refreshed func(err error)
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

// lockFlow waits for the authorization running, or for ctx: a person may
// take minutes, and a request given up on must not wait for them.
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

// setSource makes src the current grant.
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

func challengeError(cs []oauthex.Challenge) string {
	for _, c := range cs {
		if e := c.Params["error"]; e != "" {
			return e
		}
	}
	return ""
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
