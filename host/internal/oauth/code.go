package oauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// authorizationCode runs go-sdk's authorization code flow: discovery,
// registration, the person's consent through a loopback redirect, the
// exchange; the grant it ends with is stored.
func (h *Handler) authorizationCode(ctx context.Context, req *http.Request, resp *http.Response, consent Consent) error {
	port := 0
	if h.set.OAuth != nil {
		port = h.set.OAuth.CallbackPort
	}
	cb, err := listen(port)
	if err != nil {
		return err
	}
	defer cb.close()
	redirect := cb.redirectURL()
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			res, err := cb.await(ctx, args.URL, consent)
			if res != nil {
				h.set.Secret(res.Code)
			}
			return res, err
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{redirect},
			ClientName:              h.set.ClientName,
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
		Client:              h.set.Client,
		RequestRefreshToken: true,
		ScopeFilter:         h.scopes,
	}
	if o := h.set.OAuth; o != nil {
		if o.ClientMetadataURL != "" {
			cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
		}
		if o.ClientID != "" {
			cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: o.ClientID}
			if o.ClientSecret != "" {
				cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
			}
		}
	}
	var obtained *source
	cfg.NewTokenSource = func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
		g := Grant{
			Server: h.set.URL, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
			TokenURL: c.Endpoint.TokenURL, AuthStyle: c.Endpoint.AuthStyle, Scopes: grantedScopes(tok, c.Scopes),
			Obtained: time.Now(),
		}
		g.setToken(tok)
		h.set.Secret(g.Secrets()...)
		// A client the flow registered replaces the server's earlier ones:
		// each login registers anew, and their grants must not pile up.
		if err := h.set.Store.Replace(g, h.clientID() == ""); err != nil {
			return nil, err
		}
		obtained = &source{h: h, g: g}
		return obtained, nil
	}
	flow, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return fmt.Errorf("authorization: %w", err)
	}
	if err := flow.Authorize(ctx, req, resp); err != nil {
		return &AuthError{plainError(err)}
	}
	if obtained == nil {
		return errors.New("authorization failed: no token was obtained")
	}
	h.setSource(obtained)
	return nil
}

// scopes is the flow's scope filter: the config's scopes when it names
// some, else what the server asks for now together with what it asked
// for and granted before, so a step-up does not lose the earlier scopes,
// and a login after a step-up asks for the new ones too.
func (h *Handler) scopes(discovered []string) []string {
	if h.set.OAuth != nil && len(h.set.OAuth.Scopes) > 0 {
		return h.set.OAuth.Scopes
	}
	h.mu.Lock()
	src, _ := h.src.(*source)
	out := slices.Clone(h.wanted)
	h.mu.Unlock()
	if src != nil {
		out = union(out, src.scopes())
	}
	return union(out, discovered)
}

// remember adds scopes to those the next flow asks for.
func (h *Handler) remember(scopes []string) {
	if len(scopes) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.wanted = union(h.wanted, scopes)
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// grantedScopes are the scopes a token response names, else those asked for.
func grantedScopes(tok *oauth2.Token, asked []string) []string {
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		return splitScopes(s)
	}
	return slices.Clone(asked)
}

func splitScopes(s string) []string {
	var out []string
	for _, f := range bytes.Fields([]byte(s)) {
		out = append(out, string(f))
	}
	return out
}
