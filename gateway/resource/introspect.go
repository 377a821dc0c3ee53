package resource

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// An introspection answer is kept for introspectTTL at most (and never
// past the token's exp): a token revoked at the issuer is refused here
// within that time, and a client's burst of requests asks the issuer
// once. A refusal is kept as long, so a bad token sent again and again
// is not asked about each time.
const introspectTTL = 30 * time.Second

// maxIntrospected bounds the answers kept: made-up tokens cannot grow
// the cache without end.
const maxIntrospected = 4096

// maxIntrospecting bounds the introspection requests in flight at once,
// so a flood of made-up opaque tokens does not become a flood at the
// issuer; the requests past it wait their turn.
const maxIntrospecting = 4

// introspectCache holds recent answers by the token's digest (never the
// token itself).
type introspectCache struct {
	mu      sync.Mutex
	entries map[[32]byte]introspected
	slots   chan struct{} // maxIntrospecting: a request takes one while it asks
}

type introspected struct {
	ti    *auth.TokenInfo
	why   *refusal
	until time.Time
}

func (c *introspectCache) get(key [32]byte) (introspected, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || time.Now().After(e.until) {
		return introspected{}, false
	}
	return e, true
}

func (c *introspectCache) put(key [32]byte, e introspected) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[[32]byte]introspected{}
	}
	if len(c.entries) >= maxIntrospected {
		now := time.Now()
		for k, old := range c.entries {
			if now.After(old.until) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= maxIntrospected {
			clear(c.entries) // all fresh: a flood; start again
		}
	}
	c.entries[key] = e
}

// introspect checks an opaque token at the introspection endpoint of each
// issuer that has one, in order, until one knows it as active.
func (g *Guard) introspect(ctx context.Context, raw string) (*auth.TokenInfo, *refusal) {
	if g.opts.ClientID == "" {
		return nil, refuse(ReasonOpaque, "the token is not a JWT, and this gateway has no client credentials to introspect it")
	}
	key := sha256.Sum256([]byte(raw))
	if e, ok := g.introspects.get(key); ok {
		return e.ti, e.why
	}
	select {
	case g.introspects.slots <- struct{}{}:
		defer func() { <-g.introspects.slots }()
	case <-ctx.Done():
		return nil, refuse(ReasonUnavailable, "the request ended before its token could be checked")
	}
	ti, why, cacheUntil := g.introspectAll(ctx, raw)
	if why == nil || why.reason != ReasonUnavailable {
		g.introspects.put(key, introspected{ti: ti, why: why, until: cacheUntil})
	}
	return ti, why
}

func (g *Guard) introspectAll(ctx context.Context, raw string) (*auth.TokenInfo, *refusal, time.Time) {
	until := time.Now().Add(introspectTTL)
	asked := false
	var last *refusal
	for _, is := range g.order {
		is.mu.Lock()
		meta, err := is.metadata(ctx)
		is.mu.Unlock()
		if err != nil {
			last = is.unavailable(err)
			continue
		}
		if meta.IntrospectionEndpoint == "" {
			continue
		}
		asked = true
		ans, err := g.ask(ctx, meta.IntrospectionEndpoint, raw)
		if err != nil {
			last = is.unavailable(err)
			continue
		}
		ti, why := g.judge(is, ans)
		if why != nil && why.reason == ReasonInactive {
			if last == nil {
				last = why
			}
			continue // perhaps another issuer's
		}
		if ti != nil && ti.Expiration.Before(until) {
			until = ti.Expiration
		}
		return ti, why, until
	}
	if !asked && last == nil {
		last = refuse(ReasonOpaque, "the token is not a JWT, and no authorization server of this gateway's introspects")
	}
	return nil, last, until
}

// introspection is an RFC 7662 §2.2 answer: the fields we check, and all
// of them for the caller's claims.
type introspection struct {
	Active   bool             `json:"active"`
	Subject  string           `json:"sub"`
	Expiry   *jwt.NumericDate `json:"exp"`
	Audience jwt.Audience     `json:"aud"`
	Issuer   string           `json:"iss"`
	claims   map[string]any
}

// ask posts the token to endpoint, authenticated as the gateway's client
// (client_secret_basic, RFC 6749 §2.3.1).
func (g *Guard) ask(ctx context.Context, endpoint, raw string) (*introspection, error) {
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	form := url.Values{"token": {raw}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(g.opts.ClientID), url.QueryEscape(g.opts.ClientSecret))
	resp, err := g.opts.HTTPClient.Do(req)
	if err != nil {
		// The URL is the endpoint's: the token is in the body, never in
		// an error.
		return nil, fmt.Errorf("introspection: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("introspection endpoint %s: %s", endpoint, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxDocument {
		return nil, fmt.Errorf("introspection endpoint %s: answer over %d bytes", endpoint, maxDocument)
	}
	var ans introspection
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("introspection endpoint %s: not an RFC 7662 answer: %v", endpoint, err)
	}
	if err := json.Unmarshal(body, &ans.claims); err != nil {
		return nil, fmt.Errorf("introspection endpoint %s: not a JSON object", endpoint)
	}
	return &ans, nil
}

// judge checks an introspection answer as verifyJWT checks claims: an
// active token, of this issuer, for this resource, not expired. An
// answer without aud or exp is refused: we could not tell the token was
// meant for us, or when to stop trusting it.
func (g *Guard) judge(is *issuer, ans *introspection) (*auth.TokenInfo, *refusal) {
	switch {
	case !ans.Active:
		return nil, refuse(ReasonInactive, "the token is not active")
	case ans.Issuer != "" && ans.Issuer != is.id:
		return nil, refuse(ReasonIssuer, "the token's issuer is not one this gateway accepts")
	case !oauthex.MatchesResource(ans.Audience, g.opts.Resource):
		return nil, refuse(ReasonAudience, "the token was issued for another resource, not %s", g.opts.Resource)
	case ans.Expiry == nil:
		return nil, refuse(ReasonMalformed, "the introspection answer has no exp")
	case ans.Expiry.Time().Add(Skew).Before(time.Now()):
		return nil, refuse(ReasonExpired, "the token has expired")
	case ans.Subject == "":
		return nil, refuse(ReasonMalformed, "the introspection answer has no sub")
	}
	delete(ans.claims, "active")
	if _, ok := ans.claims["iss"]; !ok {
		ans.claims["iss"] = is.id
	}
	return tokenInfo(g.userOf(is, ans.Subject), ans.Expiry.Time(), ans.claims), nil
}
