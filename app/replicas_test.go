package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/gateway/store"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
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

	start := func(blind bool) (*app.App, *recorder) { return startReplica(t, srv.URL, lopts, blind) }
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
	var msg map[string]string
	if err := json.Unmarshal([]byte(msgs[0]), &msg); err != nil || len(msg) != 1 || msg["replica"] == "" {
		t.Errorf("message %q: want the replica's id alone (%v)", msgs[0], err)
	}
}

// startReplica starts an app reading lopts' configs with a store on url;
// a blind one's watcher watches no file (its files are on another machine,
// or a mount that sends no events).
func startReplica(t *testing.T, url string, lopts *app.LoadOptions, blind bool) (*app.App, *recorder) {
	t.Helper()
	ctx := context.Background()
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
		Store:   openStore(t, url),
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

// TestConfigFanOutAfterOutage: a change A published while B's Redis
// connection was down reaches B anyway: B's subscription, made again,
// says messages may have been lost, and B reads its configs again.
func TestConfigFanOutAfterOutage(t *testing.T) {
	srv := redistest.Start(t)
	m := newMachine(t)
	cfg := filepath.Join(m.dir, "mcp.json")
	writeConfig(t, cfg, demoEntry(t, "a"))
	lopts := m.options(cfg)
	_, ra := startReplica(t, srv.URL, lopts, false)
	_, rb := startReplica(t, srv.URL, lopts, true)
	srv.Stop()
	writeConfig(t, cfg, demoEntry(t, "a"), demoEntry(t, "b"))
	if e := ra.nextConfig(t, "A's reload"); e.Type != watch.EventReload {
		t.Fatalf("A: %+v, want a reload", e)
	}
	srv.Restart()
	if e := rb.nextConfig(t, "B's reload, once its subscription is back"); e.Type != watch.EventReload || !slices.Equal(e.Diff.Added, []string{"b"}) {
		t.Fatalf("B: %+v, want a reload adding b", e)
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

// sseEvents reads an SSE body to its end: each event's id and data.
func sseEvents(t *testing.T, r io.Reader) (ids, data []string) {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range strings.Split(string(b), "\n\n") {
		id, d := "", ""
		for _, line := range strings.Split(ev, "\n") {
			if v, ok := strings.CutPrefix(line, "id: "); ok {
				id = v
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				d = v
			}
		}
		if id != "" {
			ids, data = append(ids, id), append(data, d)
		}
	}
	return ids, data
}

// rawClient speaks streamable HTTP itself, a request at a time, to
// whichever replica a test names: a load balancer's choice, made by hand.
type rawClient struct {
	t       *testing.T
	hc      *http.Client
	session string
}

func newRawClient(t *testing.T) *rawClient {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &rawClient{t: t, hc: &http.Client{Transport: tr}}
}

// send sends a request with the session's headers, and header's pairs.
func (c *rawClient) send(method, base, body string, header ...string) *http.Response {
	t := c.t
	t.Helper()
	req, _ := http.NewRequest(method, base+gateway.Path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", config.ProtocolLegacy)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// initialize begins a legacy session on the replica at base.
func (c *rawClient) initialize(base string) {
	t := c.t
	t.Helper()
	init := c.send(http.MethodPost, base, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+config.ProtocolLegacy+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	c.session = init.Header.Get("Mcp-Session-Id")
	_, _ = io.Copy(io.Discard, init.Body)
	if c.session == "" {
		t.Fatalf("initialize: %s, no session", init.Status)
	}
	_ = c.send(http.MethodPost, base, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// replica is an app over the demo server serving HTTP on loopback with
// keys and st shared: one of the replicas behind a load balancer.
func replica(t *testing.T, keys *gateway.SessionKeys, st store.Store) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	first := &app.Loaded{Servers: []config.ServerConfig{{Name: "demo", Command: exe, Args: []string{"--test-tools"}, Env: map[string]string{demo.EnvServerMode: "1"}}}}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.Start(ctx, first, &app.Options{Store: st, Host: &host.Options{ToolPrefix: host.NoToolPrefix}, Gateway: &gateway.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- a.ServeHTTP(ctx, ln, gateway.HTTPOptions{SessionKeys: keys}) }()
	t.Cleanup(func() {
		cancel()
		<-served
		a.Close()
	})
	return "http://" + ln.Addr().String()
}

// TestStoreResume: go-sdk's own Last-Event-ID replay, on another
// replica, from the events in Redis: a client that saw the first event
// of a call's stream on replica A asks replica B for the rest, and gets
// them, the same ids and data, once and in order. Raw HTTP, as a client
// whose connection to A broke sends it.
func TestStoreResume(t *testing.T) {
	srv := redistest.Start(t)
	keys, err := gateway.NewSessionKeys(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	baseA := replica(t, keys, openStore(t, srv.URL))
	baseB := replica(t, keys, openStore(t, srv.URL))
	c := newRawClient(t)
	send := c.send
	c.initialize(baseA)
	// A stream of two events or more: progress, then the reply. go-sdk
	// hands progress on apart from results, so a progress can come
	// after its reply and be dropped (README); the sleep makes that rare,
	// and a call whose progress was dropped is made again.
	var ids, data []string
	for i := 2; len(ids) < 2; i++ {
		if i > 50 {
			t.Fatalf("50 calls, and no stream with progress before the reply: ids %q, data %q", ids, data)
		}
		call := send(http.MethodPost, baseA, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"demo__sleep","arguments":{"ms":50},"_meta":{"progressToken":"p"}}}`, i))
		ids, data = sseEvents(t, call.Body)
		if len(ids) == 0 || !strings.Contains(data[len(data)-1], `"result"`) {
			t.Fatalf("the call's stream on A: ids %q, data %q; want the reply last", ids, data)
		}
	}
	t.Logf("the call's events on A: %q", ids)
	// The client saw the first event only: it asks B for what followed.
	resp := send(http.MethodGet, baseB, "", "Last-Event-ID", ids[0], "Accept", "text/event-stream")
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("resume on B from %s: %s %s", ids[0], resp.Status, b)
	}
	rids, rdata := sseEvents(t, resp.Body)
	if !slices.Equal(rids, ids[1:]) || !slices.Equal(rdata, data[1:]) {
		t.Fatalf("replay on B from %s: ids %q data %q; want ids %q data %q", ids[0], rids, rdata, ids[1:], data[1:])
	}
}

// TestRevokeAcrossReplicas: with the store on Redis, a DELETE on one
// replica ends the session on the others: one that rebuilt it, and one
// that never held it.
func TestRevokeAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	keys, err := gateway.NewSessionKeys(bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	var bases []string
	for range 3 {
		bases = append(bases, replica(t, keys, openStore(t, srv.URL)))
	}
	c := newRawClient(t)
	c.initialize(bases[0])
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if resp := c.send(http.MethodPost, bases[1], list); resp.StatusCode != http.StatusOK {
		t.Fatalf("the session on replica B: %s", resp.Status)
	}
	if resp := c.send(http.MethodDelete, bases[0], ""); resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("DELETE on A: %s %s", resp.Status, b)
	}
	// C never held the session: it asks Revoked, at once. B holds it,
	// and closes it when A's message reaches it, a moment after the
	// DELETE's answer: B is asked until then.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(eventBound)
	for _, r := range []struct {
		name, base string
	}{{"C", bases[2]}, {"B", bases[1]}} {
		for {
			resp := c.send(http.MethodPost, r.base, list)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode == http.StatusNotFound && strings.Contains(string(b), "ended") {
				break
			}
			if r.name == "C" || resp.StatusCode != http.StatusOK {
				t.Fatalf("the session on replica %s after DELETE on A: %s %s; want 404, ended", r.name, resp.Status, b)
			}
			select {
			case <-tick.C:
			case <-deadline:
				t.Fatalf("replica %s still serves the session A ended", r.name)
			}
		}
	}
}
