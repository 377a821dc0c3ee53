package peers

import (
	"os/exec"
	"testing"
)

// Promtool returns the path of Prometheus' promtool, which checks the
// metrics a scrape returns (Debian's prometheus package; `make promtool`
// installs it). Missing, it fails the test where the peers are required
// (EnvRequired, $CI: `make test` installed it) and skips it elsewhere.
func Promtool(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err == nil {
		return p
	}
	if required() {
		t.Fatalf("peers: promtool is not on PATH: run `make promtool` (%s or $CI is set: it is required)", EnvRequired)
	}
	skippedPromtool.note(t.Name())
	t.Skip("peers: promtool is not on PATH: run `make promtool` (Debian's prometheus package)")
	return ""
}
