package config

import (
	"errors"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		c    ServerConfig
		want string // "" for valid
	}{
		{"stdio", ServerConfig{Name: "s", Command: "x"}, ""},
		{"stdio typed", ServerConfig{Name: "s", Type: TransportStdio, Command: "x"}, ""},
		{"auto url", ServerConfig{Name: "s", URL: "http://127.0.0.1:3000/mcp"}, ""},
		{"sse", ServerConfig{Name: "s", Type: TransportSSE, URL: "HTTPS://h/sse"}, ""},
		{"max timeouts", ServerConfig{Name: "s", Command: "x", Timeout: MaxTimeout, StartupTimeout: time.Nanosecond}, ""},
		{"headers", ServerConfig{Name: "s", URL: "https://h", Headers: map[string]string{"X-Api-Key": "k", "Authorization": "Bearer t"}}, ""},
		{"empty name", ServerConfig{Command: "x"}, `f.json:4: server name is empty`},
		{"bad type", ServerConfig{Name: "s", Type: "websocket", URL: "https://h"}, `f.json:4: server "s": field "type": unknown type "websocket" (want stdio, http or sse)`},
		{"both", ServerConfig{Name: "s", Command: "x", URL: "https://h"}, `f.json:4: server "s": field "url": both command and url are set (want exactly one)`},
		{"neither", ServerConfig{Name: "s"}, `f.json:4: server "s": neither command nor url is set (want a command for a local server or a url for a remote one)`},
		{"stdio url", ServerConfig{Name: "s", Type: TransportStdio, URL: "https://h"}, `f.json:4: server "s": field "type": type stdio needs a command, not a url`},
		{"sse command", ServerConfig{Name: "s", Type: TransportSSE, Command: "x"}, `f.json:4: server "s": field "type": type sse needs a url, not a command`},
		{"ws url", ServerConfig{Name: "s", URL: "ws://h"}, `f.json:4: server "s": field "url": url scheme "ws" is not supported (want http or https)`},
		{"relative url", ServerConfig{Name: "s", URL: "/mcp"}, `f.json:4: server "s": field "url": url has no scheme (want http:// or https://)`},
		{"no host", ServerConfig{Name: "s", URL: "http:"}, `f.json:4: server "s": field "url": url has no host`},
		{"control char", ServerConfig{Name: "s", URL: "https://h/\x7f"}, `f.json:4: server "s": field "url": url does not parse: net/url: invalid control character in URL`},
		{"negative timeout", ServerConfig{Name: "s", Command: "x", Timeout: -time.Second}, `f.json:4: server "s": field "timeout": -1s is out of range (want more than 0s and at most 24h0m0s)`},
		{"huge startup", ServerConfig{Name: "s", Command: "x", StartupTimeout: MaxTimeout + 1}, `f.json:4: server "s": field "startupTimeout": 24h0m0.000000001s is out of range (want more than 0s and at most 24h0m0s)`},
		{"message size", ServerConfig{Name: "s", Command: "x", MaxMessageSize: MaxMessageSizeLimit}, ""},
		{"tiny message size", ServerConfig{Name: "s", Command: "x", MaxMessageSize: 64}, `f.json:4: server "s": field "maxMessageSize": 64 bytes is out of range (want at least 64 KiB and at most 1 GiB)`},
		{"negative message size", ServerConfig{Name: "s", Command: "x", MaxMessageSize: -1}, `f.json:4: server "s": field "maxMessageSize": -1 bytes is out of range (want at least 64 KiB and at most 1 GiB)`},
		// internal/glob has no bad pattern: a backslash is a backslash.
		{"any glob", ServerConfig{Name: "s", Command: "x", Tools: ToolFilter{Allow: []string{"ok_*", "a\\"}}}, ""},
		{"env name", ServerConfig{Name: "s", Command: "x", Env: map[string]string{"A=B": "x"}}, `f.json:4: server "s": field "env.A=B": invalid environment variable name "A=B"`},
		{"header name", ServerConfig{Name: "s", URL: "https://h", Headers: map[string]string{"Bad Name": "x"}}, `f.json:4: server "s": field "headers.Bad Name": invalid HTTP header name "Bad Name"`},
		{"header value", ServerConfig{Name: "s", URL: "https://h", Headers: map[string]string{"X": "a\r\nInjected: 1"}}, `f.json:4: server "s": field "headers.X": value contains a line break or NUL byte`},
		{"oauth", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{ClientID: "c", ClientSecret: "x", Scopes: []string{"read"}, CallbackPort: 8976}}, ""},
		{"oauth stdio", ServerConfig{Name: "s", Command: "x", OAuth: &OAuth{}}, `f.json:4: server "s": field "oauth": oauth is for remote servers (a url), not for a command`},
		{"oauth grant", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{Grant: "password"}}, `f.json:4: server "s": field "oauth.grant": unknown grant "password" (want "authorization_code", "client_credentials" or "enterprise")`},
		{"oauth cc no secret", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{Grant: GrantClientCredentials, ClientID: "c"}}, `f.json:4: server "s": field "oauth.grant": the client_credentials grant needs a clientId and a clientSecret or privateKey`},
		{"oauth cc key", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{Grant: GrantClientCredentials, ClientID: "c", PrivateKey: "pem"}}, ""},
		{"oauth key needs cc", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{ClientID: "c", PrivateKey: "pem"}}, `f.json:4: server "s": field "oauth.privateKey": a privateKey is for "grant": "client_credentials"`},
		{"oauth secret alone", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{ClientSecret: "x"}}, `f.json:4: server "s": field "oauth.clientSecret": a clientSecret needs its clientId`},
		{"oauth cimd http", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{ClientMetadataURL: "http://h/c.json"}}, `f.json:4: server "s": field "oauth.clientMetadataUrl": want an https URL with a path, where the client's metadata document is published`},
		{"oauth scope", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{Scopes: []string{"a b"}}}, `f.json:4: server "s": field "oauth.scopes[0]": "a b" is not a scope (one word, no spaces or quotes)`},
		{"oauth enterprise", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{Grant: GrantEnterprise, ClientID: "c", IdentityProvider: &IdentityProvider{Issuer: "https://idp", ClientID: "i", IDToken: "t"}}}, ""},
		{"oauth idp over http", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{Grant: GrantEnterprise, ClientID: "c", IdentityProvider: &IdentityProvider{TokenEndpoint: "http://idp.corp/token", ClientID: "i", IDToken: "t"}}}, `f.json:4: server "s": field "oauth.identityProvider.tokenEndpoint": want an https URL (http only to this machine): the person's ID token and the client secret are sent there`},
		{"oauth idp on loopback", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{Grant: GrantEnterprise, ClientID: "c", IdentityProvider: &IdentityProvider{Issuer: "http://127.0.0.1:8080", ClientID: "i", IDToken: "t"}}}, ""},
		{"oauth enterprise no idp", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{Grant: GrantEnterprise, ClientID: "c"}}, `f.json:4: server "s": field "oauth.identityProvider": "grant": "enterprise" needs an identityProvider`},
		{"oauth idp no token", ServerConfig{Name: "s", URL: "https://h", OAuth: &OAuth{Grant: GrantEnterprise, ClientID: "c", IdentityProvider: &IdentityProvider{Issuer: "https://idp", ClientID: "i"}}}, `f.json:4: server "s": field "oauth.identityProvider": the identity provider needs the clientId the host has there and the person's idToken`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.Source = Source{Path: "f.json", Line: 4}
			err := Validate(&tt.c)
			got := ""
			if err != nil {
				got = err.Error()
				var d *Diagnostic
				if !errors.As(err, &d) {
					t.Errorf("err is %T, want *Diagnostic", err)
				}
			}
			if got != tt.want {
				t.Errorf("Validate = %s\nwant       %s", got, tt.want)
			}
		})
	}
}

func TestDiagnosticError(t *testing.T) {
	tests := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{Path: "a.json", Line: 7, Column: 18, Server: "gh", Field: "args", Message: "want an array of strings"}, `a.json:7:18: server "gh": field "args": want an array of strings`},
		{Diagnostic{Path: "a.json", Line: 7, Message: "m"}, `a.json:7: m`},
		{Diagnostic{Path: "a.json", Column: 3, Message: "m"}, `a.json: m`},
		{Diagnostic{Server: "s", Message: "m"}, `server "s": m`},
		{Diagnostic{Message: "m"}, `m`},
	}
	for _, tt := range tests {
		if got := tt.d.Error(); got != tt.want {
			t.Errorf("Error() = %s, want %s", got, tt.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{"1048576", 1 << 20, ""},
		{"64MiB", 64 << 20, ""},
		{"64 mib", 64 << 20, ""},
		{" 1.5GiB ", 3 << 29, ""},
		{"100MB", 100_000_000, ""},
		{"512kB", 512_000, ""},
		{"12B", 12, ""},
		{"64M", 0, `unknown unit "M" (want B, KiB, MiB, GiB, kB, MB or GB)`},
		{"MiB", 0, `want a number of bytes or a size like "64MiB"`},
		{"1.2.3MiB", 0, `want a number of bytes or a size like "64MiB"`},
		{"", 0, `want a number of bytes or a size like "64MiB"`},
		{"99999999999GiB", 0, "too large"},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != tt.want || msg != tt.err {
			t.Errorf("ParseSize(%q) = %d, %q; want %d, %q", tt.in, got, msg, tt.want, tt.err)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		0:               "0 B",
		1023:            "1023 B",
		64 << 10:        "64 KiB",
		64 << 20:        "64 MiB",
		100<<20 + 1:     "100.0 MiB",
		17_000_000:      "16.2 MiB",
		1 << 30:         "1 GiB",
		3 << 29:         "1.5 GiB",
		-1:              "-1 B",
		100_000_000_000: "93.1 GiB",
	} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
