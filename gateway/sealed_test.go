package gateway_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/gateway/store"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/seal"
	"github.com/switchboard-mcp/switchboard/internal/testkit/benchcall"
)

// replica is one gateway process's worth: its own host and servers from
// the same config, behind its own HTTP server.
type replica struct {
	gw  *gateway.Gateway
	srv *httptest.Server
}

func startReplica(t testing.TB, opts gateway.HTTPOptions, configs ...config.ServerConfig) *replica {
	t.Helper()
	var gw *gateway.Gateway
	h := host.New(&host.Options{
		ToolPrefix: host.NoToolPrefix,
		Elicitation: func(ctx context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return gw.Elicitation(ctx, server, req)
		},
	})
	gw = gateway.New(h, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gw.Run(ctx) }()
	srv := httptest.NewServer(gw.Handler(opts))
	t.Cleanup(func() {
		cancel()
		<-done
		srv.CloseClientConnections()
		srv.Close()
		h.Close()
	})
	if err := h.Start(ctx, configs); err != nil {
		t.Fatal(err)
	}
	h.WaitSettled(ctx)
	<-gw.Synced()
	return &replica{gw: gw, srv: srv}
}

// balancer is what a load balancer does for the test: it sends each
// request to the replica chosen now, with the caller's token.
type balancer struct {
	to    atomic.Pointer[replica]
	token string
}

func (b *balancer) RoundTrip(r *http.Request) (*http.Response, error) {
	to := b.to.Load()
	if to == nil {
		return nil, errors.New("balancer: no replica up")
	}
	r = r.Clone(r.Context())
	u, _ := url.Parse(to.srv.URL)
	r.URL.Host, r.Host = u.Host, u.Host
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connectVia(t *testing.T, b *balancer, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: "http://balancer" + gateway.Path, HTTPClient: &http.Client{Transport: b}}
	sess, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: config.ProtocolLegacy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func randomKey(t testing.TB) []byte {
	t.Helper()
	k := make([]byte, seal.KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func writeKeyFile(t testing.TB, keys ...[]byte) string {
	t.Helper()
	var lines []string
	for _, k := range keys {
		lines = append(lines, base64.StdEncoding.EncodeToString(k))
	}
	path := filepath.Join(t.TempDir(), "session.keys")
	if err := os.WriteFile(path, []byte("# switchboard session keys\n"+strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func loadKeys(t testing.TB, keys ...[]byte) *gateway.SessionKeys {
	t.Helper()
	sk, err := gateway.LoadSessionKeys(writeKeyFile(t, keys...))
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// rawRequest sends one request of the legacy era straight to a replica.
func rawRequest(t *testing.T, r *replica, method, session, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, r.srv.URL+gateway.Path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", config.ProtocolLegacy)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf) // the first event or the error line is enough
	b.Write(buf[:n])
	return resp.StatusCode, b.String()
}

const pingBody = `{"jsonrpc":"2.0","id":99,"method":"ping"}`

// A session begun on replica A goes on through replica B under the same
// id, without initializing again: a call works, the log level set on A
// holds on B, a call in flight on A when it went ends with an error and
// leaves nothing waiting on B.
func TestSealedSessionFailover(t *testing.T) {
	keys := loadKeys(t, randomKey(t))
	shared := store.NewMemory()
	opts := gateway.HTTPOptions{SessionKeys: keys, Store: shared}
	cfg := demoServer(t, "demo", "--test-tools")
	a, b := startReplica(t, opts, cfg), startReplica(t, opts, cfg)
	lb := &balancer{token: "ann-token"}
	lb.to.Store(a)
	logs := make(chan *mcp.LoggingMessageParams, 8)
	sess := connectVia(t, lb, &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
		logs <- req.Params
	}})
	ctx := context.Background()
	if err := sess.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	id := sess.ID()

	// A call in flight on A when A goes.
	slow := make(chan error, 1)
	go func() {
		_, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"ms": 60000}})
		slow <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for _, callers, _ := a.gw.InFlight(); callers == 0; _, callers, _ = a.gw.InFlight() {
		if time.Now().After(deadline) {
			t.Fatal("the slow call never reached replica A")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// A "dies": its connections drop and the balancer sends to B.
	lb.to.Store(b)
	a.srv.CloseClientConnections()
	select {
	case err := <-slow:
		if err == nil {
			t.Fatal("the call in flight on the dead replica succeeded")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight on the dead replica never ended")
	}

	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "on b"}})
	if err != nil {
		t.Fatalf("call through B: %v", err)
	}
	if got := textOf(res); !strings.Contains(got, "on b") {
		t.Fatalf("call through B = %q", got)
	}
	if sess.ID() != id {
		t.Fatalf("session id changed from %q to %q", id, sess.ID())
	}
	if n := b.gw.Rebuilt(); n != 1 {
		t.Fatalf("B rebuilt %d sessions, want 1 (the client must not initialize again)", n)
	}
	if _, callers, _ := b.gw.InFlight(); callers != 0 {
		t.Fatalf("B holds %d calls in flight, want none", callers)
	}
	// The level set on A holds on B: info is dropped, warning arrives.
	for _, level := range []string{"info", "warning"} {
		if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__log", Arguments: map[string]any{"level": level, "message": "at " + level}}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case p := <-logs:
		if p.Level != "warning" {
			t.Fatalf("first log line on B is %s %v: the level set on A did not hold", p.Level, p.Data)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no log line reached the client through B")
	}
}

// A sealed id is refused to another caller (403), and when tampered with,
// expired or sealed with a key the replica lacks (404, which tells a
// client to initialize again); a DELETE on A ends the session on B.
func TestSealedSessionRefusals(t *testing.T) {
	k1 := randomKey(t)
	keys := loadKeys(t, k1)
	shared := store.NewMemory()
	opts := gateway.HTTPOptions{SessionKeys: keys, Store: shared}
	cfg := demoServer(t, "demo")
	a, b := startReplica(t, opts, cfg), startReplica(t, opts, cfg)
	lb := &balancer{token: "ann-token"}
	lb.to.Store(a)
	sess := connectVia(t, lb, nil)
	id := sess.ID()

	if code, body := rawRequest(t, b, http.MethodPost, id, "bob-token", pingBody); code != http.StatusForbidden || !strings.Contains(body, "another caller") {
		t.Errorf("another token on B: %d %q, want 403", code, body)
	}
	if code, _ := rawRequest(t, a, http.MethodPost, id, "", pingBody); code != http.StatusForbidden {
		t.Errorf("no token on A (which holds it): %d, want 403", code)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(id)
	raw[len(raw)-3] ^= 1
	tampered := base64.RawURLEncoding.EncodeToString(raw)
	if code, body := rawRequest(t, b, http.MethodPost, tampered, "ann-token", pingBody); code != http.StatusNotFound || !strings.Contains(body, "tampered") {
		t.Errorf("tampered id: %d %q, want 404 saying tampered", code, body)
	}
	kr, _ := seal.New(k1)
	payload, _ := json.Marshal(map[string]any{"e": time.Now().Add(-time.Minute).Unix(), "p": map[string]any{"protocolVersion": config.ProtocolLegacy}})
	expired := kr.Seal("mcp-session", gateway.CallerOf(&http.Request{Header: http.Header{"Authorization": {"Bearer ann-token"}}}), time.Now().Add(-time.Minute), payload)
	if code, body := rawRequest(t, b, http.MethodPost, expired, "ann-token", pingBody); code != http.StatusNotFound || !strings.Contains(body, "expired") {
		t.Errorf("expired id: %d %q, want 404 saying expired", code, body)
	}
	other := startReplica(t, gateway.HTTPOptions{SessionKeys: loadKeys(t, randomKey(t))}, cfg)
	if code, body := rawRequest(t, other, http.MethodPost, id, "ann-token", pingBody); code != http.StatusNotFound || !strings.Contains(body, "key") {
		t.Errorf("unknown key: %d %q, want 404 naming the key", code, body)
	}

	// B holds it too (a ping rebuilt it); DELETE on A ends it on both.
	if code, _ := rawRequest(t, b, http.MethodPost, id, "ann-token", pingBody); code != http.StatusOK {
		t.Fatalf("ping on B: %d", code)
	}
	if code, _ := rawRequest(t, a, http.MethodDelete, id, "bob-token", ""); code != http.StatusForbidden {
		t.Errorf("DELETE by another caller: %d, want 403", code)
	}
	if code, _ := rawRequest(t, a, http.MethodDelete, id, "ann-token", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE on A: %d", code)
	}
	// B closes its copy when the store's fan-out reaches it.
	deadline := time.Now().Add(10 * time.Second)
	for b.gw.Stats().Sessions != 0 {
		if time.Now().After(deadline) {
			t.Fatal("B still holds the session DELETEd on A")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if code, body := rawRequest(t, b, http.MethodPost, id, "ann-token", pingBody); code != http.StatusNotFound || !strings.Contains(body, "ended") {
		t.Errorf("after DELETE on A, B: %d %q, want 404", code, body)
	}
}

// Keys rotate without dropping sessions: a session sealed under key 1
// goes on through a replica whose file is "key2\nkey1".
func TestSealedSessionKeyRotation(t *testing.T) {
	k1, k2 := randomKey(t), randomKey(t)
	shared := store.NewMemory()
	cfg := demoServer(t, "demo")
	a := startReplica(t, gateway.HTTPOptions{SessionKeys: loadKeys(t, k1), Store: shared}, cfg)
	b := startReplica(t, gateway.HTTPOptions{SessionKeys: loadKeys(t, k2, k1), Store: shared}, cfg)
	lb := &balancer{}
	lb.to.Store(a)
	sess := connectVia(t, lb, nil)
	lb.to.Store(b)
	a.srv.CloseClientConnections()
	if _, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "rotated"}}); err != nil {
		t.Fatalf("call through the rotated replica: %v", err)
	}
	if b.gw.Rebuilt() != 1 {
		t.Fatal("B did not rebuild the session")
	}
}

// A rebuilt session is subscribed again to what it had subscribed to:
// B asks the server, and the client gets the server's updates through B.
func TestSealedSessionSubscriptionsRestored(t *testing.T) {
	const uri = "note://one"
	subscribed := make(chan struct{}, 8)
	up := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { subscribed <- struct{}{}; return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	up.AddResource(&mcp.Resource{URI: uri, Name: "one"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: "1"}}}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		for ss := range up.Sessions() {
			ss.Close()
		}
	})
	cfg := config.ServerConfig{Name: "notes", Type: config.TransportHTTP, URL: ts.URL,
		Source: config.Source{Provider: "test", Path: "sealed_test.go", Level: config.LevelExplicit}}
	opts := gateway.HTTPOptions{SessionKeys: loadKeys(t, randomKey(t)), Store: store.NewMemory()}
	a, b := startReplica(t, opts, cfg), startReplica(t, opts, cfg)
	lb := &balancer{}
	lb.to.Store(a)
	updated := make(chan string, 8)
	sess := connectVia(t, lb, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		updated <- req.Params.URI
	}})
	ctx := context.Background()
	if err := sess.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	<-subscribed // A's
	lb.to.Store(b)
	a.srv.CloseClientConnections()
	if err := sess.Ping(ctx, nil); err != nil {
		t.Fatalf("ping through B: %v", err)
	}
	select {
	case <-subscribed: // B's, restored
	case <-time.After(30 * time.Second):
		t.Fatal("B did not subscribe the rebuilt session again")
	}
	if err := up.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-updated:
		if got != uri {
			t.Fatalf("update for %q", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the update did not reach the client through B")
	}
}

// BenchmarkSealedSessionCall is what sealed sessions cost a legacy call:
// the demo server's echo through a gateway with session keys (and a
// store) beside one without, 1 and 16 callers, the contenders taking
// turns as in BenchmarkGatewayCall.
//
//	$ go test -run '^$' -bench SealedSessionCall -benchtime 2000x ./gateway/
func BenchmarkSealedSessionCall(b *testing.B) {
	args := map[string]any{"text": "hello"}
	plain := startReplica(b, gateway.HTTPOptions{}, demoServer(b, "demo"))
	sealed := startReplica(b, gateway.HTTPOptions{SessionKeys: loadKeys(b, randomKey(b)), Store: store.NewMemory()}, demoServer(b, "demo"))
	contenders := []struct {
		name string
		call func(context.Context) error
	}{
		{"plain", dialGateway(b, plain.srv.URL+gateway.Path, config.ProtocolLegacy, args)},
		{"sealed", dialGateway(b, sealed.srv.URL+gateway.Path, config.ProtocolLegacy, args)},
	}
	for round := range 2 {
		for _, callers := range []int{1, 16} {
			for i := range contenders {
				c := contenders[(i+round)%len(contenders)]
				b.Run(fmt.Sprintf("%s-x%d", c.name, callers), func(b *testing.B) { benchcall.Measure(b, c.call, callers) })
			}
		}
	}
}

// BenchmarkSessionRebuild is what a failover costs a replica per
// session: the first request (a ping) on B of a session begun on A, which
// B opens, checks with the store and rebuilds.
//
//	$ go test -run '^$' -bench SessionRebuild -benchtime 500x ./gateway/
func BenchmarkSessionRebuild(b *testing.B) {
	opts := gateway.HTTPOptions{SessionKeys: loadKeys(b, randomKey(b)), Store: store.NewMemory(), MaxSessions: 4 * b.N}
	cfg := demoServer(b, "demo")
	a, bb := startReplica(b, opts, cfg), startReplica(b, opts, cfg)
	post := func(r *replica, id, body string) (string, int) {
		req, _ := http.NewRequest(http.MethodPost, r.srv.URL+gateway.Path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
			req.Header.Set("Mcp-Protocol-Version", config.ProtocolLegacy)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.Header.Get("Mcp-Session-Id"), resp.StatusCode
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	ids := make([]string, b.N)
	for i := range ids {
		if ids[i], _ = post(a, "", initialize); ids[i] == "" {
			b.Fatal("no session id from A")
		}
	}
	b.ResetTimer()
	for i := range b.N {
		if _, code := post(bb, ids[i], pingBody); code != http.StatusOK {
			b.Fatalf("ping on B: %d", code)
		}
	}
	b.StopTimer()
	if got := bb.gw.Rebuilt(); got != int64(b.N) {
		b.Fatalf("B rebuilt %d sessions, want %d", got, b.N)
	}
	// The same pings again, now that B holds them, beside.
	start := time.Now()
	for i := range b.N {
		post(bb, ids[i], pingBody)
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "held-µs/op")
}

// The table keeps go-sdk's bounds: past MaxSessions a new session is
// refused with 503, and an idle session is closed; its id stays good, so
// the client's next request rebuilds it rather than failing.
func TestSealedSessionBounds(t *testing.T) {
	opts := gateway.HTTPOptions{SessionKeys: loadKeys(t, randomKey(t)), MaxSessions: 1, SessionIdle: 200 * time.Millisecond}
	r := startReplica(t, opts, demoServer(t, "demo"))
	lb := &balancer{}
	lb.to.Store(r)
	sess := connectVia(t, lb, nil)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"second","version":"1"}}}`
	if code, body := rawRequest(t, r, http.MethodPost, "", "", initialize); code != http.StatusServiceUnavailable || !strings.Contains(body, "too many sessions") {
		t.Errorf("a session past MaxSessions: %d %q, want 503", code, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for r.gw.Stats().Sessions != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the idle session was not closed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := sess.Ping(context.Background(), nil); err != nil {
		t.Fatalf("ping after the idle close: %v", err)
	}
	if r.gw.Rebuilt() != 1 {
		t.Fatalf("rebuilt %d, want 1", r.gw.Rebuilt())
	}
}

// A session that closes on one replica (here by its idle timer; a drain
// or an exit alike) keeps its events in the store, for its client to
// resume from on any replica; a DELETE drops them.
func TestSealedSessionKeepsEvents(t *testing.T) {
	shared := store.NewMemory()
	opts := gateway.HTTPOptions{SessionKeys: loadKeys(t, randomKey(t)), Store: shared, SessionIdle: 200 * time.Millisecond}
	r := startReplica(t, opts, demoServer(t, "demo", "--test-tools"))
	lb := &balancer{}
	lb.to.Store(r)
	logs := make(chan struct{}, 8)
	sess := connectVia(t, lb, &mcp.ClientOptions{LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) { logs <- struct{}{} }})
	ctx := context.Background()
	if err := sess.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__log", Arguments: map[string]any{"message": "kept"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-logs:
	case <-time.After(30 * time.Second):
		t.Fatal("no log line reached the client")
	}
	id := sess.ID()
	events := func() (n int, err error) {
		for _, err := range shared.Events().After(ctx, id, "", -1) {
			if err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	}
	lb.to.Store(nil) // the client goes away, and the session idles out
	deadline := time.Now().Add(10 * time.Second)
	for r.gw.Stats().Sessions != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the idle session was not closed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n, err := events(); err != nil || n == 0 {
		t.Fatalf("after the session closed here, its standalone stream's events: %d, %v; want them kept", n, err)
	}
	if code, _ := rawRequest(t, r, http.MethodDelete, id, "", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", code)
	}
	if _, err := events(); err == nil {
		t.Fatal("after DELETE the session's events are still kept")
	}
}

// A session id travels in a header on every request: an initialize whose
// capabilities would make it huge is refused, saying why.
func TestSealedSessionIDBounded(t *testing.T) {
	r := startReplica(t, gateway.HTTPOptions{SessionKeys: loadKeys(t, randomKey(t))}, demoServer(t, "demo"))
	big := strings.Repeat("x", 8<<10)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"blob":"` + big + `"}},"clientInfo":{"name":"big","version":"1"}}}`
	if code, body := rawRequest(t, r, http.MethodPost, "", "", initialize); code != http.StatusBadRequest || !strings.Contains(body, "at most 4096") {
		t.Errorf("huge initialize: %d %q, want 400 naming the bound", code, body)
	}
	if n := r.gw.Stats().Sessions; n != 0 {
		t.Errorf("%d sessions held after the refusal", n)
	}
}

// lossyStore loses the fan-out's messages, as a Redis subscription does
// while it reconnects, and then says so as the store's contract has it:
// fn(nil).
type lossyStore struct {
	*store.Memory
	mu  sync.Mutex
	fns []func([]byte)
}

func (s *lossyStore) Publish(context.Context, string, []byte) error { return nil }

func (s *lossyStore) Subscribe(_ context.Context, _ string, fn func([]byte)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fns = append(s.fns, fn)
	return nil
}

func (s *lossyStore) reconnected() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, fn := range s.fns {
		fn(nil)
	}
}

// A DELETE whose fan-out a replica missed is found when its subscription
// comes back: the replica asks the store about every session it holds.
func TestSealedSessionRevokedWhileDeaf(t *testing.T) {
	lossy := &lossyStore{Memory: store.NewMemory()}
	opts := gateway.HTTPOptions{SessionKeys: loadKeys(t, randomKey(t)), Store: lossy}
	cfg := demoServer(t, "demo")
	a, b := startReplica(t, opts, cfg), startReplica(t, opts, cfg)
	lb := &balancer{token: "ann-token"}
	lb.to.Store(a)
	id := connectVia(t, lb, nil).ID()
	if code, _ := rawRequest(t, b, http.MethodPost, id, "ann-token", pingBody); code != http.StatusOK {
		t.Fatalf("ping on B: %d", code)
	}
	if code, _ := rawRequest(t, a, http.MethodDelete, id, "ann-token", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE on A: %d", code)
	}
	if n := b.gw.Stats().Sessions; n != 1 {
		t.Fatalf("B holds %d sessions before its fan-out came back, want 1 (the message was lost)", n)
	}
	lossy.reconnected() // the store calls fn(nil) and waits for it
	if n := b.gw.Stats().Sessions; n != 0 {
		t.Fatalf("B holds %d sessions after its fan-out came back, want 0: the session DELETEd on A", n)
	}
}
