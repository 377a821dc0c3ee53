package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// Grant is what a server's authorization was obtained with (DESIGN.md
// F42): the server's url and the client it was granted to, the endpoint
// that refreshes it, and the tokens. Every field but the url, the client
// id, the endpoints and the scopes is a secret.
type Grant struct {
	Server       string           `json:"server"` // the MCP endpoint
	ClientID     string           `json:"clientId"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	TokenURL     string           `json:"tokenUrl"`
	AuthStyle    oauth2.AuthStyle `json:"authStyle,omitempty"`
	Scopes       []string         `json:"scopes,omitempty"`
	AccessToken  string           `json:"accessToken"`
	TokenType    string           `json:"tokenType,omitempty"`
	RefreshToken string           `json:"refreshToken,omitempty"`
	Expiry       time.Time        `json:"expiry,omitzero"`
	Obtained     time.Time        `json:"obtained"`
}

// Secrets are the grant's values that must never be printed.
func (g *Grant) Secrets() []string {
	return []string{g.AccessToken, g.RefreshToken, g.ClientSecret}
}

func (g *Grant) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: g.AccessToken, TokenType: g.TokenType, RefreshToken: g.RefreshToken, Expiry: g.Expiry}
}

func (g *Grant) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID: g.ClientID, ClientSecret: g.ClientSecret, Scopes: g.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: g.TokenURL, AuthStyle: g.AuthStyle},
	}
}

// Store keeps grants: in a file when it has a path, shared by every
// switchboard of the user, else in memory for the life of the process.
// The file is JSON of mode 0600 in a directory of mode 0700; every change
// is read, changed and written atomically under a lock, so two processes
// refreshing at once do not lose each other's tokens.
type Store struct {
	path string

	mu  sync.Mutex // orders this process's changes; the file lock orders processes'
	mem []Grant    // the grants when there is no file
}

// NewStore returns the store kept at path, or in memory when path is "".
func NewStore(path string) *Store { return &Store{path: path} }

// Path is the file the store is kept in, or "".
func (s *Store) Path() string { return s.path }

// maxStoreSize bounds the token file: a few kilobytes a server.
const maxStoreSize = 4 << 20

type storeFile struct {
	Version int     `json:"version"`
	Grants  []Grant `json:"grants"`
}

// Lookup returns the grant for the server at url and the client id, or
// for any client of that server when clientID is "" (the newest).
func (s *Store) Lookup(url, clientID string) (*Grant, error) {
	grants, err := s.Grants()
	if err != nil {
		return nil, err
	}
	return Newest(grants, url, clientID), nil
}

// Grants reads every stored grant, for a caller with many servers to
// look up (one read of the file, not one each).
func (s *Store) Grants() ([]Grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readLocked()
}

// Newest is the grant among grants for the server at url and the client
// id, or for any client of it when clientID is "" (the newest); nil for
// none.
func Newest(grants []Grant, url, clientID string) *Grant {
	var found *Grant
	for i := range grants {
		g := &grants[i]
		if g.Server != url || clientID != "" && g.ClientID != clientID {
			continue
		}
		if found == nil || g.Obtained.After(found.Obtained) {
			found = g
		}
	}
	return found
}

// Save puts g in place of the grant of the same server and client.
func (s *Store) Save(g Grant) error {
	return s.change(func(grants []Grant) ([]Grant, error) {
		return put(grants, g.Server, g.ClientID, &g), nil
	})
}

// Replace saves g; with alone, it removes the server's grants to other
// clients too.
func (s *Store) Replace(g Grant, alone bool) error {
	return s.change(func(grants []Grant) ([]Grant, error) {
		if alone {
			grants = slices.DeleteFunc(grants, func(old Grant) bool { return old.Server == g.Server })
		}
		return put(grants, g.Server, g.ClientID, &g), nil
	})
}

// Update replaces the grant of the server at url and the client with what
// fn makes of it (cur is nil when there is none; nil removes it), holding
// the lock across fn: a refresh runs inside it, so two processes sharing
// a grant refresh it once, and the second finds the first's new tokens
// instead of spending a refresh token that is no longer valid.
func (s *Store) Update(url, clientID string, fn func(cur *Grant) (*Grant, error)) error {
	return s.change(func(grants []Grant) ([]Grant, error) {
		var cur *Grant
		if i := slices.IndexFunc(grants, func(g Grant) bool { return g.Server == url && g.ClientID == clientID }); i >= 0 {
			c := grants[i]
			cur = &c
		}
		next, err := fn(cur)
		if err != nil {
			return nil, err
		}
		return put(grants, url, clientID, next), nil
	})
}

// put replaces the grant of url and clientID in grants by g, or removes it
// when g is nil.
func put(grants []Grant, url, clientID string, g *Grant) []Grant {
	grants = slices.DeleteFunc(grants, func(old Grant) bool { return old.Server == url && old.ClientID == clientID })
	if g != nil {
		grants = append(grants, *g)
	}
	return grants
}

// Delete removes every grant of the server at url, or of that client only,
// and reports how many it removed.
func (s *Store) Delete(url, clientID string) (int, error) {
	n := 0
	err := s.change(func(grants []Grant) ([]Grant, error) {
		before := len(grants)
		grants = slices.DeleteFunc(grants, func(g Grant) bool {
			return g.Server == url && (clientID == "" || g.ClientID == clientID)
		})
		n = before - len(grants)
		return grants, nil
	})
	return n, err
}

// change applies fn to the stored grants, under the lock; nothing is
// written when fn fails.
func (s *Store) change(fn func([]Grant) ([]Grant, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" {
		grants, err := fn(slices.Clone(s.mem))
		if err == nil {
			s.mem = grants
		}
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	unlock, err := safefile.Lock(s.path)
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	defer unlock()
	grants, err := s.readLocked()
	if err != nil {
		return err
	}
	if grants, err = fn(grants); err != nil {
		return err
	}
	data, err := json.MarshalIndent(storeFile{Version: 1, Grants: grants}, "", "  ")
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	if err := safefile.WriteAtomic(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

// readLocked reads the grants. A missing file has none; a file that is
// not a regular file, too large or not the store's JSON is an error that
// names it and never quotes it (it holds tokens).
func (s *Store) readLocked() ([]Grant, error) {
	if s.path == "" {
		return slices.Clone(s.mem), nil
	}
	data, err := safefile.ReadLimited(s.path, maxStoreSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("token store %s: %s", s.path, safefile.Reason(err))
	}
	var f storeFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("token store %s: not a token file (%s); remove it to log in afresh", s.path, describeJSONError(err))
	}
	return f.Grants, nil
}

// describeJSONError says where JSON went wrong without quoting it.
func describeJSONError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q has the wrong type", te.Field)
	}
	return "invalid JSON"
}
