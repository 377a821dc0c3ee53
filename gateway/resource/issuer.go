package resource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/time/rate"
)

// KeysMaxAge is how long an issuer's keys are used before they are
// fetched again on the next token: a key the issuer withdrew is
// refused within the hour, without a request per token.
const KeysMaxAge = time.Hour

// Refetches of keys for a token whose kid is unknown (an issuer rotated
// its keys) are a token bucket: a burst of refetchBurst, then one per
// refetchEvery. A flood of tokens with made-up kids costs the issuer
// that many requests at most, and a real rotation is seen at once.
const (
	refetchBurst = 3
	refetchEvery = time.Minute
)

// failWait is how long an issuer that could not be reached (metadata or
// keys) is not asked again: its requests are refused meanwhile (503),
// not each sent to a server that is down.
const failWait = 2 * time.Second

// maxDocument bounds a metadata, key set or introspection answer.
const maxDocument = 1 << 20

// issuer is an authorization server whose tokens are accepted: its
// metadata and keys, fetched when first needed and kept.
type issuer struct {
	id string
	g  *Guard

	// mu is held across a fetch: requests that need the same fetch
	// wait for it, and the issuer gets one request, not one each.
	mu       sync.Mutex
	meta     *oauthex.AuthServerMeta
	keys     *jose.JSONWebKeySet
	keysAt   time.Time
	failedAt time.Time
	refetch  *rate.Limiter
	fetches  int // key set fetches, for tests
}

func newIssuer(id string, g *Guard) *issuer {
	return &issuer{id: id, g: g, refetch: rate.NewLimiter(rate.Every(refetchEvery), refetchBurst)}
}

// metadata discovers the issuer's metadata (RFC 8414 §3.1, then OpenID
// Connect Discovery 1.0 §4), checked by go-sdk (issuer equal, PKCE, URL
// schemes). is.mu is held.
func (is *issuer) metadata(ctx context.Context) (*oauthex.AuthServerMeta, error) {
	if is.meta != nil {
		return is.meta, nil
	}
	if time.Since(is.failedAt) < failWait {
		return nil, errors.New("it failed a moment ago")
	}
	var errs []error
	for _, u := range discoveryURLs(is.id) {
		m, err := oauthex.GetAuthServerMeta(ctx, u, is.id, is.g.opts.HTTPClient)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if m != nil {
			is.meta = m
			return m, nil
		}
	}
	is.failedAt = time.Now()
	if len(errs) == 0 {
		return nil, errors.New("no metadata at its RFC 8414 or OpenID discovery URL")
	}
	return nil, errors.Join(errs...)
}

// discoveryURLs are where an issuer's metadata may be: RFC 8414 inserts
// the well-known path before the issuer's path, OpenID appends it.
func discoveryURLs(issuer string) []string {
	u, _ := url.Parse(issuer) // checked by New
	path := strings.TrimSuffix(u.Path, "/")
	origin := u.Scheme + "://" + u.Host
	// Without a path the two OpenID forms are one URL: asked once.
	return slices.Compact([]string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
		origin + path + "/.well-known/openid-configuration",
	})
}

// keysFor returns the keys of kid ("" matches every key), fetching the
// key set when it is missing or old, or when kid is unknown and the
// refetch bucket allows.
func (is *issuer) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, *refusal) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.keys == nil || time.Since(is.keysAt) > KeysMaxAge {
		if err := is.fetchKeys(ctx); err != nil {
			return nil, is.unavailable(err)
		}
	}
	if keys := match(is.keys, kid); len(keys) > 0 {
		return keys, nil
	}
	if kid == "" || !is.refetch.Allow() {
		return nil, refuse(ReasonUnknownKey, "the token's signing key is not one of its issuer's")
	}
	if err := is.fetchKeys(ctx); err != nil {
		return nil, is.unavailable(err)
	}
	if keys := match(is.keys, kid); len(keys) > 0 {
		return keys, nil
	}
	return nil, refuse(ReasonUnknownKey, "the token's signing key is not one of its issuer's")
}

func (is *issuer) unavailable(err error) *refusal {
	is.g.opts.Logger.Warn("authorization server unreachable", "issuer", is.id, "error", err)
	return refuse(ReasonUnavailable, "the authorization server %s could not be reached to check the token; try again shortly", is.id)
}

func match(set *jose.JSONWebKeySet, kid string) []jose.JSONWebKey {
	if kid == "" {
		return set.Keys
	}
	return set.Key(kid)
}

// fetchKeys fetches the key set at the metadata's jwks_uri. is.mu is
// held.
func (is *issuer) fetchKeys(ctx context.Context) error {
	if time.Since(is.failedAt) < failWait {
		return errors.New("it failed a moment ago")
	}
	err := is.fetchKeysNow(ctx)
	if err != nil {
		is.failedAt = time.Now()
	}
	return err
}

func (is *issuer) fetchKeysNow(ctx context.Context) error {
	meta, err := is.metadata(ctx)
	if err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	if meta.JWKSURI == "" {
		return errors.New("its metadata has no jwks_uri")
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, meta.JWKSURI, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := is.g.opts.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	is.fetches++
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("jwks_uri %s: %s", meta.JWKSURI, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return err
	}
	if len(body) > maxDocument {
		return fmt.Errorf("jwks_uri %s: over %d bytes", meta.JWKSURI, maxDocument)
	}
	set, err := parseKeySet(body)
	if err != nil {
		return fmt.Errorf("jwks_uri %s: %w", meta.JWKSURI, err)
	}
	is.keys, is.keysAt = set, time.Now()
	return nil
}

// parseKeySet reads a JWK set (RFC 7517 §5), keeping the public
// signature keys: a key of a type we cannot read (a new kty, an
// encryption key) is passed over, not a reason to refuse every token.
func parseKeySet(body []byte) (*jose.JSONWebKeySet, error) {
	var raw struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("not a JWK set: %w", err)
	}
	set := &jose.JSONWebKeySet{}
	for _, k := range raw.Keys {
		var key jose.JSONWebKey
		if err := key.UnmarshalJSON(k); err != nil || !key.IsPublic() || !key.Valid() {
			continue
		}
		if key.Use != "" && key.Use != "sig" {
			continue
		}
		set.Keys = append(set.Keys, key)
	}
	return set, nil
}

// KeyFetches counts the key set fetches from issuer so far (for tests
// that check a flood of unknown kids does not become one).
func (g *Guard) KeyFetches(issuer string) int {
	is := g.issuers[issuer]
	if is == nil {
		return 0
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.fetches
}
