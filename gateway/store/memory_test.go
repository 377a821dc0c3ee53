package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestMemoryTake(t *testing.T) {
	m := NewMemory()
	now := time.Unix(1000, 0)
	m.now = func() time.Time { return now }
	ctx := context.Background()
	for i := range 3 {
		if ok, _, _ := m.Take(ctx, "u", 1, 3); !ok {
			t.Fatalf("take %d of a burst of 3 refused", i+1)
		}
	}
	ok, wait, _ := m.Take(ctx, "u", 1, 3)
	if ok || wait != time.Second {
		t.Fatalf("fourth take: ok %v, wait %v; want refused, 1s", ok, wait)
	}
	if ok, _, _ := m.Take(ctx, "other", 1, 3); !ok {
		t.Fatal("another key shares the bucket")
	}
	now = now.Add(500 * time.Millisecond)
	if ok, wait, _ := m.Take(ctx, "u", 1, 3); ok || wait != 500*time.Millisecond {
		t.Fatalf("half refilled: ok %v, wait %v", ok, wait)
	}
	now = now.Add(500 * time.Millisecond)
	if ok, _, _ := m.Take(ctx, "u", 1, 3); !ok {
		t.Fatal("refilled token refused")
	}
}

func TestMemorySessions(t *testing.T) {
	m := NewMemory()
	now := time.Unix(1000, 0)
	m.now = func() time.Time { return now }
	ctx := context.Background()
	if _, err := m.Session(ctx, "s"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Session of nothing: %v", err)
	}
	_ = m.PutSession(ctx, "s", []byte("level=debug"), time.Minute)
	if got, err := m.Session(ctx, "s"); err != nil || string(got) != "level=debug" {
		t.Fatalf("Session = %q, %v", got, err)
	}
	_ = m.Revoke(ctx, "s", now.Add(time.Minute))
	if r, _ := m.Revoked(ctx, "s"); !r {
		t.Fatal("revoked session not reported")
	}
	if _, err := m.Session(ctx, "s"); !errors.Is(err, ErrNotFound) {
		t.Fatal("a revoked session keeps its state")
	}
	now = now.Add(2 * time.Minute)
	if r, _ := m.Revoked(ctx, "s"); r {
		t.Fatal("revocation outlived its seal's expiry")
	}
}

func TestMemoryPublish(t *testing.T) {
	m := NewMemory()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan string, 1)
	if err := m.Subscribe(ctx, "reload", func(b []byte) { got <- string(b) }); err != nil {
		t.Fatal(err)
	}
	_ = m.Publish(ctx, "other", []byte("no"))
	_ = m.Publish(ctx, "reload", []byte("yes"))
	if s := <-got; s != "yes" {
		t.Fatalf("got %q", s)
	}
}
