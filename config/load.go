package config

import (
	"errors"
	"io/fs"
	"os"
)

// FileRef is one native config file to read.
type FileRef struct {
	Path  string
	Level Level
	// Required makes a missing file an error. Set it for a file the person
	// named (--config); default locations are optional, and a missing one
	// is silence (SPEC F1).
	Required bool
}

// Shadowed is a server config that lost to an earlier one of the same name
// (SPEC F2: the first definition wins; entries are not merged).
type Shadowed struct {
	Config ServerConfig
	By     Source // where the winning definition is; zero when it was dropped
	// Reason says why Config lost, for a person ("shadowed by …").
	Reason string
}

// LoadResult is what Load found.
type LoadResult struct {
	// Servers holds the winning definition of each name, in file order and
	// then key order. It includes disabled servers and servers with Err:
	// both still claim their name.
	Servers  []ServerConfig
	Shadowed []Shadowed
	// FileErrors holds one *Diagnostic per file that could not be read or
	// parsed. The other files are still read.
	FileErrors []error
}

// Load reads native config files in order of precedence, highest first (see
// DefaultFiles). A nil lookup means os.LookupEnv.
func Load(files []FileRef, lookup LookupFunc) *LoadResult {
	res := &LoadResult{}
	winners := make(map[string]Source)
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && !f.Required {
				continue
			}
			msg := err.Error()
			var pe *fs.PathError
			if errors.As(err, &pe) {
				// The path is already in front of the message.
				msg = pe.Op + ": " + pe.Err.Error()
			}
			res.FileErrors = append(res.FileErrors, &Diagnostic{Path: f.Path, Message: msg, Err: err})
			continue
		}
		servers, err := ParseNative(f.Path, data, f.Level, lookup)
		if err != nil {
			res.FileErrors = append(res.FileErrors, err)
		}
		for _, c := range servers {
			if by, taken := winners[c.Name]; taken {
				res.Shadowed = append(res.Shadowed, Shadowed{Config: c, By: by})
				continue
			}
			winners[c.Name] = c.Source
			res.Servers = append(res.Servers, c)
		}
	}
	return res
}
