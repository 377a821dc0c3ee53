package oauthtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Browse does what a person's browser does with an authorization URL: it
// opens it, and follows the authorization server's redirect to the
// client's loopback callback. It returns an error unless the server
// redirected (302) to the request's redirect_uri and the callback
// answered 2xx, or if the redirect carried an OAuth error (after
// delivering it, as a browser would).
func (s *Server) Browse(ctx context.Context, authURL string) error {
	au, err := url.Parse(authURL)
	if err != nil {
		return fmt.Errorf("browse: %v", err)
	}
	if "http://"+au.Host != s.Issuer {
		return fmt.Errorf("browse: %s is not this authorization server's", authURL)
	}
	resp, err := s.get(ctx, authURL)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusFound {
		return fmt.Errorf("browse: authorization endpoint answered %s: %s", resp.Status, resp.body)
	}
	loc, err := au.Parse(resp.Header.Get("Location"))
	if err != nil {
		return fmt.Errorf("browse: bad redirect: %v", err)
	}
	want, err := url.Parse(au.Query().Get("redirect_uri"))
	if err != nil || loc.Scheme != want.Scheme || loc.Host != want.Host || loc.Path != want.Path {
		return fmt.Errorf("browse: redirected to %s://%s%s, not to the redirect_uri %s", loc.Scheme, loc.Host, loc.Path, au.Query().Get("redirect_uri"))
	}
	cb, err := s.get(ctx, loc.String())
	if err != nil {
		return err
	}
	if e := loc.Query().Get("error"); e != "" {
		return fmt.Errorf("browse: authorization server refused: %s: %s", e, loc.Query().Get("error_description"))
	}
	if cb.StatusCode/100 != 2 {
		return fmt.Errorf("browse: callback answered %s: %s", cb.Status, cb.body)
	}
	return nil
}

// page is a response whose body was read (and shortened for errors).
type page struct {
	*http.Response
	body string
}

// get fetches u without following redirects.
func (s *Server) get(ctx context.Context, u string) (*page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("browse: %v", err)
	}
	resp, err := s.browser.Do(req)
	if err != nil {
		return nil, fmt.Errorf("browse: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return &page{resp, strings.TrimSpace(string(b))}, nil
}
