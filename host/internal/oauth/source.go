package oauth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// source is the token source of a stored grant: it renews the access
// token before it expires, and keeps every renewal in the store.
type source struct {
	h  *Handler
	mu sync.Mutex
	g  Grant // key fields (server, client) never change
}

func (s *source) scopes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.g.Scopes)
}

// Token returns the access token, renewed first when it is about to
// expire. It returns no token, and no error, when the grant is gone (its
// refresh token refused, or logged out): the request then goes without,
// and the server's 401 brings Authorize. A renewal that fails for another
// reason (the authorization server unreachable) is an error, so the
// request fails saying so rather than as a 401.
func (s *source) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fresh(&s.g, time.Now()) {
		return s.g.token(), nil
	}
	ok, err := s.renewLocked(false)
	if err != nil || !ok {
		return nil, err
	}
	return s.g.token(), nil
}

// refresh renews the token though it has not expired, because the server
// refused it, and reports whether there is a new one.
func (s *source) refresh() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok, _ := s.renewLocked(true)
	return ok
}

// refreshTimeout bounds one token request.
const refreshTimeout = 30 * time.Second

// renewLocked gets a new access token into s.g: another process's, when
// the store has one newer than ours, else from the token endpoint with
// the refresh token. The token request runs outside the store's lock
// (it may take seconds, and the lock is every server's); two processes
// that refresh at once both succeed where the server keeps refresh tokens
// valid, and where it rotates them, the loser's invalid_grant is seen to
// be the winner's rotation (the store has a new refresh token) and the
// winner's tokens are taken. A refused refresh token otherwise removes
// the grant and tells the handler why.
func (s *source) renewLocked(force bool) (bool, error) {
	store := s.h.set.Store
	cur, err := store.Lookup(s.g.Server, s.g.ClientID)
	if err != nil {
		return false, err
	}
	now := time.Now()
	switch {
	case cur == nil:
		s.h.lose(s, "the stored authorization was removed (logged out)")
		return false, nil
	case cur.AccessToken != s.g.AccessToken && fresh(cur, now):
		s.adopt(cur) // renewed by another process meanwhile
		return true, nil
	case cur.RefreshToken == "":
		why := "the access token expired and there is no refresh token"
		if force {
			why = "the server refused the access token, and there is no refresh token"
		}
		s.forget(cur.RefreshToken, why)
		return false, nil
	}
	used := cur.RefreshToken
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), oauth2.HTTPClient, s.h.set.Client), refreshTimeout)
	defer cancel()
	tok, err := cur.config().TokenSource(ctx, &oauth2.Token{RefreshToken: used}).Token()
	if s.h.set.Refreshed != nil {
		s.h.set.Refreshed(err)
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
		if again, _ := store.Lookup(s.g.Server, s.g.ClientID); again != nil && again.RefreshToken != used && again.AccessToken != "" {
			s.adopt(again) // another process rotated it first
			return true, nil
		}
		s.forget(used, "the authorization server refused the refresh token (invalid_grant)")
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("refreshing the access token: %w", plainError(err))
	}
	g := *cur
	g.setToken(tok)
	g.Obtained = now
	s.h.set.Secret(g.Secrets()...)
	s.g = g
	if err := store.Update(g.Server, g.ClientID, func(stored *Grant) (*Grant, error) {
		if stored == nil {
			return nil, nil // logged out while we refreshed: stay out
		}
		return &g, nil
	}); err != nil {
		return false, err
	}
	return true, nil
}

// adopt takes a grant another process renewed.
func (s *source) adopt(g *Grant) {
	s.g = *g
	s.h.set.Secret(s.g.Secrets()...)
}

// forget removes the grant whose refresh token is used, unless another
// process has replaced it meanwhile, and tells the handler why it is gone.
func (s *source) forget(used, why string) {
	_ = s.h.set.Store.Update(s.g.Server, s.g.ClientID, func(stored *Grant) (*Grant, error) {
		if stored != nil && stored.RefreshToken != used {
			return stored, nil
		}
		return nil, nil
	})
	s.h.lose(s, why)
}

// fresh reports whether g's access token is good for a while yet: until
// a quarter of its lifetime, at most 30 s, before it expires. A token
// without an expiry is good until the server refuses it.
func fresh(g *Grant, now time.Time) bool {
	if g.AccessToken == "" {
		return false
	}
	if g.Expiry.IsZero() {
		return true
	}
	margin := min(30*time.Second, g.Expiry.Sub(g.Obtained)/4)
	return now.Add(margin).Before(g.Expiry)
}

// setToken takes a token response into g, keeping the refresh token when
// the response brings no new one.
func (g *Grant) setToken(t *oauth2.Token) {
	g.AccessToken, g.TokenType, g.Expiry = t.AccessToken, t.TokenType, t.Expiry
	if t.RefreshToken != "" {
		g.RefreshToken = t.RefreshToken
	}
}
