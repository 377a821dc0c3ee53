package idptest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Mint says what a token made by Server.Mint holds. Zero fields take the
// server's defaults: its issuer, its user, a lifetime from now, RS256
// with its current key.
type Mint struct {
	Audience []string // aud; required
	Subject  string
	Groups   []string
	Issuer   string
	Scope    string
	// Alg is RS256 or ES256 (signed with the server's current key of
	// that algorithm, or Key), HS256 (an HMAC no one publishes) or none
	// (unsigned).
	Alg jose.SignatureAlgorithm
	// Key signs instead of the server's key: one it never published.
	Key *Key
	// Expiry, NotBefore and IssuedAt default to now+lifetime, unset and
	// now.
	Expiry, NotBefore, IssuedAt time.Time
	// NoExpiry leaves exp out.
	NoExpiry bool
	// Extra claims are added as they are.
	Extra map[string]any
}

// Mint signs a JWT access token as m says.
func (s *Server) Mint(m Mint) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mint(m)
}

// mint is Mint with s.mu held.
func (s *Server) mint(m Mint) string {
	now := time.Now()
	if m.Alg == "" {
		m.Alg = jose.RS256
	}
	if m.Subject == "" {
		m.Subject = s.user.Subject
		if m.Groups == nil {
			m.Groups = s.user.Groups
		}
	}
	if m.Issuer == "" {
		m.Issuer = s.Issuer
	}
	if m.Expiry.IsZero() {
		m.Expiry = now.Add(s.opts.TokenLifetime)
	}
	if m.IssuedAt.IsZero() {
		m.IssuedAt = now
	}
	claims := map[string]any{
		"iss":       m.Issuer,
		"sub":       m.Subject,
		"aud":       m.Audience,
		"iat":       m.IssuedAt.Unix(),
		"jti":       rand.Text(),
		"client_id": "idptest",
	}
	if !m.NoExpiry {
		claims["exp"] = m.Expiry.Unix()
	}
	if !m.NotBefore.IsZero() {
		claims["nbf"] = m.NotBefore.Unix()
	}
	if m.Groups != nil {
		claims["groups"] = m.Groups
	}
	if m.Subject == s.user.Subject && s.user.Email != "" {
		claims["email"] = s.user.Email
	}
	if m.Scope != "" {
		claims["scope"] = m.Scope
	}
	for k, v := range m.Extra {
		claims[k] = v
	}
	switch m.Alg {
	case "none":
		return unsigned(claims)
	case jose.HS256:
		return sign(jose.SigningKey{Algorithm: jose.HS256, Key: s.hmac}, "hmac", claims)
	}
	k := m.Key
	if k == nil {
		k = s.current(m.Alg)
	}
	if k == nil {
		panic("idptest: no key for " + string(m.Alg))
	}
	return sign(jose.SigningKey{Algorithm: k.alg, Key: k.jwk.Key}, k.jwk.KeyID, claims)
}

func sign(key jose.SigningKey, kid string, claims map[string]any) string {
	opts := (&jose.SignerOptions{}).WithType("at+jwt").WithHeader(jose.HeaderKey("kid"), kid)
	signer, err := jose.NewSigner(key, opts)
	if err != nil {
		panic(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		panic(err)
	}
	return tok
}

// unsigned is a JWT with alg none (RFC 7519 §6): what an attacker sends
// hoping a verifier takes it.
func unsigned(claims map[string]any) string {
	head, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT"})
	body, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding.EncodeToString
	return enc(head) + "." + enc(body) + "."
}

// Opaque issues an opaque access token for aud, known to /introspect.
func (s *Server) Opaque(aud ...string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opaqueFor(s.user, aud, "")
}

// opaqueFor issues an opaque token. s.mu is held.
func (s *Server) opaqueFor(u User, aud []string, scope string) string {
	tok := "opaque-" + rand.Text()
	claims := map[string]any{
		"iss": s.Issuer, "sub": u.Subject, "aud": aud,
		"exp": time.Now().Add(s.opts.TokenLifetime).Unix(), "iat": time.Now().Unix(),
		"client_id": "idptest", "token_type": "Bearer",
	}
	if u.Groups != nil {
		claims["groups"] = u.Groups
	}
	if scope != "" {
		claims["scope"] = scope
	}
	s.opaque[tok] = &opaqueToken{claims: claims}
	return tok
}

// Revoke makes an opaque token inactive.
func (s *Server) Revoke(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.opaque[tok]; o != nil {
		o.revoked = true
	}
}

// Forge returns tok with its payload's claim name set to value and the
// signature left as it was: a token whose signature no longer verifies.
func Forge(tok, name string, value any) string {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		panic(fmt.Sprintf("idptest: Forge: not a JWS (%d parts)", len(parts)))
	}
	body, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		panic(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(body, &claims); err != nil {
		panic(err)
	}
	claims[name] = value
	body, _ = json.Marshal(claims)
	parts[1] = base64.RawURLEncoding.EncodeToString(body)
	return strings.Join(parts, ".")
}
