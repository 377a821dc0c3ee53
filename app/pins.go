package app

import (
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// pinTools gives every server that does not say for itself the top-level
// "pinTools" of our own config files (DESIGN.md F66): the user's, then a
// trusted project's, which wins. A value that is not true or false is a
// problem, and pins every server: a safety setting that cannot be read is
// taken as on. A file that does not parse is its source's problem, and
// says nothing here.
func pinTools(d *discover.Discovery, l *Loaded) {
	var global *bool
	for _, project := range []bool{false, true} {
		for _, src := range d.Sources {
			if src.Provider != source.NativeName || !src.Found || (src.Level == config.LevelProject) != project {
				continue
			}
			if project && !d.ProjectTrusted {
				continue
			}
			data, err := safefile.ReadLimited(src.Path, safefile.MaxConfigSize)
			if err != nil {
				continue // reported with the source
			}
			pin, err := source.ParsePinTools(src.Path, data)
			if err != nil {
				on := true
				global = &on
				l.Problems = append(l.Problems, err)
				continue
			}
			if pin != nil {
				global = pin
			}
		}
	}
	if global == nil {
		return
	}
	for i := range l.Servers {
		if l.Servers[i].PinTools == nil {
			pin := *global
			l.Servers[i].PinTools = &pin
		}
	}
}
