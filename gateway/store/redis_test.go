package store_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/switchboard-mcp/switchboard/gateway/store"
	"github.com/switchboard-mcp/switchboard/internal/testkit/redistest"
)

// raw is a plain client on the test's Redis, to look at what the store
// wrote.
func raw(t *testing.T, srv *redistest.Server) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRedisTTLs: every key the store writes expires: a revocation with
// its seal, session state with its ttl, a stream an hour after its last
// event, a bucket once it would be full again.
func TestRedisTTLs(t *testing.T) {
	srv := redistest.Start(t)
	s := openRedis(t, srv.URL)
	c := raw(t, srv)
	ctx := context.Background()
	_ = s.Revoke(ctx, "r", time.Now().Add(time.Minute))
	_ = s.PutSession(ctx, "p", []byte("x"), 30*time.Second)
	_ = s.Events().Open(ctx, "e", "1")
	_ = s.Events().Append(ctx, "e", "1", []byte("data"))
	_, _, _ = s.Take(ctx, "b", 1, 10)
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Duration{
		"switchboard:revoked:1:r":    time.Minute,
		"switchboard:session:1:p":    30 * time.Second,
		"switchboard:evmeta:1:e:1:1": store.EventTTL,
		"switchboard:evlist:1:e:1:1": store.EventTTL,
		"switchboard:evstreams:1:e":  store.EventTTL,
		"switchboard:bucket:1:b":     11 * time.Second,
	}
	if len(keys) != len(want) {
		t.Errorf("keys %q, want %d", keys, len(want))
	}
	for k, max := range want {
		ttl, err := c.PTTL(ctx, k).Result()
		if err != nil || ttl <= 0 || ttl > max {
			t.Errorf("%s: ttl %v (%v), want in (0, %v]", k, ttl, err, max)
		}
	}
}

// TestRedisEventsBound: a stream keeps its last EventsPerStream events;
// resuming from one dropped is ErrEventsPurged, as go-sdk wants, and
// from one kept gives the rest, once and in order.
func TestRedisEventsBound(t *testing.T) {
	srv := redistest.Start(t)
	a, b := openRedis(t, srv.URL), openRedis(t, srv.URL)
	ctx := context.Background()
	ev := a.Events()
	_ = ev.Open(ctx, "s", "1")
	n := store.EventsPerStream + 10
	for i := range n {
		if err := ev.Append(ctx, "s", "1", fmt.Appendf(nil, "%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := afterErr(b.Events().After(ctx, "s", "1", 5)); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("After a dropped event: %v, want ErrEventsPurged", err)
	}
	var got []string
	for d, err := range b.Events().After(ctx, "s", "1", n-4) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(d))
	}
	if want := fmt.Sprintf("%d,%d,%d", n-3, n-2, n-1); strings.Join(got, ",") != want {
		t.Fatalf("After(%d) = %v, want %s", n-4, got, want)
	}
	// The oldest kept is the first after the dropped ones.
	first := n - store.EventsPerStream
	for d, err := range b.Events().After(ctx, "s", "1", first-1) {
		if err != nil || string(d) != fmt.Sprint(first) {
			t.Fatalf("the oldest kept: %q, %v; want %d", d, err, first)
		}
		break
	}
	// Bytes bound too: one event larger than the bound is kept alone.
	big := make([]byte, store.EventBytesPerStream+1)
	_ = ev.Append(ctx, "s", "1", big)
	if err := afterErr(b.Events().After(ctx, "s", "1", n-2)); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("After the event before a too large one: %v, want ErrEventsPurged", err)
	}
	var kept [][]byte
	for d, err := range b.Events().After(ctx, "s", "1", n-1) {
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, d)
	}
	if len(kept) != 1 || len(kept[0]) != len(big) {
		t.Fatalf("after a too large event: %d kept", len(kept))
	}
}

// TestRedisPrefixes: two gateways on one Redis, each its own prefix,
// share nothing.
func TestRedisPrefixes(t *testing.T) {
	srv := redistest.Start(t)
	a, b := openRedis(t, srv.URL+"?prefix=team-a:"), openRedis(t, srv.URL+"?prefix=team-b:")
	ctx := context.Background()
	_ = a.Revoke(ctx, "s", time.Now().Add(time.Minute))
	if r, _ := b.Revoked(ctx, "s"); r {
		t.Fatal("a revocation of one gateway ends another's session")
	}
	_, _, _ = a.Take(ctx, "u", 0.01, 1)
	if ok, _, _ := b.Take(ctx, "u", 0.01, 1); !ok {
		t.Fatal("two gateways share a bucket")
	}
	if _, err := store.Open(srv.URL + "?prefix="); err == nil || !strings.Contains(err.Error(), "prefix") {
		t.Fatalf("an empty prefix: %v", err)
	}
}

// TestRedisOpenErrors: a url Open refuses says which store and why in
// one line, with its password masked.
func TestRedisOpenErrors(t *testing.T) {
	const secret = "hunter2-very-secret"
	srv := redistest.Start(t, "--requirepass", secret)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	for _, tc := range []struct{ url, want string }{
		{"redis://:" + secret + "@" + closed + "/0", "does not answer"},
		{"redis://:" + secret + "-wrong@" + srv.Addr + "/0", "WRONGPASS"},
		{"redis://" + srv.Addr + "/0", "NOAUTH"},
		{"redis://" + srv.Addr + "/0?password=" + secret + "&bogus=1", "unexpected option"},
		{"memcached://" + srv.Addr, "want redis://"},
	} {
		_, err := store.Open(tc.url)
		if err == nil {
			t.Errorf("Open(%s) worked", tc.url)
			continue
		}
		msg := err.Error()
		t.Logf("Open: %s", msg)
		if strings.Contains(msg, secret) || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
			t.Errorf("Open: %q; want one line with %q, no password", msg, tc.want)
		}
	}
	// The right one opens.
	s := openRedis(t, "redis://:"+secret+"@"+srv.Addr+"/0")
	if err := s.PutSession(context.Background(), "s", []byte("x"), time.Minute); err != nil {
		t.Fatal(err)
	}
}

// TestRedisDown: Redis stops under a running store. Each method then
// fails at once with an error naming the store (the caller decides:
// DESIGN.md, "The shared store on Redis"), a subscription's goroutine
// waits without spinning and ends with its context, and Close returns.
func TestRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	s := openRedis(t, srv.URL)
	ctx := context.Background()
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan string, 100)
	if err := s.Subscribe(subCtx, "t", func(m []byte) { got <- string(m) }); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	name := "store " + srv.URL
	checks := map[string]error{}
	_, checks["Revoked"] = s.Revoked(ctx, "s")
	checks["Revoke"] = s.Revoke(ctx, "s", time.Now().Add(time.Minute))
	_, checks["Session"] = s.Session(ctx, "s")
	checks["PutSession"] = s.PutSession(ctx, "s", nil, time.Minute)
	checks["Publish"] = s.Publish(ctx, "t", nil)
	_, _, checks["Take"] = s.Take(ctx, "k", 1, 1)
	checks["Append"] = s.Events().Append(ctx, "s", "1", nil)
	checks["After"] = afterErr(s.Events().After(ctx, "s", "1", 0))
	checks["Subscribe"] = s.Subscribe(ctx, "t", func([]byte) {})
	checks["Ping"] = s.(interface{ Ping(context.Context) error }).Ping(ctx)
	for m, err := range checks {
		if err == nil || !strings.HasPrefix(err.Error(), name) {
			t.Errorf("%s with Redis down: %v; want an error naming %s", m, err, name)
		}
	}
	if _, err := s.Session(ctx, "s"); errors.Is(err, store.ErrNotFound) {
		t.Error("Session with Redis down says the state is not there: a replica would drop it")
	}

	// Redis back: the store works again, and the subscription, which
	// resubscribed on its own, says messages may have been lost (nil),
	// then gets what is published from then on.
	// Both moments are go-redis' own (after many failed dials its pool
	// fails at once, and dials again each second in the background):
	// publish until a message arrives, each a fresh one.
	srv.Restart()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	lost := false
	for i := 0; ; i++ {
		_ = s.Publish(ctx, "t", fmt.Appendf(nil, "back %d", i))
		select {
		case m := <-got:
			if m == "" {
				lost = true
				continue
			}
			if !lost {
				t.Fatalf("a message %q before the store said messages were lost", m)
			}
			t.Logf("subscription resumed after %d publishes, said so, then got %q", i+1, m)
			if err := s.PutSession(ctx, "s", []byte("back"), time.Minute); err != nil {
				t.Fatalf("PutSession with Redis back: %v", err)
			}
			cancel()
			return
		case <-tick.C:
		case <-deadline:
			t.Fatal("the subscription never resumed after Redis came back")
		}
	}
}

// TestRedisEventsGap: events a replica could not store while Redis was
// down are counted; a replay across them is refused as purged, and once
// Redis is back the next event gets the index go-sdk gave it, on every
// replica.
func TestRedisEventsGap(t *testing.T) {
	// With its append-only file, Redis keeps the events over a restart:
	// what is missing is only what the replica could not send.
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
	a, b := openRedis(t, srv.URL), openRedis(t, srv.URL)
	ctx := context.Background()
	ev := a.Events()
	_ = ev.Open(ctx, "s", "1")
	_ = ev.Append(ctx, "s", "1", []byte("zero"))
	_ = ev.Append(ctx, "s", "1", []byte("one"))
	srv.Stop()
	if err := ev.Open(ctx, "s", "2"); err != nil {
		t.Fatalf("Open with Redis down: %v; a session must go on", err)
	}
	if err := ev.Append(ctx, "s", "1", []byte("two")); err == nil {
		t.Fatal("Append with Redis down worked")
	}
	srv.Restart()
	// Every Append until go-redis dials again is an event missed too,
	// as go-sdk sends it anyway.
	missed := 1
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for ev.Append(ctx, "s", "1", []byte("back")) != nil {
		missed++
		if err := afterErr(ev.After(ctx, "s", "1", 1)); !errors.Is(err, mcp.ErrEventsPurged) {
			t.Fatalf("a replay across missed events: %v, want ErrEventsPurged", err)
		}
		<-tick.C
		if missed > 1000 {
			t.Fatal("Redis never came back")
		}
	}
	back := 2 + missed // the index go-sdk gave "back"
	got := collect(t, b.Events().After(ctx, "s", "1", back-1))
	if got != "back" {
		t.Fatalf("After(%d) on the other replica = %q, want back", back-1, got)
	}
	if err := afterErr(b.Events().After(ctx, "s", "1", 0)); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("After(0), across the gap: %v, want ErrEventsPurged", err)
	}
}

// TestRedisEventsLost: Redis restarted without persistence lost the
// streams; one a replica appends to again is marked broken, and replays
// from it are refused as purged rather than shifted.
func TestRedisEventsLost(t *testing.T) {
	srv := redistest.Start(t)
	a, b := openRedis(t, srv.URL), openRedis(t, srv.URL)
	ctx := context.Background()
	ev := a.Events()
	_ = ev.Open(ctx, "s", "1")
	_ = ev.Append(ctx, "s", "1", []byte("zero"))
	srv.Restart()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for n := 0; ev.Append(ctx, "s", "1", []byte("after")) != nil; n++ {
		<-tick.C
		if n > 1000 {
			t.Fatal("Redis never came back")
		}
	}
	for _, index := range []int{-1, 0, 1, 5} {
		if err := afterErr(b.Events().After(ctx, "s", "1", index)); !errors.Is(err, mcp.ErrEventsPurged) {
			t.Errorf("After(%d) of a stream Redis lost: %v, want ErrEventsPurged", index, err)
		}
	}
}

// BenchmarkRedis: what each shared-state call costs a request, one
// round trip to a loopback Redis each.
func BenchmarkRedis(b *testing.B) {
	srv := redistest.Start(b)
	s, err := store.Open(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	_ = s.Events().Open(ctx, "bench", "1")
	data := make([]byte, 512)
	for _, bc := range []struct {
		name string
		fn   func() error
	}{
		{"Revoked", func() error { _, err := s.Revoked(ctx, "s"); return err }},
		{"Take", func() error { _, _, err := s.Take(ctx, "u", 1e9, 1e9); return err }},
		{"Append512B", func() error { return s.Events().Append(ctx, "bench", "1", data) }},
		{"PutSession", func() error { return s.PutSession(ctx, "s", data[:64], time.Hour) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if err := bc.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRedisSessionClosed: a session's DELETE drops its events, every
// stream of it, for every replica.
func TestRedisSessionClosed(t *testing.T) {
	srv := redistest.Start(t)
	a, b := openRedis(t, srv.URL), openRedis(t, srv.URL)
	c := raw(t, srv)
	ctx := context.Background()
	for _, stream := range []string{"", "1"} {
		_ = a.Events().Open(ctx, "s", stream)
		_ = a.Events().Append(ctx, "s", stream, []byte("kept"))
	}
	_ = a.Events().Open(ctx, "other", "1")
	if err := b.Events().SessionClosed(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	keys, _ := c.Keys(ctx, "switchboard:ev*").Result()
	if len(keys) != 2 || !strings.Contains(strings.Join(keys, " "), "other") {
		t.Fatalf("keys after SessionClosed: %q, want the other session's alone", keys)
	}
	if err := afterErr(a.Events().After(ctx, "s", "1", -1)); err == nil {
		t.Fatal("a closed session's events replayed")
	}
}
