package cli

import (
	"fmt"
	"net"
	"strings"

	"github.com/spf13/pflag"

	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/gateway/resource"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// authFlags make serve --http an OAuth protected resource (DESIGN.md
// F65). The introspection secret comes from a file or the environment,
// never a flag: every user of the machine reads the process list.
type authFlags struct {
	AuthIssuers      []string
	Resource         string
	AuthClientID     string
	AuthClientSecret string // --auth-client-secret-file's
}

// envClientSecret holds the introspection client's secret when no file
// is given.
const envClientSecret = "SWITCHBOARD_AUTH_CLIENT_SECRET"

func (o *authFlags) add(fl *pflag.FlagSet) {
	fl.StringArrayVar(&o.AuthIssuers, "auth-issuer", nil, "with --http, accept OAuth access tokens from the authorization server with this issuer `URL` (repeatable)")
	fl.StringVar(&o.Resource, "resource", "", "with --auth-issuer, this gateway's resource `URL`, which tokens must name in aud (default http://ADDR/mcp)")
	fl.StringVar(&o.AuthClientID, "auth-client-id", "", "with --auth-issuer, introspect opaque tokens as this OAuth client `ID` (its secret in --auth-client-secret-file or $"+envClientSecret+")")
	fl.StringVar(&o.AuthClientSecret, "auth-client-secret-file", "", "the introspection client's secret, the first line of this `file`")
}

// checkAuth checks the auth flags against --http and reads the client's
// secret; it returns the resource options, nil without --auth-issuer.
func (o *serveOptions) checkAuth(loopback bool) (*resource.Options, error) {
	f := o.authFlags
	if len(f.AuthIssuers) == 0 {
		for _, c := range []struct {
			flag string
			set  bool
		}{{"--resource", f.Resource != ""}, {"--auth-client-id", f.AuthClientID != ""}, {"--auth-client-secret-file", f.AuthClientSecret != ""}} {
			if c.set {
				return nil, usagef("%s needs --auth-issuer", c.flag)
			}
		}
		return nil, nil
	}
	if o.HTTP == "" {
		return nil, usagef("--auth-issuer needs --http: tokens come over HTTP")
	}
	if f.Resource == "" && !loopback {
		return nil, usagef("--auth-issuer with --http %s: give --resource, the URL clients reach this gateway at (tokens must name it)", o.HTTP)
	}
	opts := &resource.Options{Resource: f.Resource, Issuers: f.AuthIssuers, ClientID: f.AuthClientID}
	switch {
	case f.AuthClientSecret != "" && f.AuthClientID == "":
		return nil, usagef("--auth-client-secret-file needs --auth-client-id")
	case f.AuthClientSecret != "":
		data, err := safefile.ReadLimited(f.AuthClientSecret, maxTokenFile)
		if err != nil {
			return nil, usagef("--auth-client-secret-file %s: %s", f.AuthClientSecret, safefile.Reason(err))
		}
		secret, _, _ := strings.Cut(string(data), "\n")
		if opts.ClientSecret = strings.TrimSpace(secret); opts.ClientSecret == "" {
			return nil, usagef("--auth-client-secret-file %s: the file holds no secret", f.AuthClientSecret)
		}
	case f.AuthClientID != "":
		secret, _ := o.IO.LookupEnv(envClientSecret)
		if opts.ClientSecret = strings.TrimSpace(secret); opts.ClientSecret == "" {
			return nil, usagef("--auth-client-id needs its secret: --auth-client-secret-file FILE or $%s", envClientSecret)
		}
	}
	// Checked now, with the address asked for, so that a bad URL is said
	// before anything starts; the guard served is made once listening.
	trial := *opts
	if trial.Resource == "" {
		trial.Resource = "http://" + o.HTTP + gateway.Path
	}
	if _, err := resource.New(trial); err != nil {
		return nil, usagef("--auth-issuer: %v", err)
	}
	return opts, nil
}

// guard is the token guard served on ln: the resource is --resource, or
// the address serve listens at (the port :0 chose). An issuer that cannot
// be reached is logged where the host logs (-v).
func (o *serveOptions) guard(ln net.Listener) (*resource.Guard, error) {
	opts := *o.auth
	if o.Logger != nil {
		opts.Logger = o.Logger()
	}
	return guardAt(opts, ln)
}

func guardAt(o resource.Options, ln net.Listener) (*resource.Guard, error) {
	if o.Resource == "" {
		o.Resource = fmt.Sprintf("http://%s%s", ln.Addr(), gateway.Path)
	}
	return resource.New(o)
}
