package oauth

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// grantClientCredentials obtains a grant with the config's client id and
// secret alone (go-sdk's extauth): a machine-to-machine server, no person.
func (h *Handler) grantClientCredentials(ctx context.Context, req *http.Request, resp *http.Response) error {
	if h.cc == nil {
		cc, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{
				ClientID:         h.set.OAuth.ClientID,
				ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: h.set.OAuth.ClientSecret},
			},
			HTTPClient: h.set.Client,
		})
		if err != nil {
			return err
		}
		h.cc = cc
	}
	if err := h.cc.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("client credentials grant: %w", plainError(err))
	}
	ts, err := h.cc.TokenSource(ctx)
	if err != nil {
		return err
	}
	h.setSource(&learning{ts: ts, secret: h.set.Secret})
	return nil
}

// learning passes a source's tokens on, telling the redactor each new one.
type learning struct {
	ts     oauth2.TokenSource
	secret func(...string)
	mu     sync.Mutex
	last   string
}

func (l *learning) Token() (*oauth2.Token, error) {
	t, err := l.ts.Token()
	if err != nil || t == nil {
		return t, err
	}
	l.mu.Lock()
	if t.AccessToken != l.last {
		l.last = t.AccessToken
		l.secret(t.AccessToken, t.RefreshToken)
	}
	l.mu.Unlock()
	return t, nil
}
