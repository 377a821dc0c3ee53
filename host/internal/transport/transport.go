// Package transport builds go-sdk transports from server configs: stdio
// children in their own process group with stderr captured line by line,
// streamable HTTP and SSE with configured headers, and the fallback from
// one to the other for a url without a type.
package transport

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/execpath"
)

// Hooks receive what a transport sees besides protocol messages. Both may be
// nil, and are called from the transport's own goroutines.
type Hooks struct {
	// Stderr gets each line the server writes to stderr.
	Stderr func(line string)
	// Skipped gets each non-JSON line dropped from a stdio server's stdout.
	Skipped func(line string)
	// Dropped gets a line for each message the transport did not pass on
	// (too large or too deep: DESIGN.md F24) saying what it was and why.
	Dropped func(what string)
	// ListenEnded, when set, is called when a subscriptions/listen request
	// of the 2026-07-28 era ends without the client ending it: its
	// stream dropped, or the server answered it. go-sdk opens the one for
	// list changes at connect and never again, so the host reconnects.
	ListenEnded func()
	// NoteLogger, when set, is the logger name of the log notifications a
	// stdio transport writes into the server's stream itself, to say in
	// order how many of the server's own it dropped (LogBurst): the host
	// records those as its own notes. It must be a name the server cannot
	// know (NewNoteLogger). Empty sends those notes to Dropped instead.
	NoteLogger string
}

// NewNoteLogger returns a Hooks.NoteLogger no server can guess.
func NewNoteLogger() string {
	return "switchboard-" + rand.Text()
}

func (h Hooks) stderr(line string) {
	if h.Stderr != nil {
		h.Stderr(line)
	}
}

func (h Hooks) skipped(line string) {
	if h.Skipped != nil {
		h.Skipped(line)
	}
}

func (h Hooks) listenEnded() {
	if h.ListenEnded != nil {
		h.ListenEnded()
	}
}

// methodListen is the 2026-07-28 request that carries notifications.
const methodListen = "subscriptions/listen"

func (h Hooks) dropped(what string) {
	if h.Dropped != nil {
		h.Dropped(what)
	}
}

// defaultEnv names the variables a stdio server inherits from the host's own
// environment (DESIGN.md F17). Anything else, secrets in particular, reaches a
// server only through its config's env.
var defaultEnv = []string{
	"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE",
	"TMPDIR", "TZ", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR",
	"XDG_STATE_HOME", "NODE_PATH", "NODE_OPTIONS", "NVM_DIR", "GOPATH", "GOROOT",
	"SYSTEMROOT", "SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
	"http_proxy", "https_proxy", "no_proxy",
	// Set by switchboard's tests to run the test binary as the demo server;
	// GORACE lets a race-built server exit without the race runtime's
	// one-second pause, which would otherwise outlast the stdin grace.
	"SWITCHBOARD_DEMO_SERVER", "GORACE",
}

// EnvStartedBy is set in every stdio server's environment to the pid of
// the switchboard that started it, whatever the config says: a
// `switchboard serve` that finds it refuses to run, so switchboard never
// runs itself as its own server, however the entry spells it.
const EnvStartedBy = "SWITCHBOARD_STARTED_BY"

// Environ returns the environment for a stdio server: the default set taken
// from lookup, then the config's env on top, then EnvStartedBy, sorted
// for reproducibility.
func Environ(cfg *config.ServerConfig, lookup func(string) (string, bool)) []string {
	env := map[string]string{}
	for _, k := range defaultEnv {
		if v, ok := lookup(k); ok {
			env[k] = v
		}
	}
	for k, v := range cfg.Env {
		env[k] = v
	}
	env[EnvStartedBy] = strconv.Itoa(os.Getpid())
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// NewStdio prepares a stdio transport for cfg. The process starts on
// Connect. dir is used when cfg has no cwd (the project directory: a server
// started in / finds nothing).
func NewStdio(cfg *config.ServerConfig, dir string, hooks Hooks) *Stdio {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = Environ(cfg, os.LookupEnv)
	cmd.Dir = execpath.WorkDir(cfg.Cwd, dir)
	// The program is found the one way the policy finds it (execpath): a
	// config's own PATH first, as it would be in the server's shell, then
	// the host's. A bare name found nowhere does not start, whatever
	// os/exec's own lookup would have found.
	if p, err := execpath.Find(cfg.Command, cmd.Dir, execpath.SearchPaths(cfg.Env, os.Getenv("PATH"))...); err == nil {
		cmd.Path, cmd.Err = p, nil
	} else if !strings.ContainsRune(cfg.Command, '/') && !strings.ContainsRune(cfg.Command, filepath.Separator) {
		cmd.Err = &exec.Error{Name: cfg.Command, Err: exec.ErrNotFound}
	}
	return &Stdio{cmd: cmd, hooks: hooks, limit: cfg.EffectiveMaxMessageSize(), exited: make(chan struct{})}
}

// NewHTTP returns the transport for an http or sse config. Its responses
// are held to the config's maxMessageSize and to MaxMessageDepth (limitRoundTripper);
// go-sdk's own event limit is set above them, so it never ends the
// session first. oauth, when not nil, authorizes it (DESIGN.md F40):
// go-sdk's streamable transport takes it as its OAuthHandler, and SSE
// requests get it from the HTTP client.
func NewHTTP(cfg *config.ServerConfig, kind config.Transport, hooks Hooks, oauth auth.OAuthHandler) mcp.Transport {
	limit := cfg.EffectiveMaxMessageSize()
	headers := newHeaderRoundTripper(cfg)
	var next http.RoundTripper = headers
	if kind == config.TransportSSE && oauth != nil {
		next = &oauthRoundTripper{next: next, handler: oauth, origin: headers.origin}
	}
	client := &http.Client{Transport: &limitRoundTripper{next: next, limit: limit, hooks: hooks, calls: &calls{}}, CheckRedirect: credentialRedirect(headers.origin)}
	if kind == config.TransportSSE {
		return &sseTransport{inner: &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxEventSize: int(limit) + sseSlack}}
	}
	return &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxEventSize: int(limit) + sseSlack, OAuthHandler: oauth}
}

// NewProbeClient is the HTTP client of a remote server without its
// authorization: its headers and limits, for asking it how it wants to be
// authorized.
func NewProbeClient(cfg *config.ServerConfig) *http.Client {
	headers := newHeaderRoundTripper(cfg)
	return &http.Client{Transport: &limitRoundTripper{
		next:  headers,
		limit: cfg.EffectiveMaxMessageSize(), calls: &calls{},
	}, CheckRedirect: credentialRedirect(headers.origin)}
}

// NewAuthClient is the HTTP client for a remote server's requests to
// authorization servers (metadata, registration, tokens), each bounded,
// with no server's headers. It never follows a redirect from https to
// http, nor a POST (a token request, with its secrets) to another host.
//
// Where the server itself is on the public internet, none of those
// requests may reach a private, loopback or link-local address (a cloud's
// metadata service, the office network): the address is checked where
// the connection is made, after the name is resolved, so a name that
// resolves to 10.x or 169.254.x is refused as its literal address is. A
// server the person configured on a private address or on loopback keeps
// the shared transport: its authorization server is likely beside it.
func NewAuthClient(serverURL string) *http.Client {
	rt := http.RoundTripper(baseTransport)
	if u, err := url.Parse(serverURL); err == nil && publicHost(u.Hostname()) {
		rt = publicOnlyTransport
	}
	return &http.Client{Transport: rt, Timeout: authTimeout, CheckRedirect: authRedirect}
}

// publicOnlyTransport is the shared transport's settings with a dialer
// that connects to public addresses only, and to the proxy the
// environment names, which then makes the connection.
var publicOnlyTransport = publicOnly(http.ProxyFromEnvironment)

// publicOnly is the shared transport's settings for public servers'
// authorization, with proxyOf as its proxy.
func publicOnly(proxyOf func(*http.Request) (*url.URL, error)) *http.Transport {
	t := baseTransport.Clone()
	guarded := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second, Control: refusePrivate}
	plain := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if isProxy(proxyOf, addr) {
			return plain.DialContext(ctx, network, addr)
		}
		return guarded.DialContext(ctx, network, addr)
	}
	t.Proxy = publicThroughProxy(proxyOf)
	return t
}

// publicThroughProxy is the environment's proxy for req, refusing one
// whose target is not public: the proxy makes that connection, where the
// dialer's check never sees it, so the address is judged here (a name by
// what it resolves to here; one that does not resolve here is the
// proxy's to resolve).
func publicThroughProxy(proxyOf func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(req *http.Request) (*url.URL, error) {
		proxy, err := proxyOf(req)
		if err != nil || proxy == nil {
			return proxy, err
		}
		return judgedProxy(req, proxy)
	}
}

func judgedProxy(req *http.Request, proxy *url.URL) (*url.URL, error) {
	host := req.URL.Hostname()
	if !publicHost(host) {
		return nil, privateRefusal(host)
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return proxy, nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(req.Context(), "ip", host)
	if err != nil {
		return proxy, nil
	}
	for _, a := range addrs {
		if !publicHost(a.Unmap().String()) {
			return nil, privateRefusal(host + " (" + a.String() + ")")
		}
	}
	return proxy, nil
}

func privateRefusal(host string) error {
	return fmt.Errorf("refusing to connect to %s: a public server's authorization may not reach a private, loopback or link-local address", host)
}

// refusePrivate is a dialer's Control: it runs with the address the name
// resolved to, just before the connection is made.
func refusePrivate(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if !publicHost(host) {
		return privateRefusal(host)
	}
	return nil
}

// isProxy reports whether addr is the proxy proxyOf names for http or
// https.
func isProxy(proxyOf func(*http.Request) (*url.URL, error), addr string) bool {
	for _, scheme := range []string{"http", "https"} {
		p, err := proxyOf(&http.Request{URL: &url.URL{Scheme: scheme, Host: "example.com"}})
		if err != nil || p == nil {
			continue
		}
		port := p.Port()
		if port == "" {
			port = map[string]string{"https": "443", "socks5": "1080"}[p.Scheme]
			if port == "" {
				port = "80"
			}
		}
		if strings.EqualFold(net.JoinHostPort(p.Hostname(), port), addr) {
			return true
		}
	}
	return false
}

// publicHost reports whether host is a name, or an address that is not
// loopback, private, link-local, multicast or unspecified.
func publicHost(host string) bool {
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host != "localhost" && !strings.HasSuffix(host, ".localhost")
	}
	ip = ip.Unmap()
	return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || isSharedOrReserved(ip))
}

// isSharedOrReserved is the carrier-grade NAT range (100.64.0.0/10) and
// the 0.0.0.0/8 "this network" block, which netip does not name.
func isSharedOrReserved(ip netip.Addr) bool {
	return netip.MustParsePrefix("100.64.0.0/10").Contains(ip) || netip.MustParsePrefix("0.0.0.0/8").Contains(ip)
}

func authRedirect(req *http.Request, via []*http.Request) error {
	prev := via[len(via)-1]
	switch {
	case len(via) >= 5:
		return errors.New("too many redirects")
	case prev.URL.Scheme == "https" && req.URL.Scheme != "https":
		return fmt.Errorf("refusing a redirect from https to %s", req.URL.Scheme)
	case req.Method != http.MethodGet && req.URL.Host != via[0].URL.Host:
		return errors.New("refusing to send a token request to another host")
	}
	return nil
}
