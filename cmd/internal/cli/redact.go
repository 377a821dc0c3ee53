package cli

import (
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/internal/redact"
)

// maskDiscovery learns the secrets of every config d found — winners and
// the definitions they shadowed alike — and masks them in d's texts
// (DESIGN.md F44): server and source errors, warnings, reasons. What the
// command line prints from discovery without a host (sources, the config
// errors every command reports, watch's config errors) then shows none,
// and a url in an error keeps its host and path, not its query values or
// userinfo. The hosts mask what they print themselves.
func maskDiscovery(r *redact.Redactor, d *discover.Discovery) {
	learn := func(c *config.ServerConfig) {
		r.AddConfig(redact.Values{Env: c.Env, Headers: c.Headers, URL: c.URL, Variables: c.Substituted})
		if c.OAuth != nil {
			r.Add(c.OAuth.Secrets()...)
		}
	}
	for i := range d.Servers {
		learn(&d.Servers[i])
	}
	for i := range d.Shadowed {
		learn(&d.Shadowed[i].Config)
	}
	for i := range d.Servers {
		d.Servers[i].Err = r.Error(d.Servers[i].Err)
	}
	for i := range d.Shadowed {
		sh := &d.Shadowed[i]
		sh.Config.Err, sh.Reason = r.Error(sh.Config.Err), r.String(sh.Reason)
	}
	for i := range d.Sources {
		s := &d.Sources[i]
		s.Error = r.String(s.Error)
		for j := range s.Warnings {
			s.Warnings[j] = r.String(s.Warnings[j])
		}
		for j := range s.Lost {
			s.Lost[j].Reason = r.String(s.Lost[j].Reason)
		}
	}
	for i, w := range d.Warnings {
		if masked := r.String(w.Message); masked != w.Message {
			copied := *w
			copied.Message = masked
			d.Warnings[i] = &copied
		}
	}
	for i := range d.Errors {
		d.Errors[i] = r.Error(d.Errors[i])
	}
}
