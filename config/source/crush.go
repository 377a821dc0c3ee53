package source

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
)

// Crush (charmbracelet/crush), as its README ("Configuration", "MCPs")
// describes it: .crush.json, then crush.json in the project, then
// ~/.config/crush/crush.json, each JSON with a "$schema" of
// https://charm.land/crush.json. Servers are under "mcp": {name: entry},
// with "type" "stdio" ("command", "args", "env"), "http" or "sse" ("url",
// "headers"); "disabled", "disabled_tools" and "timeout" (seconds) are
// honoured. Values are expanded like a shell would: $VAR, ${VAR} and
// $(command). A whole env or header value of "$(command)" becomes our
// "!command" (run with /bin/sh, for trusted sources only); $(…) anywhere
// else is not supported and fails that server.
var crushDialect = &dialect{disabled: true, disabledTools: "disabled_tools", timeout: time.Second}

// crushFormat is Crush's format.
var crushFormat = &Provider{
	Name: "Crush",
	ID:   "crush",
	Locations: func(env Env) []Location {
		var locs []Location
		if env.ProjectDir != "" {
			locs = append(locs,
				Location{Path: filepath.Join(env.ProjectDir, ".crush.json"), Level: config.LevelProject},
				Location{Path: filepath.Join(env.ProjectDir, "crush.json"), Level: config.LevelProject})
		}
		if env.Home != "" {
			locs = append(locs, Location{Path: under(env.configHome(), "crush", "crush.json"), Level: config.LevelUser})
		}
		return locs
	},
	Parse: parseCrush,
	Sniff: func(path string, data []byte) bool {
		return nameIs(path, "/crush.json", "/.crush.json") || bytes.Contains(data, []byte("charm.land/crush"))
	},
}

func parseCrush(loc Location, data []byte, _ Env) ([]Entry, []*config.Diagnostic, error) {
	entries, warnings, err := parseMCPServers("Crush", loc, data, "mcp", true, crushDialect, nil)
	for i := range entries {
		c := &entries[i].Config
		if c.Err != nil {
			continue
		}
		// $(cmd) as a whole env or header value is "!cmd".
		for _, m := range []map[string]string{c.Env, c.Headers} {
			for k, v := range m {
				if strings.HasPrefix(v, "$(") && strings.HasSuffix(v, ")") && strings.Count(v, "$(") == 1 {
					m[k] = "!" + v[2:len(v)-1]
				}
			}
		}
	}
	rewriteAll(entries, crushVariables)
	return entries, warnings, err
}

// crushVariables rewrites $VAR for discovery, rejecting $(…) where it
// cannot be honoured. A "!command" value is the shell's to expand.
func crushVariables(s string) (string, error) {
	if strings.HasPrefix(s, "!") {
		return s, nil
	}
	if strings.Contains(s, "$(") {
		return "", errors.New("command substitution $(…) is supported only as a whole env or header value")
	}
	return bareVariables(s)
}
