package transport

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Credentials from a config (its headers, an OAuth token) belong to the
// exact origin of the server's url: scheme, host and port. A redirect,
// or an SSE endpoint event, that names another origin gets none of them
// (issue 22, item 4). Go's client keeps Authorization across a redirect
// to the same host on another port, and knows nothing of our headers.

// origin is u's scheme, host and port, lower-cased, the port made
// explicit: https://Example.com and https://example.com:443 are one.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// originOf is the origin of a configured url; "" when it does not parse,
// which matches no request.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return origin(u)
}

// sameOrigin reports whether req goes to the origin o.
func sameOrigin(req *http.Request, o string) bool {
	return o != "" && origin(req.URL) == o
}

// maxRedirects bounds the redirects one request follows, as net/http's
// default does.
const maxRedirects = 10

// credentialRedirect is the CheckRedirect of a server's HTTP client: a
// redirect away from the server's origin loses the Authorization header
// go-sdk set (an OAuth token), and one from https to http is refused.
func credentialRedirect(serverOrigin string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return errors.New("too many redirects")
		}
		if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("refusing a redirect from https to %s", req.URL.Scheme)
		}
		if !sameOrigin(req, serverOrigin) {
			req.Header.Del("Authorization")
			req.Header.Del("Cookie")
		}
		return nil
	}
}
