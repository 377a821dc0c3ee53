package config

import (
	"strings"
	"testing"
)

// Place keeps what runs and where, and drops the credentials' values: a
// rotated token is the same place, another url or variable name is not.
func TestPlace(t *testing.T) {
	base := ServerConfig{Name: "gh", Command: "npx", Args: []string{"-y", "gh"}, Env: map[string]string{"GITHUB_TOKEN": "old"}}
	rotated := base
	rotated.Env = map[string]string{"GITHUB_TOKEN": "new"}
	if base.Place() != rotated.Place() {
		t.Error("a rotated token moved the server")
	}
	if base.Identity() == rotated.Identity() {
		t.Error("Identity lost the token's value")
	}
	renamed := base
	renamed.Env = map[string]string{"GH_TOKEN": "old"}
	if base.Place() == renamed.Place() {
		t.Error("another variable's name is the same place")
	}
	remote := ServerConfig{Name: "r", URL: "https://a.example/mcp", Headers: map[string]string{"Authorization": "Bearer x"}}
	other := remote
	other.Headers = map[string]string{"Authorization": "Bearer y"}
	moved := remote
	moved.URL = "https://b.example/mcp"
	if remote.Place() != other.Place() || remote.Place() == moved.Place() {
		t.Error("a remote server's place follows its url, not its header values")
	}
	for _, c := range []ServerConfig{base, remote} {
		if p := c.Place(); containsAny(p, "old", "Bearer x") {
			t.Errorf("Place holds a secret value: %q", p)
		}
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
