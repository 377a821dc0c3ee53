package transport

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// oauthRoundTripper gives a legacy SSE server what go-sdk's streamable
// transport does itself (its SSE transport has no OAuth handler): every
// request carries the current access token, fetched fresh per request so
// a renewal reaches the next one, and a 401 or 403 goes to the handler's
// Authorize and the request is sent once more (DESIGN.md F40).
//
// The token goes only to the server's own origin (scheme, host and
// port: origin.go): a redirect, or a message endpoint the SSE stream
// names, elsewhere gets none.
type oauthRoundTripper struct {
	next    http.RoundTripper
	handler auth.OAuthHandler
	origin  string // the server's url's origin
}

func (rt *oauthRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.send(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return resp, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return resp, nil // cannot be sent again
	}
	if err := rt.handler.Authorize(req.Context(), req, resp); err != nil {
		return nil, err
	}
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		if again.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	return rt.send(again)
}

// send sends req with the current token, if there is one.
func (rt *oauthRoundTripper) send(req *http.Request) (*http.Response, error) {
	if !sameOrigin(req, rt.origin) {
		return rt.next.RoundTrip(req)
	}
	ts, err := rt.handler.TokenSource(req.Context())
	if err != nil {
		return nil, err
	}
	if ts != nil {
		tok, err := ts.Token()
		if err != nil {
			return nil, err
		}
		if tok != nil && tok.AccessToken != "" {
			req = req.Clone(req.Context())
			req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
	}
	return rt.next.RoundTrip(req)
}
