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

// refreshTimeout bounds one refresh, which holds the store's lock.
const refreshTimeout = 30 * time.Second

// renewLocked gets a new access token into s.g: another process's, when
// the store has one newer than ours, else from the token endpoint with
// the refresh token. The store's lock is held throughout, so processes
// sharing the grant spend each refresh token once. A refused refresh
// token (invalid_grant) removes the grant and tells the handler why.
func (s *source) renewLocked(force bool) (bool, error) {
	now := time.Now()
	var lost string
	err := s.h.set.Store.Update(s.g.Server, s.g.ClientID, func(cur *Grant) (*Grant, error) {
		if cur == nil {
			lost = "the stored authorization was removed (logged out)"
			return nil, nil
		}
		if cur.AccessToken != s.g.AccessToken && fresh(cur, now) {
			s.g = *cur // renewed by another process meanwhile
			s.h.set.Secret(s.g.Secrets()...)
			return cur, nil
		}
		g := *cur
		if g.RefreshToken == "" {
			lost = "the access token expired and there is no refresh token"
			if force {
				lost = "the server refused the access token, and there is no refresh token"
			}
			return nil, nil
		}
		ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), oauth2.HTTPClient, s.h.set.Client), refreshTimeout)
		defer cancel()
		tok, err := g.config().TokenSource(ctx, &oauth2.Token{RefreshToken: g.RefreshToken}).Token()
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			lost = "the authorization server refused the refresh token (invalid_grant)"
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("refreshing the access token: %w", err)
		}
		g.setToken(tok)
		g.Obtained = now
		s.h.set.Secret(g.Secrets()...)
		s.g = g
		return &g, nil
	})
	if err != nil {
		return false, err
	}
	if lost != "" {
		s.h.lose(s, lost)
		return false, nil
	}
	return true, nil
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
