package resource_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/gateway/resource"
	"github.com/switchboard-mcp/switchboard/internal/testkit/idptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// protected is a guard in front of a handler that answers with the
// caller it was given, served on loopback.
type protected struct {
	url, resource string
	guard         *resource.Guard
	client        *http.Client
}

const sharedToken = "shared-token-5f1e"

func protect(t *testing.T, idp *idptest.Server, opts resource.Options) *protected {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	p := &protected{url: "http://" + srv.Listener.Addr().String()}
	p.resource = p.url + "/mcp"
	if opts.Resource == "" {
		opts.Resource = p.resource
	}
	if opts.Issuers == nil {
		opts.Issuers = []string{idp.Issuer}
	}
	opts.HTTPClient = idp.Client()
	g, err := resource.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	p.guard = g
	srv.Config.Handler = g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ti := auth.TokenInfoFromContext(r.Context())
		if ti == nil {
			io.WriteString(w, "no token info")
			return
		}
		_ = json.NewEncoder(w).Encode(ti)
	}), sharedToken)
	srv.Start()
	t.Cleanup(srv.Close)
	p.client = srv.Client()
	return p
}

type answer struct {
	status    int
	challenge string
	body      string
}

func (p *protected) get(t *testing.T, path, token string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.url+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)}
}

// A token is accepted only when signed by a key of a configured issuer's
// (RS256 or ES256, the key fitting the algorithm), for this resource,
// within its times; each refusal is a 401 whose challenge names the
// metadata and says invalid_token, and is counted by its reason.
func TestJWTs(t *testing.T) {
	idp := idptest.New(t, idptest.Options{User: idptest.User{Subject: "alice", Groups: []string{"dev", "ops"}, Email: "alice@example.com"}})
	p := protect(t, idp, resource.Options{})
	aud := []string{p.resource}
	now := time.Now()
	stranger := idptest.NewKey(jose.RS256)
	cases := []struct {
		name   string
		token  string
		reason string // "" accepted
	}{
		{"RS256", idp.Mint(idptest.Mint{Audience: aud}), ""},
		{"ES256", idp.Mint(idptest.Mint{Audience: aud, Alg: jose.ES256}), ""},
		{"audience with a trailing slash", idp.Mint(idptest.Mint{Audience: []string{p.resource + "/"}}), ""},
		{"one of several audiences", idp.Mint(idptest.Mint{Audience: []string{"https://other.example/mcp", p.resource}}), ""},
		{"expired within the skew", idp.Mint(idptest.Mint{Audience: aud, Expiry: now.Add(-resource.Skew / 2)}), ""},
		{"expired", idp.Mint(idptest.Mint{Audience: aud, Expiry: now.Add(-time.Hour), IssuedAt: now.Add(-2 * time.Hour)}), resource.ReasonExpired},
		{"not yet valid", idp.Mint(idptest.Mint{Audience: aud, NotBefore: now.Add(time.Hour)}), resource.ReasonNotYetValid},
		{"issued in the future", idp.Mint(idptest.Mint{Audience: aud, IssuedAt: now.Add(time.Hour)}), resource.ReasonNotYetValid},
		{"no exp", idp.Mint(idptest.Mint{Audience: aud, NoExpiry: true}), resource.ReasonMalformed},
		{"another audience", idp.Mint(idptest.Mint{Audience: []string{"https://other.example/mcp"}}), resource.ReasonAudience},
		{"a prefix of our resource", idp.Mint(idptest.Mint{Audience: []string{p.url}}), resource.ReasonAudience},
		{"another issuer", idp.Mint(idptest.Mint{Audience: aud, Issuer: "https://evil.example"}), resource.ReasonIssuer},
		{"bad signature", idptest.Forge(idp.Mint(idptest.Mint{Audience: aud}), "sub", "root"), resource.ReasonSignature},
		{"claims another issuer after signing", idptest.Forge(idp.Mint(idptest.Mint{Audience: aud, Issuer: "https://evil.example"}), "iss", idp.Issuer), resource.ReasonSignature},
		{"alg none", idp.Mint(idptest.Mint{Audience: aud, Alg: "none"}), resource.ReasonAlg},
		{"HS256", idp.Mint(idptest.Mint{Audience: aud, Alg: jose.HS256}), resource.ReasonAlg},
		{"unknown kid", idp.Mint(idptest.Mint{Audience: aud, Key: stranger}), resource.ReasonUnknownKey},
		{"a stranger's key under a known kid", idp.Mint(idptest.Mint{Audience: aud, Key: stranger.WithID(idp.KeyID(jose.RS256))}), resource.ReasonSignature},
		{"an RSA signature under the ES256 key's kid", idp.Mint(idptest.Mint{Audience: aud, Key: stranger.WithID(idp.KeyID(jose.ES256))}), resource.ReasonSignature},
		{"not a JWT", "a.b.c", resource.ReasonMalformed},
		{"opaque without introspection", "opaque-token", resource.ReasonOpaque},
	}
	want := map[string]int64{}
	for _, c := range cases {
		got := p.get(t, "/mcp", c.token)
		if c.reason == "" {
			var ti auth.TokenInfo
			if got.status != http.StatusOK || json.Unmarshal([]byte(got.body), &ti) != nil {
				t.Errorf("%s: %d %q, want accepted", c.name, got.status, got.body)
				continue
			}
			if ti.UserID != "alice" || ti.Expiration.IsZero() || !slices.Equal(toStrings(ti.Extra["groups"]), []string{"dev", "ops"}) ||
				ti.Extra["email"] != "alice@example.com" || ti.Extra["iss"] != idp.Issuer {
				t.Errorf("%s: token info %+v", c.name, ti)
			}
			continue
		}
		want[c.reason]++
		wantChallenge := `Bearer error="invalid_token", resource_metadata="` + p.url + resource.MetadataPath + `/mcp"`
		if got.status != http.StatusUnauthorized || got.challenge != wantChallenge {
			t.Errorf("%s: %d %q %q, want 401 with %s", c.name, got.status, got.challenge, got.body, wantChallenge)
		}
		if strings.Contains(got.body, c.token) {
			t.Errorf("%s: the answer shows the token", c.name)
		}
	}
	for reason, n := range p.guard.Refusals() {
		if n != want[reason] {
			t.Errorf("refusals[%s] = %d, want %d", reason, n, want[reason])
		}
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// No token: 401 with the metadata's URL and no error (RFC 6750 §3.1); the
// shared token passes without token info; the metadata document names the
// resource and the issuers at the bare and the path-inserted URL.
func TestChallengeSharedTokenMetadata(t *testing.T) {
	idp := idptest.New(t, idptest.Options{})
	other := idptest.New(t, idptest.Options{})
	p := protect(t, idp, resource.Options{Issuers: []string{idp.Issuer, other.Issuer}})
	got := p.get(t, "/mcp", "")
	if want := `Bearer resource_metadata="` + p.url + `/.well-known/oauth-protected-resource/mcp"`; got.status != 401 || got.challenge != want {
		t.Errorf("no token: %d %q, want 401 %s", got.status, got.challenge, want)
	}
	if got := p.get(t, "/mcp", sharedToken); got.status != 200 || got.body != "no token info" {
		t.Errorf("shared token: %d %q", got.status, got.body)
	}
	if got := p.get(t, "/mcp", sharedToken+"x"); got.status != 401 {
		t.Errorf("a wrong shared token: %d", got.status)
	}
	if got := p.get(t, "/mcp", other.Mint(idptest.Mint{Audience: []string{p.resource}, Alg: jose.ES256})); got.status != 200 {
		t.Errorf("the second issuer's token: %d %q", got.status, got.body)
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		got := p.get(t, path, "")
		var meta map[string]any
		if got.status != 200 || json.Unmarshal([]byte(got.body), &meta) != nil {
			t.Fatalf("%s: %d %q", path, got.status, got.body)
		}
		want := map[string]any{
			"resource":                 p.resource,
			"authorization_servers":    []any{idp.Issuer, other.Issuer},
			"bearer_methods_supported": []any{"header"},
			"resource_name":            "switchboard",
		}
		if d := cmp.Diff(want, meta); d != "" {
			t.Errorf("%s (-want +got):\n%s", path, d)
		}
	}
}

// A token signed with a key the issuer published after we fetched its
// keys is accepted (one refetch); a flood of made-up kids costs the
// issuer a few fetches, not one each.
func TestKeyRotationAndFlood(t *testing.T) {
	idp := idptest.New(t, idptest.Options{})
	p := protect(t, idp, resource.Options{})
	aud := []string{p.resource}
	if got := p.get(t, "/mcp", idp.Mint(idptest.Mint{Audience: aud})); got.status != 200 {
		t.Fatalf("first token: %d %q", got.status, got.body)
	}
	if n := idp.Stats().KeyFetches; n != 1 {
		t.Fatalf("%d key fetches, want 1", n)
	}
	idp.Rotate(jose.RS256)
	idp.Withdraw()
	if got := p.get(t, "/mcp", idp.Mint(idptest.Mint{Audience: aud})); got.status != 200 {
		t.Fatalf("token of the rotated key: %d %q", got.status, got.body)
	}
	if n := idp.Stats().KeyFetches; n != 2 {
		t.Fatalf("%d key fetches after rotation, want 2", n)
	}
	for range 50 {
		got := p.get(t, "/mcp", idp.Mint(idptest.Mint{Audience: aud, Key: idptest.NewKey(jose.ES256)}))
		if got.status != 401 {
			t.Fatalf("made-up kid: %d", got.status)
		}
	}
	// The bucket held 3 and the rotation took one.
	if n := idp.Stats().KeyFetches; n > 4 {
		t.Errorf("%d key fetches after 50 made-up kids, want at most 4", n)
	}
	if n := p.guard.Refusals()[resource.ReasonUnknownKey]; n != 50 {
		t.Errorf("%d unknown_key refusals, want 50", n)
	}
}

// An issuer with OpenID discovery only is found there.
func TestOpenIDDiscovery(t *testing.T) {
	idp := idptest.New(t, idptest.Options{OpenIDOnly: true})
	p := protect(t, idp, resource.Options{})
	if got := p.get(t, "/mcp", idp.Mint(idptest.Mint{Audience: []string{p.resource}, Alg: jose.ES256})); got.status != 200 {
		t.Fatalf("%d %q", got.status, got.body)
	}
}

// Opaque tokens are introspected with the gateway's client credentials:
// active and ours is accepted (and asked about once while cached),
// inactive or another audience's refused.
func TestIntrospection(t *testing.T) {
	rs := idptest.Client{ID: "switchboard", Secret: "rs-secret-8d2a"}
	idp := idptest.New(t, idptest.Options{Introspector: rs, User: idptest.User{Subject: "bob", Groups: []string{"sales"}}})
	p := protect(t, idp, resource.Options{ClientID: rs.ID, ClientSecret: rs.Secret})
	good := idp.Opaque(p.resource)
	for range 3 {
		got := p.get(t, "/mcp", good)
		var ti auth.TokenInfo
		if got.status != 200 || json.Unmarshal([]byte(got.body), &ti) != nil || ti.UserID != "bob" || ti.Extra["iss"] != idp.Issuer {
			t.Fatalf("active token: %d %q", got.status, got.body)
		}
	}
	if n := idp.Stats().Introspections; n != 1 {
		t.Errorf("%d introspections for one token asked three times, want 1", n)
	}
	revoked := idp.Opaque(p.resource)
	idp.Revoke(revoked)
	for tok, reason := range map[string]string{
		revoked:                                 resource.ReasonInactive,
		"opaque-never-issued":                   resource.ReasonInactive,
		idp.Opaque("https://other.example/mcp"): resource.ReasonAudience,
		idp.Opaque(p.resource + "/elsewhere"):   resource.ReasonAudience,
		idp.Mint(idptest.Mint{Audience: []string{p.resource}}): "",
	} {
		got := p.get(t, "/mcp", tok)
		if reason == "" {
			if got.status != 200 {
				t.Errorf("a JWT beside introspection: %d %q", got.status, got.body)
			}
			continue
		}
		if got.status != 401 || !strings.Contains(got.challenge, `error="invalid_token"`) {
			t.Errorf("%s token: %d %q", reason, got.status, got.challenge)
		}
	}
	r := p.guard.Refusals()
	if r[resource.ReasonInactive] != 2 || r[resource.ReasonAudience] != 2 {
		t.Errorf("refusals %v", r)
	}
}

// An issuer that cannot be reached: 503 with Retry-After (no new token
// would help), not a 401.
func TestIssuerDown(t *testing.T) {
	idp := idptest.New(t, idptest.Options{})
	p := protect(t, idp, resource.Options{})
	tok := idp.Mint(idptest.Mint{Audience: []string{p.resource}})
	idp.Close()
	got := p.get(t, "/mcp", tok)
	if got.status != http.StatusServiceUnavailable || strings.Contains(got.body, tok) {
		t.Errorf("issuer down: %d %q", got.status, got.body)
	}
	if p.guard.Refusals()[resource.ReasonUnavailable] != 1 {
		t.Errorf("refusals %v", p.guard.Refusals())
	}
}

// Bad options are one clear error each.
func TestOptions(t *testing.T) {
	for _, c := range []struct {
		opts resource.Options
		want string
	}{
		{resource.Options{Issuers: []string{"https://idp.example"}}, "resource"},
		{resource.Options{Resource: "/mcp", Issuers: []string{"https://idp.example"}}, "resource"},
		{resource.Options{Resource: "https://gw.example/mcp"}, "no authorization server"},
		{resource.Options{Resource: "https://gw.example/mcp", Issuers: []string{"http://idp.example"}}, "https"},
		{resource.Options{Resource: "https://gw.example/mcp", Issuers: []string{"https://idp.example?x=1"}}, "query"},
		{resource.Options{Resource: "https://gw.example/mcp", Issuers: []string{"https://idp.example"}, ClientID: "a"}, "secret"},
	} {
		if _, err := resource.New(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error about %s", c.opts, err, c.want)
		}
	}
}

// With two issuers, one cannot speak for the other's user: the same sub
// from each is two users, each named with its issuer.
func TestSameSubjectTwoIssuers(t *testing.T) {
	idp := idptest.New(t, idptest.Options{})
	other := idptest.New(t, idptest.Options{})
	p := protect(t, idp, resource.Options{Issuers: []string{idp.Issuer, other.Issuer}})
	users := map[string]bool{}
	for _, is := range []*idptest.Server{idp, other} {
		got := p.get(t, "/mcp", is.Mint(idptest.Mint{Subject: "alice", Audience: []string{p.resource}}))
		var ti auth.TokenInfo
		if got.status != 200 || json.Unmarshal([]byte(got.body), &ti) != nil {
			t.Fatalf("%s: %d %q", is.Issuer, got.status, got.body)
		}
		if want := "alice@" + is.Issuer; ti.UserID != want {
			t.Errorf("user %q, want %q", ti.UserID, want)
		}
		users[ti.UserID] = true
	}
	if len(users) != 2 {
		t.Errorf("two issuers' alice are %d users", len(users))
	}
}
