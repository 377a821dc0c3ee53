package host_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// A process that says why on stderr and exits is failed with what it said,
// masked, not with the handshake's EOF it led to (issue 24).
func TestFailedStartShowsWhatTheServerSaid(t *testing.T) {
	script := filepath.Join(t.TempDir(), "server.sh")
	body := "#!/bin/sh\n" +
		"echo 'starting up' >&2\n" +
		"echo \"cannot open database (key $API_KEY)\" >&2\n" +
		"echo '' >&2\n" +
		"exit 1\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	const secret = "sk-live-0123456789abcdef"
	cfg := config.ServerConfig{Name: "db", Command: script, Env: map[string]string{"API_KEY": secret},
		Source: config.Source{Provider: "test", Path: "said_test.go", Level: config.LevelExplicit}}
	h := start(t, nil, cfg)
	st := status(t, h, "db")
	if st.State != host.StateFailed {
		t.Fatalf("db: %+v, want failed", st)
	}
	if !strings.HasPrefix(st.Error, "exited (status 1): cannot open database (key ") {
		t.Errorf("error = %q, want what the server said", st.Error)
	}
	if strings.Contains(st.Error, secret) || strings.Contains(st.Error, "initialize") || strings.Contains(st.Error, "starting up") {
		t.Errorf("error = %q: holds the secret, the handshake, or more than the line that says why", st.Error)
	}
}

// A connected server that exits is reported with its status and last
// words, too.
func TestDropShowsWhatTheServerSaid(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{demoServer(t, "crashy", "--exit-after", "300ms")}); err != nil {
		t.Fatal(err)
	}
	e := await(t, sub, "the drop", func(e host.Event) bool {
		return e.Type == host.EventState && e.Server == "crashy" && e.Error != ""
	})
	if !strings.Contains(e.Error, "exited (status 3): ") || !strings.Contains(e.Error, "exiting with code 3") {
		t.Errorf("drop error = %q, want the exit status and the server's last line", e.Error)
	}
	if len(e.Stderr) == 0 || !strings.Contains(strings.Join(e.Stderr, "\n"), "exiting with code 3") {
		t.Errorf("drop event's stderr = %q, want the server's last lines", e.Stderr)
	}
}
