// Package resource makes serve --http an OAuth 2.1 protected resource
// (DESIGN.md F65): it publishes RFC 9728 metadata naming its
// authorization servers, and lets a request through only with an access
// token one of them issued for this gateway, checked as a JWT against the
// issuer's keys or by introspection (RFC 7662).
package resource

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Skew is how far apart our clock and an issuer's may be: a token is
// taken as valid that long past its exp, and that long before its nbf
// or iat. Half a minute covers hosts kept by NTP; more would stretch
// every token's life.
const Skew = 30 * time.Second

// MetadataPath is where the protected resource metadata is served
// (RFC 9728 §3); the resource's own path follows it (§3.1).
const MetadataPath = "/.well-known/oauth-protected-resource"

// Options configure a Guard.
type Options struct {
	// Resource is this gateway's resource identifier (RFC 8707): the URL
	// its clients reach MCP at, which a token's aud must name. Required.
	Resource string
	// Issuers are the authorization servers whose tokens are accepted
	// (their RFC 8414 issuer identifiers). At least one.
	Issuers []string
	// ClientID and ClientSecret authenticate the gateway at an issuer's
	// introspection endpoint. Without them an opaque (non-JWT) token is
	// refused.
	ClientID, ClientSecret string
	// HTTPClient fetches metadata and keys and introspects; nil: one
	// whose requests end after FetchTimeout.
	HTTPClient *http.Client
	// Logger takes a line per failed fetch; nil: none.
	Logger *slog.Logger
}

// FetchTimeout bounds one request to an issuer: a request waiting on a
// hung issuer holds its client that long at most.
const FetchTimeout = 10 * time.Second

// Reasons a request is refused: the label of the refusal count (bounded).
const (
	ReasonNoToken     = "no_token"      // no bearer token
	ReasonMalformed   = "malformed"     // not a JWT we can read, or a claim missing
	ReasonAlg         = "alg"           // signed with an algorithm we do not accept
	ReasonUnknownKey  = "unknown_key"   // no key of the issuer's fits
	ReasonSignature   = "signature"     // the signature does not verify
	ReasonIssuer      = "issuer"        // not from a configured issuer
	ReasonAudience    = "audience"      // meant for another resource
	ReasonExpired     = "expired"       // past exp
	ReasonNotYetValid = "not_yet_valid" // before nbf or iat
	ReasonInactive    = "inactive"      // introspection says not active
	ReasonOpaque      = "opaque"        // not a JWT, and no introspection to ask
	ReasonUnavailable = "unavailable"   // the issuer could not be asked
)

// Reasons are every reason, for metrics that show zeros too.
var Reasons = []string{ReasonNoToken, ReasonMalformed, ReasonAlg, ReasonUnknownKey, ReasonSignature,
	ReasonIssuer, ReasonAudience, ReasonExpired, ReasonNotYetValid, ReasonInactive, ReasonOpaque, ReasonUnavailable}

// refusal is why a token was not accepted; its text goes to the client,
// so it never holds the token.
type refusal struct {
	reason, text string
}

func refuse(reason, format string, args ...any) *refusal {
	return &refusal{reason: reason, text: fmt.Sprintf(format, args...)}
}

// Guard checks the bearer tokens of a gateway's requests. Create it with
// New; it is safe for concurrent use.
type Guard struct {
	opts        Options
	meta        oauthex.ProtectedResourceMetadata
	metaPaths   []string
	metadataURL string
	issuers     map[string]*issuer
	order       []*issuer
	introspects introspectCache
	refusals    sync.Map // reason → *atomic.Int64
}

// New checks opts and returns their Guard. Nothing is fetched yet: an
// issuer that is down at start delays no one, and is asked again later.
func New(opts Options) (*Guard, error) {
	res, err := url.Parse(opts.Resource)
	if err != nil || opts.Resource == "" || res.Host == "" || (res.Scheme != "https" && res.Scheme != "http") || res.Fragment != "" {
		return nil, fmt.Errorf("resource %q: want an absolute http(s) URL without a fragment, like https://mcp.example.com/mcp", opts.Resource)
	}
	if len(opts.Issuers) == 0 {
		return nil, errors.New("no authorization server (issuer) given")
	}
	if (opts.ClientID == "") != (opts.ClientSecret == "") {
		return nil, errors.New("introspection needs both a client ID and its secret")
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: FetchTimeout}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	g := &Guard{opts: opts, issuers: map[string]*issuer{}}
	g.introspects.slots = make(chan struct{}, maxIntrospecting)
	for _, id := range opts.Issuers {
		u, err := url.Parse(id)
		if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("issuer %q: want an absolute URL without query or fragment (RFC 8414)", id)
		}
		if u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())) {
			return nil, fmt.Errorf("issuer %q: want https (http only on loopback)", id)
		}
		if g.issuers[id] != nil {
			continue
		}
		is := newIssuer(id, g)
		g.issuers[id] = is
		g.order = append(g.order, is)
	}
	g.meta = oauthex.ProtectedResourceMetadata{
		Resource:               opts.Resource,
		AuthorizationServers:   slices.Clone(opts.Issuers),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "switchboard",
	}
	path := strings.TrimSuffix(res.EscapedPath(), "/")
	g.metaPaths = []string{MetadataPath, MetadataPath + path}
	g.metadataURL = (&url.URL{Scheme: res.Scheme, Host: res.Host, Path: MetadataPath + res.Path}).String()
	return g, nil
}

// MetadataURL is where clients find the metadata: the resource_metadata
// of a 401's challenge (RFC 9728 §5.1).
func (g *Guard) MetadataURL() string { return g.metadataURL }

// Metadata is the protected resource metadata document served.
func (g *Guard) Metadata() oauthex.ProtectedResourceMetadata { return g.meta }

// Refusals counts the requests refused so far, by reason.
func (g *Guard) Refusals() map[string]int64 {
	out := map[string]int64{}
	for _, r := range Reasons {
		out[r] = 0
	}
	g.refusals.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

// Handler serves the metadata at MetadataPath (and that path with the
// resource's path after it), and passes every other request to next only
// with a good token: the shared token (when not "", compared in constant
// time; the request then has no auth.TokenInfo, as before F65) or an
// access token of a configured issuer for this resource, whose
// auth.TokenInfo (sub as UserID; scope; exp; the claims as Extra) is then
// in the request's context, put there by go-sdk's RequireBearerToken.
func (g *Guard) Handler(next http.Handler, token string) http.Handler {
	meta := auth.ProtectedResourceMetadataHandler(&g.meta)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slices.Contains(g.metaPaths, r.URL.Path) {
			meta.ServeHTTP(w, r)
			return
		}
		raw, ok := bearerToken(r)
		if !ok {
			g.challenge(w, refuse(ReasonNoToken, "a token is needed (Authorization: Bearer …)"), false)
			return
		}
		if token != "" && subtle.ConstantTimeCompare([]byte(raw), []byte(token)) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		ti, why := g.check(r.Context(), raw)
		if why != nil {
			g.challenge(w, why, true)
			return
		}
		// go-sdk's middleware is the one way to put ti in the context;
		// it checks exp again, with our skew, and so passes.
		verified := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return ti, nil }
		auth.RequireBearerToken(verified, &auth.RequireBearerTokenOptions{ClockSkew: Skew})(next).ServeHTTP(w, r)
	})
}

// check verifies an access token: three dot-separated parts are a JWS
// (a JWT), checked against its issuer's keys; anything else is opaque,
// and introspected.
func (g *Guard) check(ctx context.Context, raw string) (*auth.TokenInfo, *refusal) {
	if strings.Count(raw, ".") == 2 {
		return g.verifyJWT(ctx, raw)
	}
	return g.introspect(ctx, raw)
}

// challenge answers a refused request: 401 with a challenge that names
// the metadata (and invalid_token when a token came, RFC 6750 §3.1), or
// 503 when the issuer could not be asked, which no new token would fix.
func (g *Guard) challenge(w http.ResponseWriter, why *refusal, tokenCame bool) {
	reason, text := why.reason, why.text
	g.count(reason)
	if reason == ReasonUnavailable {
		w.Header().Set("Retry-After", "10")
		http.Error(w, "switchboard: "+text, http.StatusServiceUnavailable)
		return
	}
	params := fmt.Sprintf("resource_metadata=%q", g.metadataURL)
	if tokenCame {
		params = `error="invalid_token", ` + params
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+params)
	http.Error(w, "switchboard: "+text, http.StatusUnauthorized)
}

func (g *Guard) count(reason string) {
	c, _ := g.refusals.LoadOrStore(reason, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
}

// bearerToken is the request's bearer token (the scheme's case does not
// matter, RFC 7235 §2.1).
func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	tok = strings.TrimSpace(tok)
	return tok, ok && strings.EqualFold(scheme, "Bearer") && tok != ""
}

// isLoopback reports whether host names this machine only.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
