package cli

import (
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// accessRules are the "access" and "limits" of serve --http (DESIGN.md
// F65): from the first of your own config files (--config's, then the
// user's) that has either, each with the profiles of that file. A
// project's file is never read for them: a cloned repository must not
// decide who sees what of your gateway, nor how often they may call.
func (o *serveOptions) accessRules() (*gateway.Access, *gateway.Limits, error) {
	d, err := o.Discover(namesOnly)
	if err != nil {
		return nil, nil, err
	}
	for _, src := range d.Sources {
		if src.Provider != source.NativeName || !src.Found || src.Level == config.LevelProject {
			continue
		}
		data, err := safefile.ReadLimited(src.Path, safefile.MaxConfigSize)
		if err != nil {
			continue // reported with the source
		}
		a, l, err := source.ParseAccess(src.Path, data)
		if err != nil {
			return nil, nil, err
		}
		if a == nil && l == nil {
			continue
		}
		var access *gateway.Access
		if a != nil {
			profiles, err := source.ParseProfiles(src.Path, data)
			if err != nil {
				return nil, nil, err
			}
			access = &gateway.Access{Users: a.Users, Groups: a.Groups, Claim: a.Claim, Default: a.Default,
				Profiles: map[string]host.ViewFilter{}}
			for name, p := range profiles {
				access.Profiles[name] = host.ViewFilter{Servers: p.Servers, Tools: p.Tools}
			}
		}
		return access, gatewayLimits(l), nil
	}
	return nil, nil, nil
}

func gatewayLimits(l *source.Limits) *gateway.Limits {
	if l == nil {
		return nil
	}
	out := &gateway.Limits{PerTool: map[string]gateway.Rate{}}
	if l.PerUser != nil {
		out.PerUser = &gateway.Rate{Rate: l.PerUser.Rate, Burst: l.PerUser.Burst}
	}
	for name, r := range l.PerTool {
		out.PerTool[name] = gateway.Rate{Rate: r.Rate, Burst: r.Burst}
	}
	return out
}
