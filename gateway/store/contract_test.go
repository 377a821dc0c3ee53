package store_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/gateway/store"
	"github.com/switchboard-mcp/switchboard/internal/testkit/redistest"
)

// backends are the stores every contract test runs against: two clients
// of one store, as two replicas have. Memory's two are the same store.
var backends = []struct {
	name string
	open func(t *testing.T) (a, b store.Store)
}{
	{"memory", func(t *testing.T) (store.Store, store.Store) {
		m := store.NewMemory()
		t.Cleanup(func() { m.Close() })
		return m, m
	}},
	{"redis", func(t *testing.T) (store.Store, store.Store) {
		srv := redistest.Start(t)
		return openRedis(t, srv.URL), openRedis(t, srv.URL)
	}},
}

func openRedis(t *testing.T, url string) store.Store {
	t.Helper()
	s, err := store.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func each(t *testing.T, test func(t *testing.T, a, b store.Store)) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			a, b := be.open(t)
			test(t, a, b)
		})
	}
}

func TestContractRevoke(t *testing.T) {
	each(t, func(t *testing.T, a, b store.Store) {
		ctx := context.Background()
		if r, err := b.Revoked(ctx, "s1"); err != nil || r {
			t.Fatalf("Revoked of a live session = %v, %v", r, err)
		}
		if err := a.PutSession(ctx, "s1", []byte("level=debug"), time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := a.Revoke(ctx, "s1", time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if r, err := b.Revoked(ctx, "s1"); err != nil || !r {
			t.Fatalf("the other replica's Revoked = %v, %v; want true", r, err)
		}
		if _, err := b.Session(ctx, "s1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a revoked session keeps its state: %v", err)
		}
		if r, _ := b.Revoked(ctx, "s2"); r {
			t.Fatal("another session is revoked too")
		}
		// A seal already expired needs no revocation.
		if err := a.Revoke(ctx, "s3", time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if r, _ := b.Revoked(ctx, "s3"); r {
			t.Fatal("a revocation past its expiry is reported")
		}
	})
}

func TestContractSession(t *testing.T) {
	each(t, func(t *testing.T, a, b store.Store) {
		ctx := context.Background()
		if _, err := b.Session(ctx, "s"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("Session of nothing: %v", err)
		}
		state := []byte("level=debug\x00subs=file:///a\xff")
		if err := a.PutSession(ctx, "s", state, time.Minute); err != nil {
			t.Fatal(err)
		}
		got, err := b.Session(ctx, "s")
		if err != nil || string(got) != string(state) {
			t.Fatalf("the other replica's Session = %q, %v", got, err)
		}
		if err := b.PutSession(ctx, "s", []byte("level=info"), time.Minute); err != nil {
			t.Fatal(err)
		}
		if got, _ := a.Session(ctx, "s"); string(got) != "level=info" {
			t.Fatalf("state replaced on one replica reads %q on the other", got)
		}
	})
}

func TestContractEvents(t *testing.T) {
	each(t, func(t *testing.T, a, b store.Store) {
		ctx := context.Background()
		ea, eb := a.Events(), b.Events()
		if err := ea.Open(ctx, "sess", "7"); err != nil {
			t.Fatal(err)
		}
		// go-sdk's priming event is empty data, and counts.
		for _, d := range []string{"", "one", "two", "three"} {
			if err := ea.Append(ctx, "sess", "7", []byte(d)); err != nil {
				t.Fatal(err)
			}
		}
		// A client that saw event 1 ("one") resumes on the other replica.
		if got := collect(t, eb.After(ctx, "sess", "7", 1)); got != "two,three" {
			t.Fatalf("After(1) on the other replica = %q, want two,three", got)
		}
		if got := collect(t, eb.After(ctx, "sess", "7", 3)); got != "" {
			t.Fatalf("After the last = %q, want nothing", got)
		}
		// Appends from both replicas, in order.
		_ = eb.Append(ctx, "sess", "7", []byte("four"))
		_ = ea.Append(ctx, "sess", "7", []byte("five"))
		if got := collect(t, ea.After(ctx, "sess", "7", 2)); got != "three,four,five" {
			t.Fatalf("After(2) = %q", got)
		}
		// Another stream of the session is its own.
		_ = ea.Open(ctx, "sess", "")
		_ = ea.Append(ctx, "sess", "", []byte("standalone"))
		if got := collect(t, eb.After(ctx, "sess", "", -1)); got != "standalone" {
			t.Fatalf("the standalone stream = %q", got)
		}
		if err := afterErr(eb.After(ctx, "sess", "8", 0)); err == nil {
			t.Fatal("After of a stream never opened: no error")
		}
		if err := eb.SessionClosed(ctx, "sess"); err != nil {
			t.Fatal(err)
		}
	})
}

func collect(t *testing.T, seq func(func([]byte, error) bool)) string {
	t.Helper()
	var got []string
	for d, err := range seq {
		if err != nil {
			t.Fatalf("After: %v", err)
		}
		if len(d) > 0 {
			got = append(got, string(d))
		}
	}
	return strings.Join(got, ",")
}

func afterErr(seq func(func([]byte, error) bool)) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestContractPublish(t *testing.T) {
	each(t, func(t *testing.T, a, b store.Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		gotA, gotB := make(chan string, 10), make(chan string, 10)
		if err := a.Subscribe(ctx, "reload", func(m []byte) { gotA <- string(m) }); err != nil {
			t.Fatal(err)
		}
		if err := b.Subscribe(ctx, "reload", func(m []byte) { gotB <- string(m) }); err != nil {
			t.Fatal(err)
		}
		// Subscribe has returned: what is published now reaches both.
		for i := range 3 {
			if err := a.Publish(ctx, "reload", fmt.Appendf(nil, "m%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		_ = b.Publish(ctx, "other", []byte("not for reload"))
		for i := range 3 {
			want := fmt.Sprintf("m%d", i)
			if got := <-gotA; got != want {
				t.Fatalf("publisher's own subscriber got %q, want %q", got, want)
			}
			if got := <-gotB; got != want {
				t.Fatalf("the other replica got %q, want %q", got, want)
			}
		}
	})
}

func TestContractTake(t *testing.T) {
	each(t, func(t *testing.T, a, b store.Store) {
		ctx := context.Background()
		// A rate slow enough that the test's own time refills nothing
		// that matters: one token per 100 s.
		const rate = 0.01
		for i, s := range []store.Store{a, b, a} {
			ok, _, err := s.Take(ctx, "user:1", rate, 3)
			if err != nil || !ok {
				t.Fatalf("take %d of a burst of 3 shared by two replicas: %v, %v", i+1, ok, err)
			}
		}
		ok, wait, err := b.Take(ctx, "user:1", rate, 3)
		if err != nil || ok {
			t.Fatalf("fourth take: %v, %v; want refused", ok, err)
		}
		if wait < 99*time.Second || wait > 100*time.Second {
			t.Fatalf("wait %v, want about 100 s", wait)
		}
		if ok, _, _ := a.Take(ctx, "user:2", rate, 3); !ok {
			t.Fatal("another key shares the bucket")
		}
		// A rate of zero never refills.
		if ok, _, _ := a.Take(ctx, "once", 0, 1); !ok {
			t.Fatal("the one token of a rate-0 bucket refused")
		}
		if ok, wait, _ := b.Take(ctx, "once", 0, 1); ok || wait != time.Duration(math.MaxInt64) {
			t.Fatalf("rate 0, empty: %v, %v; want refused for ever", ok, wait)
		}
	})
}

// TestContractTakeRefills: a bucket refills at its rate, with the time
// the store keeps (Redis' own clock). A fast rate, so the test waits for
// the refill the store reports, not a guess.
func TestContractTakeRefills(t *testing.T) {
	each(t, func(t *testing.T, a, b store.Store) {
		ctx := context.Background()
		const rate = 50 // a token every 20 ms
		if ok, _, _ := a.Take(ctx, "k", rate, 1); !ok {
			t.Fatal("first take refused")
		}
		ok, wait, err := b.Take(ctx, "k", rate, 1)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return // 20 ms passed between the two takes: nothing to see
		}
		if wait <= 0 || wait > 20*time.Millisecond {
			t.Fatalf("wait %v, want in (0, 20ms]", wait)
		}
		<-time.After(wait)
		if ok, wait, _ := a.Take(ctx, "k", rate, 1); !ok {
			t.Fatalf("refused after the wait the store gave; wait now %v", wait)
		}
	})
}

// TestContractSubscriptionEnds: a subscription's goroutine ends with its
// context, the store still open; the store's Close then ends the rest.
func TestContractSubscriptionEnds(t *testing.T) {
	each(t, func(t *testing.T, a, _ store.Store) {
		ctx := context.Background()
		// The store's own connection, before the goroutines are counted.
		_ = a.Publish(ctx, "warm", nil)
		before := goleak.IgnoreCurrent()
		subCtx, cancel := context.WithCancel(ctx)
		got := make(chan string, 1)
		if err := a.Subscribe(subCtx, "t", func(m []byte) { got <- string(m) }); err != nil {
			t.Fatal(err)
		}
		_ = a.Publish(ctx, "t", []byte("one"))
		if m := <-got; m != "one" {
			t.Fatalf("got %q", m)
		}
		cancel()
		goleak.VerifyNone(t, before)
	})
}
