// Package config is switchboard's canonical server configuration: the
// ServerConfig type every source turns into, how the native file is read,
// validated and substituted, and where config files live. It knows nothing
// about connections.
package config

import (
	"fmt"
	"time"
)

// Transport names how a server is reached.
type Transport string

const (
	// TransportAuto is a url without a type: streamable HTTP first, falling
	// back to legacy SSE when the server rejects the POST (DESIGN.md F10).
	TransportAuto  Transport = ""
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http"
	TransportSSE   Transport = "sse"
)

// Level says whether a source belongs to the user or to a project. Project
// files come with a repository someone else wrote, so they need trust.
type Level string

const (
	LevelUser    Level = "user"
	LevelProject Level = "project"
	// LevelExplicit is a file named with --config: the person chose it, so it
	// is trusted like a user-level file.
	LevelExplicit Level = "explicit"
)

// Source is where one server config came from.
type Source struct {
	Provider string `json:"provider"` // "switchboard", "Claude Code", …
	Path     string `json:"path"`
	Level    Level  `json:"level"`
	Line     int    `json:"line,omitempty"` // line where the entry starts
}

// String renders a source as "path:line".
func (s Source) String() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.Path, s.Line)
	}
	return s.Path
}

// Label names a source as a person reads it: the provider, and the level
// when it is not the user's own, like "Cursor (project)" or "Claude Code".
func (s Source) Label() string {
	if s.Level == "" || s.Level == LevelUser {
		return s.Provider
	}
	return fmt.Sprintf("%s (%s)", s.Provider, s.Level)
}

// ToolFilter keeps or drops tools by glob (internal/glob: "*" any run of
// characters, "?" one). An empty Allow list allows every tool; Deny wins
// over Allow. The names it matches are those of whoever holds it: a
// server's (ServerConfig.Tools) matches the server's own tool names,
// before naming (DESIGN.md F29), as a config does not know its exposed
// names; a view's (host.ViewFilter.Tools, `serve --tools`, a profile's
// "tools") matches exposed names, mcp__github__create_issue, as a view
// spans servers whose own names collide (F28).
type ToolFilter struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Defaults applied when a config leaves a duration unset.
const (
	// DefaultStartupTimeout bounds a server's connect + initialize. npx and
	// uvx servers download packages on first start, so it is generous.
	DefaultStartupTimeout = 30 * time.Second
	// DefaultTimeout bounds one request (a tool call) to a server.
	DefaultTimeout = 60 * time.Second
	// MaxTimeout is the largest timeout a config may ask for; larger values
	// are almost always a unit mistake (ms given as s).
	MaxTimeout = 24 * time.Hour
)

// Bounds of MaxMessageSize (DESIGN.md F24).
const (
	// DefaultMaxMessageSize is the largest message a server may send when
	// its config does not say: four times go-sdk's own 16 MiB line limit,
	// so a tool that returns a large file or image is delivered whole.
	DefaultMaxMessageSize int64 = 64 << 20
	// MinMessageSize is the smallest limit a config may set: below it the
	// handshake and a tool list no longer fit, and a smaller number is
	// almost always a unit mistake (64 meant as MiB).
	MinMessageSize int64 = 64 << 10
	// MaxMessageSizeLimit is the largest limit a config may set. The host
	// holds a message a few times over while it decodes it (the frame, the
	// decoder's copy, the decoded result), so a larger one risks the
	// host's memory rather than one call.
	MaxMessageSizeLimit int64 = 1 << 30
)

// ServerConfig is one named MCP server, in canonical form, after
// substitution. Every source adapter produces these.
type ServerConfig struct {
	Name string    `json:"name"`
	Type Transport `json:"type,omitempty"`

	// stdio
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`

	// http, sse
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// OAuth says how the host gets authorization from a remote server
	// that asks for it (DESIGN.md F40). Nil is the default: discovery and
	// dynamic registration, the authorization code flow with a person.
	OAuth *OAuth `json:"oauth,omitempty"`

	Disabled       bool          `json:"disabled,omitempty"`
	StartupTimeout time.Duration `json:"startupTimeout,omitempty"`
	Timeout        time.Duration `json:"timeout,omitempty"`
	AutoApprove    []string      `json:"autoApprove,omitempty"`
	Tools          ToolFilter    `json:"tools,omitzero"` // by the server's own tool names
	Lazy           bool          `json:"lazy,omitempty"`
	// AlwaysLoad keeps the server's tools shown to a model with their
	// schemas when an agent defers the others behind a search.
	AlwaysLoad bool `json:"alwaysLoad,omitempty"`
	// PinTools withholds a tool whose definition changed since it was
	// first seen or approved until `switchboard tools approve` accepts it
	// (DESIGN.md F66). Nil takes the top-level "pinTools" of our own
	// config (app.Load resolves it); false shows changes without
	// withholding.
	PinTools *bool `json:"pinTools,omitempty"`
	// ProtocolVersion pins the MCP version spoken with the server, for one
	// that misbehaves when asked which it speaks (DESIGN.md, "Protocol
	// eras"). Empty negotiates: server/discover first, initialize at
	// ProtocolLegacy when the server does not take it.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// PingInterval, when set, pings the server that often; a server that
	// stops answering is treated as dropped and reconnected (DESIGN.md F32).
	PingInterval time.Duration `json:"pingInterval,omitempty"`
	// MaxMessageSize is the largest message, in bytes, the host takes from
	// the server (DESIGN.md F24). A larger reply fails its request at once
	// with an error that says how large it was; a larger notification is
	// dropped and noted in the server's log. Zero means
	// DefaultMaxMessageSize.
	MaxMessageSize int64 `json:"maxMessageSize,omitempty"`

	Source Source `json:"source"`

	// WorkDir, set by discovery for a stdio server, is where it starts
	// when Cwd is empty or relative: the project when it is trusted, else
	// outside it (DESIGN.md, "Trust"). Empty leaves it to the host. A
	// change of it restarts only a server that depends on it
	// (DependsOnWorkDir), or one leaving a project no longer trusted
	// (WorkDirTrusted); another takes it at its next start.
	WorkDir string `json:"-"`
	// WorkDirTrusted says WorkDir is a project the person trusted: a
	// server running there when trust is taken back (revoked, or its
	// files changed) restarts outside it, whatever it depends on, since
	// it may load the project's code at any time.
	WorkDirTrusted bool `json:"-"`

	// Substituted holds the variables substitution put into args, env,
	// url and header values, by name, with the values they had: the host
	// masks those values wherever it prints (DESIGN.md F44), since one may
	// be a token in an argument or a url's path. Variables in command and
	// cwd are left out: they name places. Never written out.
	Substituted map[string]string `json:"-"`

	// Untrusted is set by discovery for a project-level server whose
	// project has not been trusted (DESIGN.md F6); the host lists it and never
	// starts it.
	Untrusted bool `json:"untrusted,omitempty"`
	// Blocked names the policy rule that forbids this server (DESIGN.md F7); the
	// host lists it and never starts it.
	Blocked string `json:"blocked,omitempty"`
	// DuplicateOf names another server that is this same server under
	// another name (the same Identity); the host lists it and connects
	// only the other.
	DuplicateOf string `json:"duplicateOf,omitempty"`

	// Err is set when the entry cannot be used (validation or substitution
	// failed). The host reports such a server as failed and never connects
	// it; the other servers are unaffected.
	Err error `json:"-"`
}

// OAuth is a remote server's OAuth client settings, for an authorization
// server that does not register clients dynamically, a redirect that must
// be on a fixed port, or a machine-to-machine server (DESIGN.md F40).
type OAuth struct {
	// ClientID and ClientSecret are a client registered in advance.
	// ClientSecret is a secret: it takes ${VAR} and "!command" like an env
	// value, and is masked wherever the host prints.
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// PrivateKey, for the client_credentials grant, is a PEM private key
	// (EC P-256 or P-384, or RSA) the client proves itself with instead of
	// a secret (private_key_jwt). A secret, taken like ClientSecret.
	PrivateKey string `json:"privateKey,omitempty"`
	// ClientMetadataURL is an https URL where the client's metadata
	// document is published, used as the client id by authorization
	// servers that accept such documents.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// Scopes replace the scopes the server asks for.
	Scopes []string `json:"scopes,omitempty"`
	// CallbackPort is the loopback port of the redirect (the one a
	// pre-registered client was registered with). Zero picks a free one.
	CallbackPort int `json:"callbackPort,omitempty"`
	// Grant is GrantAuthorizationCode (the default: a person consents in a
	// browser), GrantClientCredentials (a machine-to-machine server: the
	// client id and secret are the authorization, no person involved) or
	// GrantEnterprise (the person's identity provider vouches for them).
	Grant string `json:"grant,omitempty"`
	// IdentityProvider is the enterprise identity provider of
	// GrantEnterprise.
	IdentityProvider *IdentityProvider `json:"identityProvider,omitempty"`
}

// IdentityProvider is an enterprise identity provider (Enterprise-Managed
// Authorization, SEP-990): the host trades the person's ID token from it
// for an identity assertion grant (ID-JAG) to the server's authorization
// server, and that for an access token, with nobody asked.
type IdentityProvider struct {
	// Issuer is the provider's issuer url; its token endpoint is found
	// from its metadata unless TokenEndpoint names it.
	Issuer        string `json:"issuer,omitempty"`
	TokenEndpoint string `json:"tokenEndpoint,omitempty"`
	// ClientID and ClientSecret are the host's client at the provider.
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// IDToken is the person's ID token from the provider: a secret, best
	// given as "!command" (the provider's own login tool) or ${VAR}.
	IDToken string `json:"idToken,omitempty"`
}

// Secrets are the values of o that must never be printed.
func (o *OAuth) Secrets() []string {
	out := []string{o.ClientSecret, o.PrivateKey}
	if p := o.IdentityProvider; p != nil {
		out = append(out, p.ClientSecret, p.IDToken)
	}
	return out
}

// The MCP versions a config may pin. ProtocolModern is stateless: no
// initialize, server/discover and per-request metadata instead.
const (
	ProtocolModern = "2026-07-28"
	ProtocolLegacy = "2025-11-25"
)

// ProtocolVersions are every version a server may be pinned to, newest
// first: what go-sdk speaks.
var ProtocolVersions = []string{ProtocolModern, ProtocolLegacy, "2025-06-18", "2025-03-26", "2024-11-05"}

// OAuth grants a config may ask for.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	GrantEnterprise        = "enterprise"
)

// TransportKind is the transport the host will use: Type, or stdio when a
// command is given, or auto when only a url is.
func (c *ServerConfig) TransportKind() Transport {
	if c.Type != TransportAuto {
		return c.Type
	}
	if c.Command != "" {
		return TransportStdio
	}
	return TransportAuto
}

// EffectiveStartupTimeout is StartupTimeout or its default.
func (c *ServerConfig) EffectiveStartupTimeout() time.Duration {
	if c.StartupTimeout > 0 {
		return c.StartupTimeout
	}
	return DefaultStartupTimeout
}

// EffectiveTimeout is Timeout or its default.
func (c *ServerConfig) EffectiveTimeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// EffectiveMaxMessageSize is MaxMessageSize or its default.
func (c *ServerConfig) EffectiveMaxMessageSize() int64 {
	if c.MaxMessageSize > 0 {
		return c.MaxMessageSize
	}
	return DefaultMaxMessageSize
}

// Admission says whether a server may be started, and if not, the first
// reason in the one order every caller uses (the host's states, `sources`,
// `list`): what the person decided (disabled), then what protects them
// (policy, trust), then what is wrong with the entry (invalid), then
// whether another name already runs it (duplicate). An untrusted project's
// server that cannot be substituted is untrusted first: its error is not
// the person's business until they trust the project.
type Admission int

const (
	// Admitted servers may start.
	Admitted Admission = iota
	// AdmitDisabled: the config turns the server off.
	AdmitDisabled
	// AdmitBlocked: a policy rule forbids it (Blocked says which).
	AdmitBlocked
	// AdmitUntrusted: it comes from a project that is not trusted.
	AdmitUntrusted
	// AdmitInvalid: the entry cannot be used (Err says why).
	AdmitInvalid
	// AdmitDuplicate: it is the same server as DuplicateOf.
	AdmitDuplicate
)

var admissionNames = [...]string{"admitted", "disabled", "blocked", "untrusted", "invalid", "duplicate"}

func (a Admission) String() string {
	if a < 0 || int(a) >= len(admissionNames) {
		return fmt.Sprintf("Admission(%d)", int(a))
	}
	return admissionNames[a]
}

// Admission returns whether c may start and, if not, the first reason.
func (c *ServerConfig) Admission() Admission {
	switch {
	case c.Disabled:
		return AdmitDisabled
	case c.Blocked != "":
		return AdmitBlocked
	case c.Untrusted:
		return AdmitUntrusted
	case c.Err != nil:
		return AdmitInvalid
	case c.DuplicateOf != "":
		return AdmitDuplicate
	}
	return Admitted
}
