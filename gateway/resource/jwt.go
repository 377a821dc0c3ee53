package resource

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// algs are the signature algorithms accepted: those the MCP
// authorization servers in use sign with. "none" and the HMAC ones
// (whose key is a secret the issuer would have to share with us) never.
var algs = []jose.SignatureAlgorithm{jose.RS256, jose.ES256}

// verifyJWT checks a JWT access token (RFC 9068): signed by a key of its
// issuer's that fits the algorithm, from a configured issuer, for this
// resource, within its time.
func (g *Guard) verifyJWT(ctx context.Context, raw string) (*auth.TokenInfo, *refusal) {
	tok, err := jwt.ParseSigned(raw, algs)
	if err != nil {
		if alg := headerAlg(raw); alg != "" && alg != string(jose.RS256) && alg != string(jose.ES256) {
			return nil, refuse(ReasonAlg, "tokens signed with %q are not accepted (RS256 or ES256)", clip.To(alg, 20))
		}
		return nil, refuse(ReasonMalformed, "the token is not a signed JWT")
	}
	if len(tok.Headers) != 1 {
		return nil, refuse(ReasonMalformed, "the token has more than one signature")
	}
	h := tok.Headers[0]
	var unverified struct {
		Issuer string `json:"iss"`
	}
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return nil, refuse(ReasonMalformed, "the token's claims are not a JSON object")
	}
	is := g.issuers[unverified.Issuer]
	if is == nil {
		return nil, refuse(ReasonIssuer, "the token's issuer is not one this gateway accepts")
	}
	keys, why := is.keysFor(ctx, h.KeyID)
	if why != nil {
		return nil, why
	}
	var std jwt.Claims
	var claims map[string]any
	verified := false
	for _, k := range keys {
		if !fits(k, h.Algorithm) {
			continue
		}
		if tok.Claims(k.Key, &std, &claims) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, refuse(ReasonSignature, "the token's signature does not verify with its issuer's key")
	}
	// The signed iss is the one that counts: the unverified one only
	// chose whose keys to try.
	if std.Issuer != is.id {
		return nil, refuse(ReasonIssuer, "the token's issuer is not one this gateway accepts")
	}
	if std.Subject == "" {
		return nil, refuse(ReasonMalformed, "the token has no sub (subject)")
	}
	if std.Expiry == nil {
		return nil, refuse(ReasonMalformed, "the token has no exp (expiry)")
	}
	if !oauthex.MatchesResource(std.Audience, g.opts.Resource) {
		return nil, refuse(ReasonAudience, "the token was issued for another resource, not %s", g.opts.Resource)
	}
	switch err := std.ValidateWithLeeway(jwt.Expected{Time: time.Now()}, Skew); {
	case errors.Is(err, jwt.ErrExpired):
		return nil, refuse(ReasonExpired, "the token has expired")
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return nil, refuse(ReasonNotYetValid, "the token is not valid yet")
	case err != nil:
		return nil, refuse(ReasonMalformed, "the token's claims do not hold")
	}
	return tokenInfo(g.userOf(is, std.Subject), std.Expiry.Time(), claims), nil
}

// userOf names the user a token of is says sub is. With one issuer it is
// sub; with several, sub@ISSUER, so that one authorization server cannot
// speak for another's user of the same subject (the access rules, rate
// buckets, sessions and kept results all go by this name).
func (g *Guard) userOf(is *issuer, sub string) string {
	if len(g.order) > 1 {
		return sub + "@" + is.id
	}
	return sub
}

// tokenInfo is what the rest of the gateway knows of a caller: the
// user, the scopes, the expiry and every claim.
func tokenInfo(sub string, exp time.Time, claims map[string]any) *auth.TokenInfo {
	ti := &auth.TokenInfo{UserID: sub, Expiration: exp, Extra: claims}
	switch s := claims["scope"].(type) {
	case string:
		ti.Scopes = strings.Fields(s)
	}
	if scp, ok := claims["scp"].([]any); ok && ti.Scopes == nil { // Entra, Okta
		for _, v := range scp {
			if s, ok := v.(string); ok {
				ti.Scopes = append(ti.Scopes, s)
			}
		}
	}
	return ti
}

// fits reports whether k may verify a signature of alg: the key's type
// is the algorithm's, and a key that names its algorithm names this one.
// A token cannot make an RSA key check an ECDSA signature, or the reverse.
func fits(k jose.JSONWebKey, alg string) bool {
	if k.Algorithm != "" && k.Algorithm != alg {
		return false
	}
	switch key := k.Key.(type) {
	case *rsa.PublicKey:
		return alg == string(jose.RS256) && key.N.BitLen() >= 2048
	case *ecdsa.PublicKey:
		return alg == string(jose.ES256) && key.Curve == elliptic.P256()
	}
	return false
}

// headerAlg is the alg a compact JWS's header names, "" if none can be
// read: only for saying why a token was refused.
func headerAlg(raw string) string {
	head, _, _ := strings.Cut(raw, ".")
	b, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return ""
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(b, &h) != nil {
		return ""
	}
	return h.Alg
}
