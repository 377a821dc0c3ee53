package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/gateway/store"
)

// TestContractKeysAreOpaque: a session id, a stream id, a topic or a
// bucket name may hold any byte a client can send (":" "*" "?" "[" and
// spaces): each is its own key, never a pattern nor a way into another's.
// On Redis a naive "prefix:session:stream" join would let session "a"
// stream "b:c" read session "a:b" stream "c"; a glob would let "s*" end
// every session starting with s.
func TestContractKeysAreOpaque(t *testing.T) {
	each(t, func(t *testing.T, a, b store.Store) {
		ctx := context.Background()
		ea, eb := a.Events(), b.Events()
		// Two (session, stream) pairs that one separator would join alike.
		pairs := [][2]string{{"a", "b:c"}, {"a:b", "c"}, {"a:1:b", "c"}, {"s*", "1"}, {"s1", "1"}}
		for _, p := range pairs {
			if err := ea.Open(ctx, p[0], p[1]); err != nil {
				t.Fatal(err)
			}
			if err := ea.Append(ctx, p[0], p[1], []byte(p[0]+"|"+p[1])); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range pairs {
			if got := collect(t, eb.After(ctx, p[0], p[1], -1)); got != p[0]+"|"+p[1] {
				t.Errorf("session %q stream %q reads %q, want its own event alone", p[0], p[1], got)
			}
		}
		// Ending "s*" ends that session alone: s1's events stay.
		if err := eb.SessionClosed(ctx, "s*"); err != nil {
			t.Fatal(err)
		}
		if got := collect(t, ea.After(ctx, "s1", "1", -1)); got != "s1|1" {
			t.Errorf("after SessionClosed(s*), s1 reads %q", got)
		}
		// Revocations, kept state and buckets alike.
		for _, id := range []string{"x*", "x?", "x[a-z]", "x:y", "x y"} {
			if err := a.Revoke(ctx, id, time.Now().Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.PutSession(ctx, "x*", []byte("star"), time.Minute); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"x", "xa", "xb", "x:", "x"} {
			if r, err := b.Revoked(ctx, id); err != nil || r {
				t.Errorf("Revoked(%q) = %v, %v after revoking look-alike patterns", id, r, err)
			}
			if _, err := b.Session(ctx, id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Session(%q): %v, want not found", id, err)
			}
		}
		if ok, _, _ := a.Take(ctx, "rate:user:user:*", 0.001, 1); !ok {
			t.Fatal("first take")
		}
		if ok, _, _ := b.Take(ctx, "rate:user:user:alice", 0.001, 1); !ok {
			t.Error("a bucket named with * took alice's token")
		}
	})
}
