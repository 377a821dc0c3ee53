package discover

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
)

// An env or header value that starts with "!" is a shell command whose
// output is the value (DESIGN.md F5): "GITHUB_TOKEN": "!gh auth token" keeps
// the secret in the keychain rather than in the file. "!!" at the start
// stands for a literal "!".

// ErrCommandNotAllowed is the error of a "!command" in a project-level file
// whose project is not trusted: running it would run a program a cloned
// repository chose.
var ErrCommandNotAllowed = errors.New("command substitution is not allowed in untrusted project config")

// ErrNoCommandRunner is the error of a "!command" when discovery was given
// no Options.RunCommand: the embedder has not allowed secret helpers.
var ErrNoCommandRunner = errors.New("command substitution is not enabled here (no command runner)")

// hasCommands reports whether any env or header value of c is a command.
func hasCommands(c *config.ServerConfig) bool {
	for _, m := range []map[string]string{c.Env, c.Headers} {
		for _, v := range m {
			if strings.HasPrefix(v, "!") {
				return true
			}
		}
	}
	if c.OAuth == nil {
		return false
	}
	for _, v := range oauthSecrets(c.OAuth) {
		if strings.HasPrefix(*v.val, "!") {
			return true
		}
	}
	return false
}

type secretRef struct {
	field string
	val   *string
}

// oauthSecrets are the fields of o that take a "!command".
func oauthSecrets(o *config.OAuth) []secretRef {
	refs := []secretRef{{"oauth.clientSecret", &o.ClientSecret}, {"oauth.privateKey", &o.PrivateKey}}
	if p := o.IdentityProvider; p != nil {
		refs = append(refs, secretRef{"oauth.identityProvider.clientSecret", &p.ClientSecret}, secretRef{"oauth.identityProvider.idToken", &p.IDToken})
	}
	return refs
}

// resolveCommands replaces each "!command" env or header value of c, and
// an oauth.clientSecret or privateKey that is one, by the
// command's output, and "!!x" by "!x". With allowed false, a command is
// ErrCommandNotAllowed, and with no run ErrNoCommandRunner. The error is
// a *config.Diagnostic naming the field, positioned at c.Source; c's maps
// are replaced, never changed in place.
func resolveCommands(ctx context.Context, c *config.ServerConfig, allowed bool, dir string, run func(context.Context, string, string) (string, error)) error {
	for _, m := range []struct {
		field string
		vals  *map[string]string
	}{{"env", &c.Env}, {"headers", &c.Headers}} {
		if *m.vals == nil {
			continue
		}
		out := maps.Clone(*m.vals)
		for _, k := range slices.Sorted(maps.Keys(out)) {
			v := out[k]
			switch {
			case strings.HasPrefix(v, "!!"):
				out[k] = v[1:]
			case strings.HasPrefix(v, "!"):
				if !allowed {
					return commandDiag(c, m.field+"."+k, ErrCommandNotAllowed)
				}
				if run == nil {
					return commandDiag(c, m.field+"."+k, ErrNoCommandRunner)
				}
				res, err := run(ctx, v[1:], dir)
				if err != nil {
					return commandDiag(c, m.field+"."+k, err)
				}
				out[k] = res
			}
		}
		*m.vals = out
	}
	if c.OAuth != nil {
		o := *c.OAuth
		if o.IdentityProvider != nil {
			p := *o.IdentityProvider
			o.IdentityProvider = &p
		}
		for _, f := range oauthSecrets(&o) {
			v := *f.val
			switch {
			case strings.HasPrefix(v, "!!"):
				*f.val = v[1:]
			case strings.HasPrefix(v, "!"):
				if !allowed {
					return commandDiag(c, f.field, ErrCommandNotAllowed)
				}
				if run == nil {
					return commandDiag(c, f.field, ErrNoCommandRunner)
				}
				res, err := run(ctx, v[1:], dir)
				if err != nil {
					return commandDiag(c, f.field, err)
				}
				*f.val = res
			}
		}
		c.OAuth = &o
	}
	return nil
}

func commandDiag(c *config.ServerConfig, field string, err error) *config.Diagnostic {
	return &config.Diagnostic{Path: c.Source.Path, Line: c.Source.Line, Server: c.Name, Field: field, Message: err.Error(), Err: err}
}
