// Package idptest runs, on loopback, an OAuth 2.1 authorization server for
// a resource elsewhere (switchboard serve as a protected resource): RFC
// 8414 metadata, a JWKS with RS256 and ES256 keys that rotate, dynamic
// client registration (RFC 7591), /authorize that approves a preset user
// at once after checking PKCE S256, /token issuing signed JWT access
// tokens whose aud is the requested resource (RFC 8707), and /introspect
// (RFC 7662) for opaque ones. Only tests import it.
package idptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// User is who /authorize approves: the sub, groups and email of the
// tokens it leads to.
type User struct {
	Subject string
	Groups  []string
	Email   string
}

// Options shape the server. The zero value issues JWTs for user "alice"
// in group "dev", an hour long, with no introspection.
type Options struct {
	// User is approved at /authorize (default alice, group dev).
	User User
	// TokenLifetime is how long access tokens last (0: one hour).
	TokenLifetime time.Duration
	// Opaque makes /token issue opaque access tokens, known only through
	// /introspect.
	Opaque bool
	// Introspector is the client that may call /introspect (the resource
	// server's credentials); empty: no introspection_endpoint.
	Introspector Client
	// OpenIDOnly serves the metadata only at the OpenID discovery URL, as
	// an OpenID provider without RFC 8414 does.
	OpenIDOnly bool
}

// Client is a confidential client's credentials.
type Client struct{ ID, Secret string }

// Stats count what the server did.
type Stats struct {
	MetadataFetches int // metadata documents served
	KeyFetches      int // JWKS documents served
	Registrations   int // clients registered
	Authorizations  int // codes issued
	Tokens          int // access tokens issued at /token
	Introspections  int // /introspect requests answered
}

// Server is a running authorization server.
type Server struct {
	// Issuer is its issuer identifier, http://127.0.0.1:PORT.
	Issuer string

	opts Options
	srv  *httptest.Server
	hmac []byte // for tests that need an HS256 token: never published

	mu      sync.Mutex
	user    User
	keys    []*Key // published, newest last
	clients map[string]*client
	codes   map[string]*grant
	opaque  map[string]*opaqueToken
	stats   Stats
}

// Key is a key pair a token is signed with; a server's is in its JWKS
// while published.
type Key struct {
	jwk jose.JSONWebKey // private
	alg jose.SignatureAlgorithm
}

type client struct {
	id, secret, method string
	redirectURIs       []string
}

type grant struct {
	clientID, resource, redirectURI, challenge string
	user                                       User
	scope                                      string
	expires                                    time.Time
}

type opaqueToken struct {
	claims  map[string]any
	revoked bool
}

// New starts a Server that t's cleanup closes.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.User.Subject == "" {
		opts.User = User{Subject: "alice", Groups: []string{"dev"}, Email: "alice@example.com"}
	}
	if opts.TokenLifetime == 0 {
		opts.TokenLifetime = time.Hour
	}
	s := &Server{
		opts:    opts,
		user:    opts.User,
		hmac:    []byte(rand.Text() + rand.Text()),
		clients: map[string]*client{},
		codes:   map[string]*grant{},
		opaque:  map[string]*opaqueToken{},
	}
	s.Rotate(jose.RS256)
	s.Rotate(jose.ES256)
	s.srv = httptest.NewServer(s.handler())
	s.Issuer = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// SetUser changes who the next authorizations approve.
func (s *Server) SetUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user = u
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Rotate makes a new key for alg (RS256 or ES256), publishes it and signs
// alg's tokens with it from now on; the older keys stay published (as an
// issuer keeps them while its tokens live) until Withdraw. It returns the
// new key's kid.
func (s *Server) Rotate(alg jose.SignatureAlgorithm) string {
	k := NewKey(alg)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, k)
	return k.jwk.KeyID
}

// Withdraw unpublishes every key but the newest of each algorithm.
func (s *Server) Withdraw() {
	s.mu.Lock()
	defer s.mu.Unlock()
	var kept []*Key
	for i, k := range s.keys {
		if !slices.ContainsFunc(s.keys[i+1:], func(n *Key) bool { return n.alg == k.alg }) {
			kept = append(kept, k)
		}
	}
	s.keys = kept
}

// NewKey makes a signing key for alg that no server publishes: a test's
// own, for a token signed by a stranger. Its kid is random.
func NewKey(alg jose.SignatureAlgorithm) *Key {
	var key any
	var err error
	switch alg {
	case jose.RS256:
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES256:
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		panic("idptest: no keys for " + string(alg))
	}
	if err != nil {
		panic(err)
	}
	return &Key{jwk: jose.JSONWebKey{Key: key, KeyID: rand.Text()[:12], Algorithm: string(alg), Use: "sig"}, alg: alg}
}

// current is the newest published key of alg. s.mu is held.
func (s *Server) current(alg jose.SignatureAlgorithm) *Key {
	for i := len(s.keys) - 1; i >= 0; i-- {
		if s.keys[i].alg == alg {
			return s.keys[i]
		}
	}
	return nil
}

// Close ends the server (New's cleanup does).
func (s *Server) Close() { s.srv.Close() }

// Client returns an HTTP client for the server's URLs.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// ID is the key's kid.
func (k *Key) ID() string { return k.jwk.KeyID }

// WithID is the key under another kid: a stranger's key that claims a
// kid the server published.
func (k *Key) WithID(kid string) *Key {
	c := *k
	c.jwk.KeyID = kid
	return &c
}

// KeyID is the kid of the key alg's tokens are signed with now.
func (s *Server) KeyID(alg jose.SignatureAlgorithm) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current(alg).jwk.KeyID
}
