package cli_test

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit/redistest"
)

// runServeOnce runs serve with args (and env, NAME=VALUE) until it
// exits, for what it refuses: its exit code and stderr.
func runServeOnce(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mcp.json")
	writeFile(t, cfg, `{"mcpServers": {"demo": {"command": "`+exe+`", "args": ["demo-server"], "env": {"`+asCLI+`": "1"}}}}`)
	cmd := exec.Command(exe, append([]string{"--config", cfg, "--no-discover", "--project", dir, "--state-dir", dir, "serve"}, args...)...)
	cmd.Env = append(append(os.Environ(), asCLI+"=1", "HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache")), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// TestServeStoreRefused: a --store (or $SWITCHBOARD_STORE) that does not
// answer stops serve before it serves, in one line naming the store
// without its password; --store without --http is a usage error.
func TestServeStoreRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	const secret = "s3cret-store-password"
	code, stderr := runServeOnce(t, nil, "--http", "127.0.0.1:0", "--store", "redis://:"+secret+"@"+closed+"/0")
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	if code != 1 || !strings.Contains(last, "store redis://"+closed+"/0: does not answer") || strings.Contains(stderr, secret) {
		t.Errorf("serve with Redis down: exit %d, stderr:\n%s\nwant exit 1, a line naming the store, no password", code, stderr)
	}
	if strings.Contains(stderr, "serving on") {
		t.Error("serve served without its store")
	}
	code, stderr = runServeOnce(t, []string{"SWITCHBOARD_STORE=redis://:" + secret + "@" + closed + "/0"}, "--http", "127.0.0.1:0")
	if code != 1 || !strings.Contains(stderr, "store redis://"+closed+"/0: does not answer") || strings.Contains(stderr, secret) {
		t.Errorf("serve with $SWITCHBOARD_STORE down: exit %d, stderr:\n%s", code, stderr)
	}
	code, stderr = runServeOnce(t, nil, "--store", "redis://"+closed+"/0")
	if code != 2 || !strings.Contains(stderr, "--store is for replicas of serve --http") {
		t.Errorf("--store without --http: exit %d, stderr %q; want the usage error", code, stderr)
	}
}

// TestServeStore: serve --http --store with a real Redis is ready; with
// Redis stopped under it, /readyz says "store" (and the process goes
// on); with Redis back, ready again.
func TestServeStore(t *testing.T) {
	srv := redistest.Start(t)
	p := startServeProcArgs(t, []string{"--store", srv.URL})
	ready := func() (int, []string) {
		t.Helper()
		resp, err := http.Get(p.url + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			NotReady []string `json:"not_ready"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body.NotReady
	}
	if code, not := ready(); code != http.StatusOK {
		t.Fatalf("/readyz with Redis up: %d %v", code, not)
	}
	srv.Stop()
	if code, not := ready(); code != http.StatusServiceUnavailable || !slices.Contains(not, "store") {
		t.Fatalf("/readyz with Redis down: %d %v, want 503 naming store", code, not)
	}
	select {
	case <-p.exited:
		t.Fatal("serve exited when Redis stopped")
	default:
	}
	// Back: ready once go-redis dials again (a second at most after its
	// failed dials).
	srv.Restart()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(watchBound)
	for {
		if code, _ := ready(); code == http.StatusOK {
			break
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("/readyz never 200 again after Redis came back")
		}
	}
	http.DefaultClient.CloseIdleConnections()
}
