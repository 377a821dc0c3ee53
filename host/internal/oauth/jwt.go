package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// The client credentials grant with a private key instead of a secret
// (private_key_jwt, RFC 7523 section 2.2, as SEP-1046 has it): go-sdk's
// extauth handler takes client secrets only. Discovery is go-sdk's
// (oauthex, auth); the assertion is made here, anew for every token
// request, since each one may be used once.

// assertionLifetime is how long an assertion is good for: one request.
const assertionLifetime = 5 * time.Minute

// signer signs assertions with a parsed private key.
type signer struct {
	alg string
	key crypto.Signer
}

// parseKey reads a PEM private key (PKCS #8, SEC 1 or PKCS #1) and picks
// the JWS algorithm its kind implies. Errors never quote the key.
func parseKey(pemText string) (*signer, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, errors.New("oauth.privateKey is not a PEM private key")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("oauth.privateKey is a PEM %q block, not a private key", block.Type)
	}
	if err != nil {
		return nil, errors.New("oauth.privateKey does not parse as a private key")
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return &signer{"ES256", k}, nil
		case elliptic.P384():
			return &signer{"ES384", k}, nil
		}
		return nil, errors.New("oauth.privateKey: an EC key must be on P-256 or P-384")
	case *rsa.PrivateKey:
		return &signer{"RS256", k}, nil
	}
	return nil, errors.New("oauth.privateKey: want an EC or RSA key")
}

// sign makes a compact JWS of claims.
func (s *signer) sign(claims map[string]any) (string, error) {
	header, _ := json.Marshal(map[string]string{"alg": s.alg, "typ": "JWT"})
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(header) + "." + enc.EncodeToString(payload)
	var sig []byte
	switch k := s.key.(type) {
	case *ecdsa.PrivateKey:
		var digest []byte
		size := 32
		if s.alg == "ES384" {
			d := sha512.Sum384([]byte(input))
			digest, size = d[:], 48
		} else {
			d := sha256.Sum256([]byte(input))
			digest = d[:]
		}
		r, ss, err := ecdsa.Sign(rand.Reader, k, digest)
		if err != nil {
			return "", err
		}
		// JWS wants r and s as fixed-width big-endian numbers, not DER.
		sig = make([]byte, 2*size)
		r.FillBytes(sig[:size])
		ss.FillBytes(sig[size:])
	case *rsa.PrivateKey:
		d := sha256.Sum256([]byte(input))
		if sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, d[:]); err != nil {
			return "", err
		}
	}
	return input + "." + enc.EncodeToString(sig), nil
}

// jwtSource gets tokens with a fresh assertion for each request.
type jwtSource struct {
	client   *http.Client
	signer   *signer
	clientID string
	issuer   string // the assertion's audience
	tokenURL string
	resource string
	scopes   []string
}

func (j *jwtSource) Token() (*oauth2.Token, error) {
	now := time.Now()
	assertion, err := j.signer.sign(map[string]any{
		"iss": j.clientID, "sub": j.clientID, "aud": j.issuer,
		"iat": now.Unix(), "exp": now.Add(assertionLifetime).Unix(), "jti": rand.Text(),
	})
	if err != nil {
		return nil, fmt.Errorf("signing the client assertion: %w", err)
	}
	cfg := clientcredentials.Config{
		ClientID: j.clientID, TokenURL: j.tokenURL, Scopes: j.scopes, AuthStyle: oauth2.AuthStyleInParams,
		EndpointParams: url.Values{
			"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
			"client_assertion":      {assertion},
			"resource":              {j.resource},
		},
	}
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), oauth2.HTTPClient, j.client), refreshTimeout)
	defer cancel()
	return cfg.Token(ctx)
}

// grantPrivateKeyJWT answers a 401 of a server whose config has a private
// key: the server's and its authorization server's metadata, then a token
// with an assertion signed by the key.
func (h *Handler) grantPrivateKeyJWT(ctx context.Context, req *http.Request, challenges []oauthex.Challenge) error {
	sg, err := parseKey(h.set.OAuth.PrivateKey)
	if err != nil {
		return err
	}
	prm, err := h.resourceMetadata(ctx, challenges, req.URL.String())
	if err != nil {
		return err
	}
	asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], h.set.Client)
	if err != nil {
		return fmt.Errorf("authorization server metadata: %w", err)
	}
	if asm == nil || asm.TokenEndpoint == "" {
		return errors.New("the authorization server publishes no token endpoint")
	}
	scopes := h.set.OAuth.Scopes
	if len(scopes) == 0 {
		scopes = challengeScopes(challenges)
	}
	if len(scopes) == 0 {
		scopes = prm.ScopesSupported
	}
	src := &jwtSource{client: h.set.Client, signer: sg, clientID: h.set.OAuth.ClientID, issuer: asm.Issuer,
		tokenURL: asm.TokenEndpoint, resource: prm.Resource, scopes: scopes}
	ts := oauth2.ReuseTokenSource(nil, src)
	if _, err := ts.Token(); err != nil {
		return fmt.Errorf("client credentials grant: %w", plainError(err))
	}
	h.setSource(&learning{ts: ts, secret: h.set.Secret})
	return nil
}

// resourceMetadata finds the server's protected resource metadata (RFC
// 9728) where the MCP authorization spec says to look: the challenge's
// resource_metadata, then the well-known path under the endpoint's path,
// then at the root; without any, the server's origin is its
// authorization server (the 2025-03-26 rule).
func (h *Handler) resourceMetadata(ctx context.Context, challenges []oauthex.Challenge, resource string) (*oauthex.ProtectedResourceMetadata, error) {
	ru, err := url.Parse(resource)
	if err != nil {
		return nil, err
	}
	type candidate struct{ url, resource string }
	var tries []candidate
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			tries = append(tries, candidate{u, resource})
			break
		}
	}
	at := *ru
	at.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(ru.Path, "/")
	root := *ru
	root.Path = "/.well-known/oauth-protected-resource"
	origin := *ru
	origin.Path, origin.RawQuery = "", ""
	tries = append(tries, candidate{at.String(), resource}, candidate{root.String(), origin.String()})
	for _, c := range tries {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, c.url, c.resource, h.set.Client)
		if err != nil || prm == nil {
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, errors.New("the server's protected resource metadata names no authorization server")
		}
		return prm, nil
	}
	return &oauthex.ProtectedResourceMetadata{AuthorizationServers: []string{origin.String()}, Resource: resource}, nil
}

func challengeScopes(cs []oauthex.Challenge) []string {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}
