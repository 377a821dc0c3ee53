package resource_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/switchboard-mcp/switchboard/gateway/resource"
	"github.com/switchboard-mcp/switchboard/internal/testkit/idptest"
)

// A token that brings its own key is refused: the key embedded in its
// header (jwk), or one at a URL it names (jku, x5u) is never fetched nor
// used; only the issuer's published keys verify. Nor does a kid that
// reads as a path or a URL reach anything.
func TestTokenHeadersNameNoKey(t *testing.T) {
	idp := idptest.New(t, idptest.Options{User: idptest.User{Subject: "alice"}})
	p := protect(t, idp, resource.Options{})
	var fetched atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		http.NotFound(w, r)
	}))
	defer evil.Close()
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	claims := jwt.Claims{Issuer: idp.Issuer, Subject: "root", Audience: jwt.Audience{p.resource},
		Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour)), IssuedAt: jwt.NewNumericDate(time.Now())}
	mint := func(opts *jose.SignerOptions) string {
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: priv}, opts)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := jwt.Signed(s).Claims(claims).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for _, c := range []struct {
		name string
		opts *jose.SignerOptions
	}{
		{"embedded jwk", &jose.SignerOptions{EmbedJWK: true}},
		{"jku", (&jose.SignerOptions{}).WithHeader("jku", evil.URL+"/jwks")},
		{"x5u", (&jose.SignerOptions{}).WithHeader("x5u", evil.URL+"/cert")},
		{"kid as a path", (&jose.SignerOptions{}).WithHeader("kid", "../../../../dev/null")},
		{"kid as a URL", (&jose.SignerOptions{}).WithHeader("kid", evil.URL+"/key")},
	} {
		got := p.get(t, "/mcp", mint(c.opts))
		if got.status != http.StatusUnauthorized {
			var ti map[string]any
			_ = json.Unmarshal([]byte(got.body), &ti)
			t.Errorf("%s: %d %v, want 401", c.name, got.status, ti)
		}
	}
	// Each was read as a signed JWT and refused for its key, not as
	// garbage: the test's tokens are well formed.
	r := p.guard.Refusals()
	if r[resource.ReasonSignature]+r[resource.ReasonUnknownKey] != 5 || r[resource.ReasonMalformed] != 0 {
		t.Errorf("refusals %v, want 5 for the key", r)
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("the token's own URLs were fetched %d times", n)
	}
}
