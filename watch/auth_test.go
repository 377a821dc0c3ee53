package watch

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/oauthtest"
)

// A server waiting in needs-auth under watch connects when a login in
// another process (here another host) writes the token file.
func TestLoginElsewhereConnectsWaitingServer(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Options{})
	tokenFile := filepath.Join(t.TempDir(), "oauth", "tokens.json")
	cfg := config.ServerConfig{Name: "secure", Type: config.TransportHTTP, URL: srv.URL}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	h := host.New(&host.Options{TokenFile: tokenFile})
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(ctx, []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	first := &Loaded{Servers: []config.ServerConfig{cfg}}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, h, first, func() (*Loaded, error) { return first, nil }, &Options{TokenFile: tokenFile, Debounce: 20 * time.Millisecond})
	}()
	defer func() { cancel(); <-done }()
	waitFor(t, sub, host.StateNeedsAuth)

	other := host.New(&host.Options{TokenFile: tokenFile})
	defer other.Close()
	if err := other.Start(ctx, []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	if err := other.Login(ctx, "secure", srv.Browse); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sub, host.StateConnected)
}

func waitFor(t *testing.T, sub *host.Subscription, want host.State) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case e := <-sub.C:
			if e.Type == host.EventState && e.State == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %s event", want)
		}
	}
}
