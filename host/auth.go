package host

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/internal/oauth"
	"github.com/switchboard-mcp/switchboard/host/internal/transport"
)

// Remote servers that ask for OAuth (DESIGN.md F40–F42). Every remote
// server has a handler (internal/oauth) that lives as long as its entry:
// it gives go-sdk's transport the stored token, renews it, and answers a
// 401 or 403. When the answer needs a person and Options.Authorize is
// nil, the server goes to needs-auth and waits for Login; with it, the
// person is asked there and then.

// newAuth is the OAuth handler of a remote server, or nil for a process.
func (h *Host) newAuth(cfg *config.ServerConfig) *oauth.Handler {
	if cfg.URL == "" {
		return nil
	}
	var consent oauth.Consent
	if h.opts.Authorize != nil {
		name := cfg.Name
		consent = func(ctx context.Context, u string) error {
			_, err := guard(h, nil, "authorize", true, func() (*struct{}, error) {
				return nil, h.opts.Authorize(ctx, name, u)
			})
			return err
		}
	}
	return oauth.New(oauth.Settings{
		Server: cfg.Name, URL: cfg.URL, OAuth: cfg.OAuth,
		SSE:        cfg.TransportKind() == config.TransportSSE,
		ClientName: h.opts.ClientName,
		Client:     transport.NewAuthClient(cfg.URL), Probe: transport.NewProbeClient(cfg),
		Store: h.tokens, Secret: h.redactor.Add,
		Refreshed: h.observeRefresh(cfg.Name),
	}, consent)
}

// oauthHandler is s's handler as go-sdk takes it: a nil interface for a
// process, not a nil pointer in one.
func (s *server) oauthHandler() auth.OAuthHandler {
	if s.auth == nil {
		return nil
	}
	return s.auth
}

// authLost is closed when s's connection has lost its authorization; nil
// (never ready) for a server without OAuth.
func (s *server) authLost() <-chan struct{} {
	if s.auth == nil {
		return nil
	}
	return s.auth.Lost()
}

// errAuthLost is why a connection ended when its authorization was lost
// and taken back before the supervisor could read why (a login).
var errAuthLost = errors.New("the authorization changed")

// needsAuth reports the error that puts s in needs-auth, if err is one:
// the handler's, however go-sdk wrapped it, or the handler's word that it
// gave up.
func (s *server) needsAuth(err error) (error, bool) {
	var na *oauth.NeedsAuthError
	if errors.As(err, &na) && na != nil {
		return na, true
	}
	if s.auth != nil && err != nil {
		if na := s.auth.Need(); na != nil {
			return na, true
		}
	}
	return nil, false
}

// ErrAuthNotRequired is Login's error for a server that lets the host in
// without authorization.
var ErrAuthNotRequired = oauth.ErrNotRequired

// Login authorizes a remote server now (DESIGN.md F41): show is given the
// url where the person authorizes the host; the host waits on loopback for
// the redirect, keeps the grant in the token file, and connects the
// server if it was waiting for one. ctx bounds the whole flow, the
// person's part included.
func (h *Host) Login(ctx context.Context, name string, show func(ctx context.Context, url string) error) error {
	s, err := h.remote(name)
	if err != nil {
		return err
	}
	if err := s.auth.Login(ctx, oauth.Consent(show)); err != nil {
		return h.maskError(fmt.Errorf("server %q: %w", name, err))
	}
	h.log.Info("authorized", "server", name)
	h.mu.Lock()
	waiting := s.phase == phaseNeedsAuth || s.phase == phaseFailed
	h.mu.Unlock()
	if waiting {
		return h.Restart(name)
	}
	return nil
}

// Logout forgets a remote server's grants, in this host and in the token
// file, and reports how many the file held. A connected server is
// reconnected, and goes to needs-auth if it asks for authorization.
func (h *Host) Logout(name string) (int, error) {
	s, err := h.remote(name)
	if err != nil {
		return 0, err
	}
	n, err := s.auth.Logout()
	if err != nil {
		return n, h.maskError(err)
	}
	h.mu.Lock()
	running := s.phase.supervised()
	h.mu.Unlock()
	if running {
		return n, h.Restart(name)
	}
	return n, nil
}

// RetryAuth connects again every server waiting in needs-auth, for
// whoever saw the token file change: a login in another process.
func (h *Host) RetryAuth() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	for _, s := range h.servers {
		if s.phase == phaseNeedsAuth {
			h.startLocked(s)
		}
	}
}

func (h *Host) remote(name string) (*server, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	s, ok := h.servers[name]
	switch {
	case !ok:
		return nil, fmt.Errorf("unknown server %q", name)
	case s.admin != "":
		return nil, fmt.Errorf("server %q is %s", name, s.admin)
	case s.auth == nil:
		return nil, fmt.Errorf("server %q is a local process: OAuth is for remote servers", name)
	}
	return s, nil
}

// AuthInfo is what is known of a remote server's authorization, for
// `switchboard auth status`. It never holds a token.
type AuthInfo struct {
	Server string `json:"server"`
	URL    string `json:"url"` // without userinfo and query, which may hold secrets
	// Method is how the server is authorized: "oauth" (a grant from a
	// person's consent), "client credentials" or "enterprise" (from its
	// config, nothing stored), "header" (an Authorization header in its
	// config), or "none".
	Method string `json:"method"`
	// Stored says the token file holds a grant for it.
	Stored      bool      `json:"stored"`
	ClientID    string    `json:"clientId,omitempty"`
	Scopes      []string  `json:"scopes,omitempty"`
	Expiry      time.Time `json:"expiry,omitzero"` // of the access token
	Refreshable bool      `json:"refreshable"`     // a refresh token is kept
	Obtained    time.Time `json:"obtained,omitzero"`
}

// Expired reports whether the stored access token has expired at now.
func (a *AuthInfo) Expired(now time.Time) bool {
	return !a.Expiry.IsZero() && !now.Before(a.Expiry)
}

// Authorizations reads what the token file at tokenFile holds for the
// remote servers among configs, without connecting anything.
func Authorizations(tokenFile string, configs []config.ServerConfig) ([]AuthInfo, error) {
	grants, err := oauth.NewStore(tokenFile).Grants()
	if err != nil {
		return nil, err
	}
	var out []AuthInfo
	for i := range configs {
		c := &configs[i]
		if c.URL == "" {
			continue
		}
		a := AuthInfo{Server: c.Name, URL: bareURL(c.URL), Method: "none"}
		for k := range c.Headers {
			if strings.EqualFold(k, "Authorization") {
				a.Method = "header"
			}
		}
		// A machine grant gets its token from the config each run: nothing
		// of it is stored.
		machine := false
		if o := c.OAuth; o != nil {
			switch o.Grant {
			case config.GrantClientCredentials:
				a.Method, a.ClientID, machine = "client credentials", o.ClientID, true
			case config.GrantEnterprise:
				a.Method, a.ClientID, machine = "enterprise", o.ClientID, true
			}
		}
		clientID := ""
		if c.OAuth != nil {
			clientID = c.OAuth.ClientID
		}
		if g := oauth.Newest(grants, c.URL, clientID); g != nil && !machine {
			a.Method, a.Stored = "oauth", true
			a.ClientID, a.Scopes, a.Expiry = g.ClientID, g.Scopes, g.Expiry
			a.Refreshable, a.Obtained = g.RefreshToken != "", g.Obtained
		}
		out = append(out, a)
	}
	return out, nil
}

// bareURL is u without userinfo and query, which may hold secrets.
func bareURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return p.String()
}

// ForgetAuthorization removes what the token file at tokenFile holds for
// the remote server cfg, without a host, and reports how many grants it
// removed.
func ForgetAuthorization(tokenFile string, cfg *config.ServerConfig) (int, error) {
	return oauth.NewStore(tokenFile).Delete(cfg.URL, "")
}
