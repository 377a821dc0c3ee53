package host

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/redact"
)

// Secrets never leave the host (DESIGN.md F44). The host owns one
// redactor, told every value of every config it is given — env and header
// values after "!command"s ran, substituted variables, url query values
// and userinfo — and masks them in everything it lets out: Status, events,
// server logs, the errors its methods return and its own log. What a
// server returns to a call, a read or a prompt is passed on whole (F24):
// it is what the caller asked for, not a message of the host's.

// Redact returns s with every secret the host knows masked as
// "«redacted»". An embedder uses it for text of its own that may quote a
// server's config or output.
func (h *Host) Redact(s string) string { return h.redactor.String(s) }

// AddSecrets makes values secrets from now on, masked like the values of
// the configs, whenever they are at least four bytes long: for tokens the
// host did not read from a config, such as those an OAuth flow obtains.
func (h *Host) AddSecrets(values ...string) { h.redactor.Add(values...) }

// learn tells the redactor the secrets of configs; Start and Reload call
// it before anything of theirs can run or print.
func (h *Host) learn(configs []config.ServerConfig) {
	for i := range configs {
		c := &configs[i]
		h.redactor.AddConfig(redact.Values{Env: c.Env, Headers: c.Headers, URL: c.URL, Variables: c.Substituted})
		if c.OAuth != nil {
			h.redactor.Add(c.OAuth.Secrets()...)
		}
	}
}

// maskError is redactor.Error that keeps a *CallError on top, so a caller
// that asks errors.As for it gets its server and tool, and a masked Err.
func (h *Host) maskError(err error) error {
	if ce, ok := err.(*CallError); ok {
		masked := *ce
		masked.Err = h.redactor.Error(ce.Err)
		return &masked
	}
	return h.redactor.Error(err)
}

// maskEvent masks the texts of an event: the hub runs it on every event
// it publishes.
func maskEvent(r *redact.Redactor, e Event) Event {
	e.Error, e.Message, e.URI = r.String(e.Error), r.String(e.Message), r.String(e.URI)
	if e.Stderr != nil {
		e.Stderr = append([]string(nil), e.Stderr...)
		for i, l := range e.Stderr {
			e.Stderr[i] = r.String(l)
		}
	}
	return e
}

// maskInfo masks what a server says about itself, which it may fill with
// what it was given.
func (h *Host) maskInfo(info *mcp.Implementation) *mcp.Implementation {
	if info == nil {
		return nil
	}
	out := *info
	r := h.redactor
	out.Name, out.Title, out.Description = r.String(info.Name), r.String(info.Title), r.String(info.Description)
	out.Version, out.WebsiteURL = r.String(info.Version), r.String(info.WebsiteURL)
	return &out
}

// maskCatalog masks the secrets a server put in what it lists — tool,
// resource and prompt titles and descriptions, a prompt's argument
// descriptions — before anything keeps them: the tool set, the listings,
// the tool cache on disk. A server told a secret in its environment can
// echo it there as easily as on stderr. Names, URIs and input schemas
// are passed as they are: they are what an agent calls.
func (h *Host) maskCatalog(c catalog) catalog {
	m := h.redactor.String
	for i, t := range c.tools {
		if tt, dd := m(t.Title), m(t.Description); tt != t.Title || dd != t.Description {
			cp := *t
			cp.Title, cp.Description = tt, dd
			c.tools[i] = &cp
		}
	}
	for i, r := range c.resources {
		if tt, dd := m(r.Title), m(r.Description); tt != r.Title || dd != r.Description {
			cp := *r
			cp.Title, cp.Description = tt, dd
			c.resources[i] = &cp
		}
	}
	for i, r := range c.templates {
		if tt, dd := m(r.Title), m(r.Description); tt != r.Title || dd != r.Description {
			cp := *r
			cp.Title, cp.Description = tt, dd
			c.templates[i] = &cp
		}
	}
	for i, p := range c.prompts {
		cp := *p
		cp.Title, cp.Description = m(p.Title), m(p.Description)
		changed := cp.Title != p.Title || cp.Description != p.Description
		cp.Arguments = make([]*mcp.PromptArgument, len(p.Arguments))
		for j, a := range p.Arguments {
			cp.Arguments[j] = a
			if d := m(a.Description); d != a.Description {
				ac := *a
				ac.Description = d
				cp.Arguments[j], changed = &ac, true
			}
		}
		if changed {
			c.prompts[i] = &cp
		}
	}
	return c
}
