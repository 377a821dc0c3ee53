package pins

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// doc is a Shared in memory, as store.Memory keeps a document; before,
// when set, runs before the next Swap (once): another writer's turn.
type doc struct {
	mu     sync.Mutex
	data   []byte
	v      int64
	before func()
}

func (d *doc) Name() string { return "the test store" }

func (d *doc) Load(context.Context) ([]byte, int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.data, d.v, nil
}

func (d *doc) Swap(_ context.Context, v int64, data []byte) (bool, error) {
	d.mu.Lock()
	f := d.before
	d.before = nil
	d.mu.Unlock()
	if f != nil {
		f()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.v != v {
		return false, nil
	}
	d.data, d.v = data, v+1
	return true, nil
}

// Two replicas record listings of two servers at once: the one that lost
// the swap reads again and applies its change to the winner's, so the
// book has both.
func TestSharedUpdateLosesNothing(t *testing.T) {
	ctx := context.Background()
	d := &doc{}
	now := time.Now()
	observe := func(key string) func(*Book) (bool, error) {
		return func(b *Book) (bool, error) {
			return b.Observe(key, key, []*mcp.Tool{{Name: "echo", Description: key}}, now), nil
		}
	}
	runs := 0
	d.before = func() {
		if err := SharedUpdate(ctx, d, observe("b")); err != nil {
			t.Error(err)
		}
	}
	err := SharedUpdate(ctx, d, func(b *Book) (bool, error) {
		runs++
		return observe("a")(b)
	})
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2 {
		t.Errorf("the losing writer ran %d times, want 2 (once more on the winner's book)", runs)
	}
	b, v, err := ReadShared(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if v != 2 || len(b.Known("a")) != 1 || len(b.Known("b")) != 1 {
		t.Fatalf("version %d, a %v, b %v: want both servers' tools at version 2", v, b.Known("a"), b.Known("b"))
	}
	// Nothing changed: nothing written.
	if err := SharedUpdate(ctx, d, observe("a")); err != nil {
		t.Fatal(err)
	}
	if _, v, _ := d.Load(ctx); v != 2 {
		t.Errorf("a listing that changed nothing wrote version %d", v)
	}
}

// A document that is not a book is never written over, and says where it
// is kept.
func TestSharedUpdateRefusesGarbage(t *testing.T) {
	ctx := context.Background()
	d := &doc{data: []byte(`{"version": 99}`), v: 7}
	err := SharedUpdate(ctx, d, func(*Book) (bool, error) { return true, nil })
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "tool pins in the test store: version 99") {
		t.Fatalf("err = %v; want an *Error naming the store and the version", err)
	}
	if data, v, _ := d.Load(ctx); v != 7 || string(data) != `{"version": 99}` {
		t.Errorf("the document was written over: %q, %d", data, v)
	}
}
