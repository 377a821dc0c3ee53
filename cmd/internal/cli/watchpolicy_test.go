package cli_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWatchPolicyFailsClosed: a policy that appears while watch runs
// takes effect at once, and one that breaks blocks every server instead
// of leaving the last good config running.
func TestWatchPolicyFailsClosed(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mcp.json")
	writeFile(t, cfg, `{"mcpServers": {"demo": {"command": "`+exe+`", "args": ["demo-server"], "env": {"`+asCLI+`": "1"}}}}`)
	policy := filepath.Join(dir, "policy.json") // not there yet
	t.Setenv("SWITCHBOARD_POLICY", policy)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))

	sc, stop := startWatch(t, cfg)
	defer stop()
	type event = watchEvent
	next := func(what string, match func(event) bool) event {
		t.Helper()
		return nextEvent(t, sc, what, match)
	}
	state := func(st string) func(event) bool {
		return func(e event) bool { return e.Type == "state" && e.Server == "demo" && e.State == st }
	}
	next("connected", state("connected"))

	// A policy file that appears now denies the server.
	writeFile(t, policy, `{"deny": [{"name": "demo"}]}`)
	next("blocked by the new policy", state("blocked"))

	// Allowed again, it comes back; then the file breaks: fail closed.
	writeFile(t, policy, `{}`)
	next("connected again", state("connected"))
	writeFile(t, policy, `garbage`)
	if e := next("blocked by the broken policy", state("blocked")); e.Error == "" {
		t.Errorf("blocked without a reason: %+v", e)
	}
}
