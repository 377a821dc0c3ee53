package app_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/watch"
)

// eventBound is far beyond what any event here takes on a working host:
// reaching it is a failure, not a timing.
const eventBound = time.Minute

// recorder collects what an app hands on.
type recorder struct {
	config chan app.ConfigEvent
	states chan host.Event
}

func newRecorder() *recorder {
	return &recorder{config: make(chan app.ConfigEvent, 64), states: make(chan host.Event, 1024)}
}

func (r *recorder) options(o *app.Options) *app.Options {
	o.ConfigEvent = func(e app.ConfigEvent) { r.config <- e }
	o.HostEvent = func(e host.Event) {
		if e.Type == host.EventState {
			r.states <- e
		}
	}
	return o
}

func (r *recorder) nextConfig(t *testing.T, what string) app.ConfigEvent {
	t.Helper()
	select {
	case e := <-r.config:
		return e
	case <-time.After(eventBound):
		t.Fatalf("no config event: waiting for %s", what)
		return app.ConfigEvent{}
	}
}

func (r *recorder) awaitState(t *testing.T, server string, state host.State) host.Event {
	t.Helper()
	timeout := time.After(eventBound)
	for {
		select {
		case e := <-r.states:
			if e.Server == server && e.State == state {
				return e
			}
		case <-timeout:
			t.Fatalf("%s never %s", server, state)
		}
	}
}

// TestReload: while the app runs, a half-written config holds the last
// good one, its fix says so and reloads with what changed, and a policy
// that breaks fails closed. Close ends it all (TestMain finds no
// goroutine left).
func TestReload(t *testing.T) {
	m := newMachine(t)
	cfg := filepath.Join(m.dir, "mcp.json")
	writeConfig(t, cfg, demoEntry(t, "a"))
	lopts := m.options(cfg)
	ctx := context.Background()
	first, err := app.Load(ctx, lopts)
	if err != nil {
		t.Fatal(err)
	}
	r := newRecorder()
	a, err := app.Start(ctx, first, r.options(&app.Options{
		Reload: func(ctx context.Context) (*app.Loaded, error) { return app.Load(ctx, lopts) },
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	r.awaitState(t, "a", host.StateConnected)

	writeFile(t, cfg, `{"mcpServers": {`)
	if e := r.nextConfig(t, "the config error"); e.Type != watch.EventConfigError {
		t.Fatalf("a half-written file: %+v, want a config error", e)
	}
	if st := a.Host().Status(); len(st) != 1 || st[0].State != host.StateConnected {
		t.Errorf("a half-written file stopped a server: %+v", st)
	}

	writeConfig(t, cfg, demoEntry(t, "a"), demoEntry(t, "b"))
	if e := r.nextConfig(t, "the fix"); e.Type != app.EventConfigFixed || e.File != cfg || e.Gone {
		t.Errorf("the fix: %+v, want config-fixed naming %s", e, cfg)
	}
	e := r.nextConfig(t, "the reload")
	if e.Type != watch.EventReload || !slices.Equal(e.Diff.Added, []string{"b"}) {
		t.Fatalf("the fix: %+v, want a reload adding b", e)
	}
	if got := [][]string{names(e.Before), names(e.After)}; !slices.Equal(got[0], []string{"a"}) || !slices.Equal(got[1], []string{"a", "b"}) {
		t.Errorf("reload from %v to %v, want from [a] to [a b]", got[0], got[1])
	}
	r.awaitState(t, "b", host.StateConnected)

	writeFile(t, m.policy, "garbage")
	if e := r.nextConfig(t, "the policy's reload"); e.Type != watch.EventReload || len(e.Diff.Changed) != 2 {
		t.Errorf("a broken policy: %+v, want a reload changing both", e)
	}
	r.awaitState(t, "a", host.StateBlocked)
	if err := a.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestGatewayRoutesRequests: a server's own request (roots/list) during a
// client's call reaches that client through the gateway, which was built
// after the host that asks it.
func TestGatewayRoutesRequests(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	first := &app.Loaded{Servers: []config.ServerConfig{{
		Name: "demo", Command: exe, Env: map[string]string{demo.EnvServerMode: "1"},
		Args: []string{"--roots", "--legacy"}, // legacy: it asks with a request of its own
	}}}
	ctx := context.Background()
	a, err := app.Start(ctx, first, &app.Options{Host: &host.Options{ToolPrefix: host.NoToolPrefix}, Gateway: &gateway.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- a.ServePipe(ctx, host.ViewFilter{}, serverIn, serverOut) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	c.AddRoots(&mcp.Root{URI: "file:///client", Name: "client"})
	sess, err := c.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__roots"})
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("roots: %+v, %v", res, err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != "file:///client client" {
		t.Errorf("the server was offered %q, want the client's root", text)
	}
	sess.Close()
	<-served
}

// TestServeNeedsGateway: serving an app started without a gateway is an
// error, not a panic.
func TestServeNeedsGateway(t *testing.T) {
	a, err := app.Start(context.Background(), &app.Loaded{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.ServePipe(context.Background(), host.ViewFilter{}, io.NopCloser(nil), io.Discard); err == nil {
		t.Error("ServePipe without a gateway served")
	}
}
