package peers

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// HAProxy returns the path of haproxy, the load balancer the replica
// tests put in front of `serve --http` (Debian's haproxy package, which
// installs it in /usr/sbin: not on every user's PATH). Missing, it fails
// the test where the peers are required (EnvRequired, $CI: `make test`
// installed it: make replica-engines) and skips it elsewhere, in one
// line.
func HAProxy(t testing.TB) string {
	t.Helper()
	return program(t, "haproxy", "haproxy", "make replica-engines")
}

// program finds name on PATH or in the sbin folders Debian installs
// daemons in; pkg is the Debian package that has it, target the make
// target that installs it.
func program(t testing.TB, name, pkg, target string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return p
		}
	}
	if required() {
		t.Fatalf("peers: %s is not installed: run `%s` (Debian's %s package; %s or $CI is set: it is required)", name, target, pkg, EnvRequired)
	}
	t.Skipf("peers: %s is not installed: run `%s` (Debian's %s package)", name, target, pkg)
	return ""
}

// Nginx returns the path of nginx (Debian's nginx-light package), which
// the replica tests run docs/deploy/nginx.conf with; missing, as HAProxy.
func Nginx(t testing.TB) string {
	t.Helper()
	return program(t, "nginx", "nginx-light", "make replica-engines")
}
