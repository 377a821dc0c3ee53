package transport

import (
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

// HTTP client limits. There is no overall request timeout: the SSE streams
// are long-lived, and each request is bounded by its context instead.
const (
	dialTimeout         = 10 * time.Second
	tlsHandshakeTimeout = 10 * time.Second
	idleConnTimeout     = 90 * time.Second
	// authTimeout bounds one request to an authorization server.
	authTimeout = 30 * time.Second
)

// baseTransport is shared by every server so connections to one host are
// pooled and idle ones closed in one place.
var baseTransport = &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
	TLSHandshakeTimeout:   tlsHandshakeTimeout,
	IdleConnTimeout:       idleConnTimeout,
	MaxIdleConnsPerHost:   16,
	ExpectContinueTimeout: time.Second,
	ForceAttemptHTTP2:     true,
}

// CloseIdleConnections drops pooled connections; hosts call it on Close so
// no keep-alive connection outlives them.
func CloseIdleConnections() { baseTransport.CloseIdleConnections() }

// headerRoundTripper adds a config's headers to the requests that go to
// the server's own origin, and to no other (origin.go).
type headerRoundTripper struct {
	headers map[string]string
	origin  string
	next    http.RoundTripper
	// firstPOST is the status of the first POST answered (the initialize
	// request), used to decide the streamable-to-SSE fallback.
	firstPOST atomic.Int32
}

func (rt *headerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(rt.headers) > 0 && sameOrigin(req, rt.origin) {
		req = req.Clone(req.Context())
		for k, v := range rt.headers {
			req.Header.Set(k, v)
		}
	}
	if _, ok := req.Context().Value(traceKey{}).([2]string); ok {
		if len(rt.headers) == 0 || !sameOrigin(req, rt.origin) {
			req = req.Clone(req.Context())
		}
		addTraceHeaders(req.Context(), req.Header)
	}
	resp, err := rt.next.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost {
		rt.firstPOST.CompareAndSwap(0, int32(resp.StatusCode))
	}
	return resp, err
}

func newHeaderRoundTripper(cfg *config.ServerConfig) *headerRoundTripper {
	return &headerRoundTripper{headers: cfg.Headers, origin: originOf(cfg.URL), next: baseTransport}
}

// Auto is the transport for a url without a type: streamable HTTP, whose
// failure FallBack judges.
type Auto struct {
	Streamable mcp.Transport
	rt         *headerRoundTripper
}

// NewAuto prepares the streamable half of the url-without-type fallback,
// held to the limits as NewHTTP's transports are.
func NewAuto(cfg *config.ServerConfig, hooks Hooks, oauth auth.OAuthHandler) *Auto {
	rt := newHeaderRoundTripper(cfg)
	limit := cfg.EffectiveMaxMessageSize()
	client := &http.Client{Transport: &limitRoundTripper{next: rt, limit: limit, hooks: hooks, calls: &calls{}}, CheckRedirect: credentialRedirect(rt.origin)}
	return &Auto{
		Streamable: &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxEventSize: int(limit) + sseSlack, OAuthHandler: oauth},
		rt:         rt,
	}
}

// FallBack reports whether a failed streamable connect should be retried
// over SSE: the spec's backwards-compatibility rule is that an old server
// answers the initialize POST with 400, 404 or 405.
func (a *Auto) FallBack() bool {
	switch a.rt.firstPOST.Load() {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		return true
	}
	return false
}
