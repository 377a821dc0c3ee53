package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/switchboard-mcp/switchboard/config"
)

// Enterprise-Managed Authorization (SEP-990): the person's ID token from
// their identity provider is exchanged there (RFC 8693) for an identity
// assertion grant to the server's authorization server (an ID-JAG), which
// that server trades for an access token (RFC 7523). go-sdk has the token
// exchange (oauthex.ExchangeToken); its EnterpriseHandler insists on PKCE
// metadata from the identity provider, which a token endpoint does not
// need, and authenticates the last request in the form only, so the flow
// is put together here from go-sdk's parts. The provider's own discovery
// (identityProviderTokenEndpoint) still goes through go-sdk's metadata
// reader, PKCE check included; a configured tokenEndpoint skips it.

const grantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// grantEnterprise answers a 401 of a server whose config names an
// identity provider.
func (h *Handler) grantEnterprise(ctx context.Context, req *http.Request, challenges []oauthex.Challenge) error {
	idp := h.set.OAuth.IdentityProvider
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
	idpToken := idp.TokenEndpoint
	if idpToken == "" {
		if idpToken, err = h.identityProviderTokenEndpoint(ctx, idp.Issuer); err != nil {
			return err
		}
	}
	scopes := h.set.OAuth.Scopes
	if len(scopes) == 0 {
		scopes = challengeScopes(challenges)
	}
	src := &enterpriseSource{h: h, idp: idp, idpToken: idpToken, issuer: asm.Issuer, tokenURL: asm.TokenEndpoint,
		resource: prm.Resource, scopes: scopes, style: basicUnlessOnlyPost(asm.TokenEndpointAuthMethodsSupported)}
	ts := oauth2.ReuseTokenSource(nil, src)
	if _, err := ts.Token(); err != nil {
		return err
	}
	h.setSource(&learning{ts: ts, secret: h.set.Secret})
	return nil
}

// identityProviderTokenEndpoint finds the provider's token endpoint in
// its metadata (OpenID discovery, then RFC 8414).
func (h *Handler) identityProviderTokenEndpoint(ctx context.Context, issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return "", fmt.Errorf("identity provider issuer: %w", err)
	}
	path := strings.TrimSuffix(u.Path, "/")
	why := errors.New("it names no token endpoint")
	for _, p := range []string{path + "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server" + path} {
		m := *u
		m.Path = p
		meta, err := oauthex.GetAuthServerMeta(ctx, m.String(), issuer, h.set.Client)
		switch {
		case err != nil:
			why = err // go-sdk also refuses metadata that lists no PKCE method
		case meta != nil && meta.TokenEndpoint != "":
			return meta.TokenEndpoint, nil
		}
	}
	return "", fmt.Errorf("the identity provider's metadata: %w; set identityProvider.tokenEndpoint", plainError(why))
}

// basicUnlessOnlyPost is how the client authenticates at a token
// endpoint that lists methods: HTTP Basic, the RFC 6749 default, unless
// only client_secret_post is offered.
func basicUnlessOnlyPost(methods []string) oauth2.AuthStyle {
	if slices.Contains(methods, "client_secret_post") && !slices.Contains(methods, "client_secret_basic") {
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleInHeader
}

// enterpriseSource gets each access token with a fresh ID-JAG: a grant is
// short-lived and single-use.
type enterpriseSource struct {
	h                          *Handler
	idp                        *config.IdentityProvider
	idpToken, issuer, tokenURL string
	resource                   string
	scopes                     []string
	style                      oauth2.AuthStyle
}

func (e *enterpriseSource) Token() (*oauth2.Token, error) {
	ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
	defer cancel()
	creds := &oauthex.ClientCredentials{ClientID: e.idp.ClientID}
	if e.idp.ClientSecret != "" {
		creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: e.idp.ClientSecret}
	}
	jag, err := oauthex.ExchangeToken(ctx, e.idpToken, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG,
		Audience:           e.issuer,
		Resource:           e.resource,
		Scope:              e.scopes,
		SubjectToken:       e.idp.IDToken,
		SubjectTokenType:   oauthex.TokenTypeIDToken,
	}, creds, e.h.set.Client)
	if err != nil {
		return nil, fmt.Errorf("identity provider token exchange: %w", plainError(err))
	}
	e.h.set.Secret(jag.AccessToken)
	cfg := clientcredentials.Config{
		ClientID: e.h.set.OAuth.ClientID, ClientSecret: e.h.set.OAuth.ClientSecret,
		TokenURL: e.tokenURL, Scopes: e.scopes, AuthStyle: e.style,
		// clientcredentials lets grant_type be replaced, for this.
		EndpointParams: url.Values{"grant_type": {grantJWTBearer}, "assertion": {jag.AccessToken}},
	}
	tok, err := cfg.Token(context.WithValue(ctx, oauth2.HTTPClient, e.h.set.Client))
	if err != nil {
		return nil, fmt.Errorf("authorization server JWT bearer grant: %w", plainError(err))
	}
	return tok, nil
}
