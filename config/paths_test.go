package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPaths(t *testing.T) {
	tests := []struct {
		name               string
		env                map[string]string
		user, cache, state string
	}{
		{
			name:  "xdg",
			env:   map[string]string{"HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg", "XDG_CACHE_HOME": "/cache", "XDG_STATE_HOME": "/state"},
			user:  "/cfg/switchboard/mcp.json",
			cache: "/cache/switchboard",
			state: "/state/switchboard",
		},
		{
			name:  "home",
			env:   map[string]string{"HOME": "/home/ada"},
			user:  "/home/ada/.config/switchboard/mcp.json",
			cache: "/home/ada/.cache/switchboard",
			state: "/home/ada/.local/state/switchboard",
		},
		{
			name:  "relative xdg is ignored",
			env:   map[string]string{"HOME": "/home/ada", "XDG_CONFIG_HOME": "cfg", "XDG_CACHE_HOME": ""},
			user:  "/home/ada/.config/switchboard/mcp.json",
			cache: "/home/ada/.cache/switchboard",
			state: "/home/ada/.local/state/switchboard",
		},
		{name: "nothing", env: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := MapLookup(tt.env)
			got := []string{UserConfigPath(l), CacheDir(l), StateDir(l)}
			if diff := cmp.Diff([]string{tt.user, tt.cache, tt.state}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if got, want := ProjectConfigPath("/src/app"), "/src/app/.switchboard/mcp.json"; got != want {
		t.Errorf("ProjectConfigPath = %s, want %s", got, want)
	}
}
