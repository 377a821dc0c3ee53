package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/gateway/store"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/redistest"
	"github.com/switchboard-mcp/switchboard/watch"
)

func openStore(t *testing.T, url string) store.Store {
	t.Helper()
	st, err := store.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestConfigFanOut: two replicas on one Redis read one config file, but
// only A's watcher sees it change (B's file is on another machine, or a
// mount that sends no events). A's reload is published; B reads its
// configs again, reloads, and its client gets list_changed. B does not
// publish what the message made it do, so nothing loops.
func TestConfigFanOut(t *testing.T) {
	srv := redistest.Start(t)
	m := newMachine(t)
	cfg := filepath.Join(m.dir, "mcp.json")
	writeConfig(t, cfg, demoEntry(t, "a"))
	lopts := m.options(cfg)
	ctx := context.Background()

	// What is published, as a third party sees it.
	watcher := openStore(t, srv.URL)
	published := make(chan string, 16)
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := watcher.Subscribe(subCtx, app.ConfigTopic, func(b []byte) { published <- string(b) }); err != nil {
		t.Fatal(err)
	}

	start := func(blind bool) (*app.App, *recorder) {
		first, err := app.Load(ctx, lopts)
		if err != nil {
			t.Fatal(err)
		}
		reload := func(ctx context.Context) (*app.Loaded, error) { return app.Load(ctx, lopts) }
		if blind {
			first.Files = nil
			reload = func(ctx context.Context) (*app.Loaded, error) {
				l, err := app.Load(ctx, lopts)
				if l != nil {
					l.Files = nil
				}
				return l, err
			}
		}
		r := newRecorder()
		a, err := app.Start(ctx, first, r.options(&app.Options{
			Reload:  reload,
			Store:   openStore(t, srv.URL),
			Host:    &host.Options{ToolPrefix: host.NoToolPrefix},
			Gateway: &gateway.Options{},
		}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		r.awaitState(t, "a", host.StateConnected)
		return a, r
	}
	_, ra := start(false)
	b, rb := start(true)

	// A client of B's.
	listChanged := make(chan struct{}, 8)
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- b.ServePipe(ctx, host.ViewFilter{}, serverIn, serverOut) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { listChanged <- struct{}{} },
	})
	sess, err := c.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { sess.Close(); <-served }()

	writeConfig(t, cfg, demoEntry(t, "a"), demoEntry(t, "b"))
	if e := ra.nextConfig(t, "A's reload"); e.Type != watch.EventReload || !slices.Equal(e.Diff.Added, []string{"b"}) {
		t.Fatalf("A: %+v, want a reload adding b", e)
	}
	if e := rb.nextConfig(t, "B's reload, from A's message"); e.Type != watch.EventReload || !slices.Equal(e.Diff.Added, []string{"b"}) {
		t.Fatalf("B: %+v, want a reload adding b", e)
	}
	rb.awaitState(t, "b", host.StateConnected)
	select {
	case <-listChanged:
	case <-time.After(eventBound):
		t.Fatal("B's client got no tools/list_changed")
	}
	res, err := sess.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Tools, func(tl *mcp.Tool) bool { return strings.HasPrefix(tl.Name, "b__") }) {
		t.Errorf("B's client does not list b's tools after the fan-out")
	}

	// B published nothing: had it, its PUBLISH would have reached Redis
	// before its reload event did us, so before this one.
	if err := watcher.Publish(ctx, app.ConfigTopic, []byte("sentinel")); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for m := range published {
		if m == "sentinel" {
			break
		}
		msgs = append(msgs, m)
	}
	if len(msgs) != 1 {
		t.Fatalf("published %q, want A's one message", msgs)
	}
	var msg struct{ Replica, Config string }
	if err := json.Unmarshal([]byte(msgs[0]), &msg); err != nil || msg.Replica == "" || msg.Config == "" {
		t.Errorf("message %q: want a replica and a config digest (%v)", msgs[0], err)
	}
}

// TestReadyzStore: with a store, /readyz and switchboard_store_up follow
// Redis: 503 naming "store" while it is down, 200 again when it is back;
// the replica's own sessions go on meanwhile.
func TestReadyzStore(t *testing.T) {
	srv := redistest.Start(t)
	st := openStore(t, srv.URL)
	_, base := serveHTTP(t, &app.Options{Store: st, Metrics: app.NewMetrics()}, "")
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	ready := func() (int, []string) {
		t.Helper()
		resp, err := hc.Get(base + app.ReadyPath)
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
	storeUp := func() string {
		t.Helper()
		resp, err := hc.Get(base + app.MetricsPath)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "switchboard_store_up "); ok {
				return v
			}
		}
		return "absent"
	}
	if code, not := ready(); code != http.StatusOK || storeUp() != "1" {
		t.Fatalf("with Redis up: /readyz %d %v, store_up %s", code, not, storeUp())
	}
	sess := legacySession(t, base)
	srv.Stop()
	if code, not := ready(); code != http.StatusServiceUnavailable || !slices.Contains(not, "store") {
		t.Fatalf("with Redis down: /readyz %d %v, want 503 naming store", code, not)
	}
	if v := storeUp(); v != "0" {
		t.Errorf("with Redis down: switchboard_store_up %s, want 0", v)
	}
	if _, err := sess.ListTools(context.Background(), nil); err != nil {
		t.Errorf("a session held by this replica failed with Redis down: %v", err)
	}
	// go-redis dials again in the background, each second, after the
	// failed dials: /readyz says when.
	srv.Restart()
	deadline := time.After(eventBound)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
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
	if v := storeUp(); v != "1" {
		t.Errorf("Redis back: switchboard_store_up %s, want 1", v)
	}
}

// legacySession is a 2025-11-25 session on the app at base.
func legacySession(t *testing.T, base string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + gateway.Path}, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// TestStoreStreams: with a store, a legacy session's stream events are
// kept in Redis, where another replica would resume them from.
func TestStoreStreams(t *testing.T) {
	srv := redistest.Start(t)
	st := openStore(t, srv.URL)
	_, base := serveHTTP(t, &app.Options{Store: st}, "")
	sess := legacySession(t, base)
	res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "kept"}})
	if err != nil || res.IsError {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	// The call's reply went out on its POST's stream, and was kept.
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, DisableIdentity: true})
	defer c.Close()
	keys, err := c.Keys(context.Background(), "switchboard:evlist:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, k := range keys {
		if !strings.Contains(k, sess.ID()) {
			continue
		}
		events, _ := c.LRange(context.Background(), k, 0, -1).Result()
		found = found || slices.ContainsFunc(events, func(e string) bool { return strings.Contains(e, `"kept"`) })
	}
	if !found {
		t.Fatalf("no event of session %s holds the call's reply; streams %q", sess.ID(), keys)
	}
}
