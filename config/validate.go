package config

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/clip"
	"github.com/switchboard-mcp/switchboard/internal/httpsyntax"
)

// Validate checks one server config after substitution (DESIGN.md F4): a
// non-empty name; exactly one of command or url; a known type that agrees
// with them; an http or https url with a host; timeouts in (0, MaxTimeout];
// a message size limit in [MinMessageSize, MaxMessageSizeLimit] (or zero);
// env and header names that can be sent.
//
// The error is a *Diagnostic naming the field, positioned at c.Source (the
// native parser refines it to the field's own line and column). Messages
// never repeat the url or header values: after substitution they may hold
// secrets.
func Validate(c *ServerConfig) error {
	fail := func(field, format string, args ...any) error {
		return &Diagnostic{Path: c.Source.Path, Line: c.Source.Line, Server: c.Name, Field: field, Message: fmt.Sprintf(format, args...)}
	}
	if c.Name == "" {
		return fail("", "server name is empty")
	}
	switch c.Type {
	case TransportAuto, TransportStdio, TransportHTTP, TransportSSE:
	default:
		return fail("type", "unknown type %q (want stdio, http or sse)", clip.Text(string(c.Type)))
	}
	if c.Disabled && c.Command == "" && c.URL == "" && c.Type == TransportAuto {
		// {"disabled": true} alone claims a name: it turns off a server of
		// that name defined in another tool's config (DESIGN.md F2).
		return nil
	}
	switch {
	case c.Command != "" && c.URL != "":
		return fail("url", "both command and url are set (want exactly one)")
	case c.Command == "" && c.URL == "":
		return fail("", "neither command nor url is set (want a command for a local server or a url for a remote one)")
	case c.Type == TransportStdio && c.Command == "":
		return fail("type", "type stdio needs a command, not a url")
	case (c.Type == TransportHTTP || c.Type == TransportSSE) && c.URL == "":
		return fail("type", "type %s needs a url, not a command", c.Type)
	}
	if c.URL != "" {
		if msg := checkURL(c.URL); msg != "" {
			return fail("url", "%s", msg)
		}
	}
	for _, t := range []struct {
		field string
		d     time.Duration
	}{{"startupTimeout", c.StartupTimeout}, {"timeout", c.Timeout}, {"pingInterval", c.PingInterval}} {
		// Zero means the default; a config cannot ask for zero.
		if t.d < 0 || t.d > MaxTimeout {
			return fail(t.field, "%s is out of range (want more than 0s and at most %s)", t.d, MaxTimeout)
		}
	}
	if n := c.MaxMessageSize; n != 0 && (n < MinMessageSize || n > MaxMessageSizeLimit) {
		return fail("maxMessageSize", "%d bytes is out of range (want at least %s and at most %s)", n, FormatSize(MinMessageSize), FormatSize(MaxMessageSizeLimit))
	}
	if v := c.ProtocolVersion; v != "" && !slices.Contains(ProtocolVersions, v) {
		return fail("protocolVersion", "unknown version %q (want one of %s)", clip.Text(v), strings.Join(ProtocolVersions, ", "))
	}
	if v := c.ProtocolVersion; v == ProtocolModern && c.TransportKind() == TransportSSE {
		return fail("protocolVersion", "%s is not spoken over legacy SSE", v)
	}
	if field, msg := checkOAuth(c); msg != "" {
		return fail(field, "%s", msg)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fail("env."+k, "invalid environment variable name %q", clip.Text(k))
		}
		if strings.ContainsRune(c.Env[k], 0) {
			return fail("env."+k, "value contains a NUL byte")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
		if !IsToken(k) {
			return fail("headers."+k, "invalid HTTP header name %q", clip.Text(k))
		}
		if strings.ContainsAny(c.Headers[k], "\r\n\x00") {
			return fail("headers."+k, "value contains a line break or NUL byte")
		}
	}
	return nil
}

// checkOAuth returns the field of c.OAuth that is wrong and why, or "".
// It never quotes the client secret.
func checkOAuth(c *ServerConfig) (field, msg string) {
	o := c.OAuth
	if o == nil {
		return "", ""
	}
	switch {
	case c.URL == "":
		return "oauth", "oauth is for remote servers (a url), not for a command"
	case o.Grant != "" && o.Grant != GrantAuthorizationCode && o.Grant != GrantClientCredentials && o.Grant != GrantEnterprise:
		return "oauth.grant", fmt.Sprintf("unknown grant %q (want %q, %q or %q)", clip.Text(o.Grant), GrantAuthorizationCode, GrantClientCredentials, GrantEnterprise)
	case o.Grant == GrantEnterprise && o.ClientID == "":
		return "oauth.clientId", `"grant": "enterprise" needs the clientId registered at the server's authorization server`
	case o.Grant == GrantEnterprise && o.IdentityProvider == nil:
		return "oauth.identityProvider", `"grant": "enterprise" needs an identityProvider`
	case o.IdentityProvider != nil && o.Grant != GrantEnterprise:
		return "oauth.identityProvider", `an identityProvider is for "grant": "enterprise"`
	case o.IdentityProvider != nil && o.IdentityProvider.Issuer == "" && o.IdentityProvider.TokenEndpoint == "":
		return "oauth.identityProvider", "the identity provider needs an issuer or a tokenEndpoint"
	case o.IdentityProvider != nil && (o.IdentityProvider.ClientID == "" || o.IdentityProvider.IDToken == ""):
		return "oauth.identityProvider", "the identity provider needs the clientId the host has there and the person's idToken"
	case o.Grant == GrantClientCredentials && (o.ClientID == "" || o.ClientSecret == "" && o.PrivateKey == ""):
		return "oauth.grant", "the client_credentials grant needs a clientId and a clientSecret or privateKey"
	case o.ClientSecret != "" && o.ClientID == "":
		return "oauth.clientSecret", "a clientSecret needs its clientId"
	case o.PrivateKey != "" && o.Grant != GrantClientCredentials:
		return "oauth.privateKey", `a privateKey is for "grant": "client_credentials"`
	case o.PrivateKey != "" && o.ClientSecret != "":
		return "oauth.privateKey", "give a clientSecret or a privateKey, not both"
	case strings.ContainsAny(o.ClientID, "\r\n\x00"):
		return "oauth.clientId", "value contains a line break or NUL byte"
	}
	if p := o.IdentityProvider; p != nil {
		for _, f := range []struct{ field, url string }{{"oauth.identityProvider.issuer", p.Issuer}, {"oauth.identityProvider.tokenEndpoint", p.TokenEndpoint}} {
			if f.url != "" && !privateURL(f.url) {
				return f.field, "want an https URL (http only to this machine): the person's ID token and the client secret are sent there"
			}
		}
	}
	if o.ClientMetadataURL != "" {
		u, err := url.Parse(o.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			return "oauth.clientMetadataUrl", "want an https URL with a path, where the client's metadata document is published"
		}
	}
	for i, sc := range o.Scopes {
		if sc == "" || strings.ContainsAny(sc, " \t\r\n\"\\\x00") {
			return fmt.Sprintf("oauth.scopes[%d]", i), fmt.Sprintf("%q is not a scope (one word, no spaces or quotes)", clip.Text(sc))
		}
	}
	return "", ""
}

// checkURL returns what is wrong with a remote server's url, or "". It does
// not quote the url.
func checkURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		// url.Error quotes the url; keep only the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Sprintf("url does not parse: %v", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		if u.Scheme == "" {
			return "url has no scheme (want http:// or https://)"
		}
		return fmt.Sprintf("url scheme %q is not supported (want http or https)", clip.Text(u.Scheme))
	case u.Host == "":
		return "url has no host"
	}
	return ""
}

// IsToken reports whether s is an RFC 9110 token: what an HTTP field name
// or an auth scheme ("Bearer") must be.
func IsToken(s string) bool { return httpsyntax.IsToken(s) }

// privateURL reports whether what is sent to u stays private on the way:
// https, or plain http to this machine's loopback.
func privateURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return false
	}
	if p.Scheme == "https" {
		return true
	}
	host := p.Hostname()
	ip := net.ParseIP(host)
	return p.Scheme == "http" && (host == "localhost" || ip != nil && ip.IsLoopback())
}
