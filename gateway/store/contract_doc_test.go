package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/gateway/store"
)

// A document is shared, versioned, and written only by the writer that
// read its current version: of two replicas that read one version, one
// write wins and the other is told to read again.
func TestContractDoc(t *testing.T) {
	each(t, func(t *testing.T, a, b store.Store) {
		ctx := context.Background()
		if data, v, err := b.Doc(ctx, "pins"); err != nil || data != nil || v != 0 {
			t.Fatalf("Doc of none = %q, %d, %v; want nil, 0, nil", data, v, err)
		}
		if ok, err := a.SwapDoc(ctx, "pins", 0, []byte(`{"n":1}`)); err != nil || !ok {
			t.Fatalf("first SwapDoc = %v, %v", ok, err)
		}
		data, v, err := b.Doc(ctx, "pins")
		if err != nil || string(data) != `{"n":1}` || v != 1 {
			t.Fatalf("the other replica's Doc = %q, %d, %v; want {\"n\":1}, 1", data, v, err)
		}
		// b wrote on version 1; a, still on 0, is refused and writes nothing.
		if ok, err := b.SwapDoc(ctx, "pins", 1, []byte(`{"n":2}`)); err != nil || !ok {
			t.Fatalf("SwapDoc on the current version = %v, %v", ok, err)
		}
		if ok, err := a.SwapDoc(ctx, "pins", 0, []byte(`{"n":"stale"}`)); err != nil || ok {
			t.Fatalf("SwapDoc on a stale version = %v, %v; want false", ok, err)
		}
		if ok, err := a.SwapDoc(ctx, "pins", 1, []byte(`{"n":"stale"}`)); err != nil || ok {
			t.Fatalf("SwapDoc on the version before = %v, %v; want false", ok, err)
		}
		if data, v, _ := a.Doc(ctx, "pins"); string(data) != `{"n":2}` || v != 2 {
			t.Fatalf("Doc after a refused swap = %q, %d; want {\"n\":2}, 2", data, v)
		}
		// Other keys are other documents; bytes come back as written.
		raw := []byte{0, 0xff, '\n', 'x'}
		if ok, err := a.SwapDoc(ctx, "other", 0, raw); err != nil || !ok {
			t.Fatalf("SwapDoc of another key = %v, %v", ok, err)
		}
		if data, v, _ := b.Doc(ctx, "other"); string(data) != string(raw) || v != 1 {
			t.Fatalf("Doc of another key = %q, %d", data, v)
		}
		// The caller's slice is the caller's: changing it changes nothing kept.
		raw[0] = 'z'
		if data, _, _ := b.Doc(ctx, "other"); data[0] != 0 {
			t.Fatal("the store kept the caller's slice")
		}
	})
}

// Writers racing on one document each read, change and swap until they
// win: every increment is kept, whichever replica made it.
func TestContractDocRace(t *testing.T) {
	each(t, func(t *testing.T, a, b store.Store) {
		ctx := context.Background()
		const writers, rounds = 4, 10
		var wg sync.WaitGroup
		for w := range writers {
			st := a
			if w%2 == 1 {
				st = b
			}
			wg.Go(func() {
				for range rounds {
					for {
						data, v, err := st.Doc(ctx, "count")
						if err != nil {
							t.Error(err)
							return
						}
						ok, err := st.SwapDoc(ctx, "count", v, append(data, 'x'))
						if err != nil {
							t.Error(err)
							return
						}
						if ok {
							break
						}
					}
				}
			})
		}
		wg.Wait()
		data, v, err := a.Doc(ctx, "count")
		if err != nil || len(data) != writers*rounds || v != writers*rounds {
			t.Fatalf("after %d increments: %d bytes, version %d, %v", writers*rounds, len(data), v, err)
		}
	})
}
