package source

import (
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
)

// NativeName is the Source.Provider of configs read from switchboard's
// own files.
const NativeName = "switchboard"

// Native is switchboard's own format, documented in README.md ("Config"):
// the mcpServers map Claude Desktop introduced, with every field
// switchboard has, in a JSONC file (comments and trailing commas allowed,
// as in VS Code's mcp.json). Its files come first in precedence (DESIGN.md, "Sources").
var Native = &Provider{
	Name: NativeName,
	ID:   "switchboard",
	Locations: func(env Env) []Location {
		var locs []Location
		if env.ProjectDir != "" {
			locs = append(locs, Location{Path: config.ProjectConfigPath(env.ProjectDir), Level: config.LevelProject})
		}
		if dir := env.configHome(); dir != "" {
			locs = append(locs, Location{Path: filepath.Join(dir, "switchboard", "mcp.json"), Level: config.LevelUser})
		}
		return locs
	},
	Parse: func(loc Location, data []byte, _ Env) ([]Entry, []*config.Diagnostic, error) {
		return parseNative(loc, data)
	},
	Sniff: func(path string, _ []byte) bool {
		return nameIs(path, "/switchboard/mcp.json", "/.switchboard/mcp.json")
	},
}

// ParseNative reads switchboard's native config file:
//
//	{"mcpServers": {"name": {"command": "…", "args": [], "env": {}, …}}}
//
// It returns the servers in the file's key order, each with its Source (the
// line of its key) and, unless disabled, substituted (see config.Substitute)
// and validated (see config.Validate), as discovery does. A server that cannot be used has Err set to a
// *config.Diagnostic naming the line, column and field; the others are
// unaffected. Unknown fields are ignored, and null counts as absent. A
// name defined twice keeps both entries, the second one with an Err.
// Warnings are fields ignored for a wrong type or value (a timeout).
//
// err is only for whole-file problems (bad JSONC, a top level or
// mcpServers that is not an object) and is then a *config.Diagnostic. An
// empty file or one without mcpServers has no servers and no error. A nil
// lookup means os.LookupEnv.
func ParseNative(path string, data []byte, level config.Level, lookup config.LookupFunc) (servers []config.ServerConfig, warnings []*config.Diagnostic, err error) {
	entries, warnings, err := parseNative(Location{Path: path, Level: level}, data)
	if err != nil {
		return nil, nil, err
	}
	for i := range entries {
		en := &entries[i]
		c := &en.Config
		if c.Err == nil && !c.Disabled {
			if err := en.Substitute(lookup); err != nil {
				c.Err = err
			} else if err := en.Locate(config.Validate(c)); err != nil {
				c.Err = err
			}
		}
		servers = append(servers, *c)
	}
	return servers, warnings, nil
}

func parseNative(loc Location, data []byte) ([]Entry, []*config.Diagnostic, error) {
	d, err := parseObject(loc, data, true)
	if err != nil || d == nil {
		return nil, nil, err
	}
	dec := newDecoder(d, NativeName, loc)
	obj, err := dec.object(d.Root, "mcpServers", "an object of server configs by name")
	if err != nil {
		return nil, nil, err
	}
	return dec.servers(obj, decodeNative), dec.warnings, nil
}

func decodeNative(e *entry, v *doc.Value) bool {
	c := e.c
	enabled, disabled := true, false
	for _, m := range v.Members {
		val := m.Val
		if val.Kind == doc.Null {
			continue
		}
		if e.canonical(m.Key, val) {
			continue
		}
		switch m.Key {
		case "type":
			c.Type = config.Transport(e.str(val, m.Key))
		case "enabled":
			enabled = e.boolean(val, m.Key, enabled)
		case "disabled":
			disabled = e.boolean(val, m.Key, disabled)
		case "startupTimeout":
			c.StartupTimeout = e.durationText(val, m.Key)
		case "timeout":
			c.Timeout = e.durationText(val, m.Key)
		case "protocolVersion":
			c.ProtocolVersion = e.str(val, m.Key)
		case "pingInterval":
			c.PingInterval = e.durationText(val, m.Key)
		case "maxMessageSize":
			c.MaxMessageSize = e.size(val, m.Key)
		case "autoApprove":
			c.AutoApprove = e.strList(val, m.Key, false)
		case "tools":
			c.Tools = toolFilter(e, m.Key, val)
		case "lazy":
			c.Lazy = e.boolean(val, m.Key, c.Lazy)
		case "alwaysLoad":
			c.AlwaysLoad = e.boolean(val, m.Key, c.AlwaysLoad)
		case "pinTools":
			pin := e.boolean(val, m.Key, false)
			if val.Kind == doc.Bool {
				c.PinTools = &pin
			}
		case "oauth":
			c.OAuth = oauthSettings(e, m.Key, val)
		}
	}
	c.Disabled = disabled || !enabled
	return true
}

func toolFilter(e *entry, field string, v *doc.Value) config.ToolFilter {
	e.at(field, v)
	if v.Kind != doc.Object {
		e.wrong(v, field, "an object with allow and deny lists", true)
		return config.ToolFilter{}
	}
	var f config.ToolFilter
	for _, m := range v.Members {
		if m.Val.Kind == doc.Null {
			continue
		}
		switch m.Key {
		case "allow":
			f.Allow = e.strList(m.Val, field+".allow", true)
		case "deny":
			f.Deny = e.strList(m.Val, field+".deny", true)
		}
	}
	return f
}

// oauthSettings reads the oauth object. Every field decides whom the host
// authenticates as, so a wrong type fails the server.
func oauthSettings(e *entry, field string, v *doc.Value) *config.OAuth {
	e.at(field, v)
	if v.Kind != doc.Object {
		e.wrong(v, field, "an object of OAuth client settings", true)
		return nil
	}
	o := &config.OAuth{}
	for _, m := range v.Members {
		if m.Val.Kind == doc.Null {
			continue
		}
		f := field + "." + m.Key
		switch m.Key {
		case "clientId":
			o.ClientID = e.str(m.Val, f)
		case "clientSecret":
			o.ClientSecret = e.str(m.Val, f)
		case "privateKey":
			o.PrivateKey = e.str(m.Val, f)
		case "clientMetadataUrl":
			o.ClientMetadataURL = e.str(m.Val, f)
		case "scopes":
			o.Scopes = e.strList(m.Val, f, true)
		case "callbackPort":
			o.CallbackPort = e.port(m.Val, f)
		case "grant":
			o.Grant = e.str(m.Val, f)
		case "identityProvider":
			o.IdentityProvider = identityProvider(e, f, m.Val)
		}
	}
	return o
}

func identityProvider(e *entry, field string, v *doc.Value) *config.IdentityProvider {
	e.at(field, v)
	if v.Kind != doc.Object {
		e.wrong(v, field, "an object naming the identity provider", true)
		return nil
	}
	p := &config.IdentityProvider{}
	for _, m := range v.Members {
		if m.Val.Kind == doc.Null {
			continue
		}
		f := field + "." + m.Key
		switch m.Key {
		case "issuer":
			p.Issuer = e.str(m.Val, f)
		case "tokenEndpoint":
			p.TokenEndpoint = e.str(m.Val, f)
		case "clientId":
			p.ClientID = e.str(m.Val, f)
		case "clientSecret":
			p.ClientSecret = e.str(m.Val, f)
		case "idToken":
			p.IDToken = e.str(m.Val, f)
		}
	}
	return p
}

// Profile is a named view in switchboard's own config file (the top-level
// "profiles" object): the servers it shows and the tools, by globs on
// their exposed names as --tools (config.ToolFilter), for `switchboard
// serve --profile NAME`.
type Profile struct {
	Servers []string          `json:"servers,omitempty"`
	Tools   config.ToolFilter `json:"tools,omitzero"`
}

// ParseProfiles reads the profiles of one of our config files:
//
//	{"profiles": {"work": {"servers": ["github", "linear"], "tools": {"deny": ["*delete*"]}}}}
//
// A file without profiles has none. A profile that is not an object, or
// a field of the wrong type, is an error naming the file, line and field.
func ParseProfiles(path string, data []byte) (map[string]Profile, error) {
	d, err := parseObject(Location{Path: path}, data, true)
	if err != nil || d == nil {
		return nil, err
	}
	obj := d.Root.Member("profiles")
	if doc.Nullish(obj) {
		return nil, nil
	}
	if obj.Kind != doc.Object {
		return nil, d.Diag(obj.Off, "", "profiles", "want an object of profiles by name, got "+obj.Kind.String())
	}
	out := map[string]Profile{}
	for _, m := range obj.Members {
		v := m.Val
		if v.Kind != doc.Object {
			return nil, d.Diag(v.Off, "", "profiles."+m.Key, "want an object with servers and tools, got "+v.Kind.String())
		}
		var p Profile
		for _, f := range v.Members {
			field := "profiles." + m.Key + "." + f.Key
			switch f.Key {
			case "servers":
				list, err := stringList(d, f.Val, field)
				if err != nil {
					return nil, err
				}
				p.Servers = list
			case "tools":
				if f.Val.Kind != doc.Object {
					return nil, d.Diag(f.Val.Off, "", field, "want an object with allow and deny lists, got "+f.Val.Kind.String())
				}
				for _, g := range f.Val.Members {
					list, err := stringList(d, g.Val, field+"."+g.Key)
					if err != nil {
						return nil, err
					}
					switch g.Key {
					case "allow":
						p.Tools.Allow = list
					case "deny":
						p.Tools.Deny = list
					}
				}
			}
		}
		if _, dup := out[m.Key]; !dup {
			out[m.Key] = p
		}
	}
	return out, nil
}

func stringList(d *doc.Doc, v *doc.Value, field string) ([]string, error) {
	if v.Kind != doc.Array {
		return nil, d.Diag(v.Off, "", field, "want an array of strings, got "+v.Kind.String())
	}
	var out []string
	for _, el := range v.Elems {
		if el.Kind != doc.String {
			return nil, d.Diag(el.Off, "", field, "want an array of strings, got a "+el.Kind.String()+" in it")
		}
		out = append(out, el.Str)
	}
	return out, nil
}

// ParsePinTools reads the top-level "pinTools" of one of our config files:
//
//	{"pinTools": true, "mcpServers": {…}}
//
// nil when the file does not say. It covers every server of every source
// that does not say for itself (DESIGN.md F66). A value that is not true
// or false is an error naming the file and line: a safety setting is not
// guessed. A file that does not parse says nothing here: it is its
// source's error, reported with it, and a reload keeps the last good
// config while it lasts.
func ParsePinTools(path string, data []byte) (*bool, error) {
	d, err := parseObject(Location{Path: path}, data, true)
	if err != nil || d == nil {
		return nil, nil
	}
	v := d.Root.Member("pinTools")
	if doc.Nullish(v) {
		return nil, nil
	}
	if v.Kind != doc.Bool {
		return nil, d.Diag(v.Off, "", "pinTools", "want true or false, got "+v.Kind.String())
	}
	pin := v.Bool
	return &pin, nil
}
