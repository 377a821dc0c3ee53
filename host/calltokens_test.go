package host

import (
	"context"
	"strconv"
	"sync"
	"testing"
)

func TestCallTokens(t *testing.T) {
	var c callTokens
	token, n := c.track(context.Background(), "mcp__a__x")
	if got := c.tool(token); got != "mcp__a__x" {
		t.Errorf("tool(%q) = %q while in flight", token, got)
	}
	for _, foreign := range []any{"other-1", tokenPrefix + "x", tokenPrefix + "0" + strconv.FormatUint(n, 10), float64(n), nil} {
		if got := c.tool(foreign); got != "" {
			t.Errorf("tool(%v) = %q, want none", foreign, got)
		}
	}
	// An ended call keeps its token for finishedCalls more calls.
	c.untrack(n)
	for i := range finishedCalls {
		if got := c.tool(token); got != "mcp__a__x" {
			t.Fatalf("forgotten after %d calls", i)
		}
		_, m := c.track(context.Background(), "mcp__a__y")
		c.untrack(m)
	}
	if got := c.tool(token); got != "" {
		t.Errorf("still known after %d calls: %q", finishedCalls, got)
	}
}

func TestCallTokensConcurrent(t *testing.T) {
	var c callTokens
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				token, n := c.track(context.Background(), "t")
				if c.tool(token) != "t" {
					t.Error("a token in flight is not known")
				}
				c.untrack(n)
			}
		})
	}
	wg.Wait()
	if len(c.inflight) > finishedCalls {
		t.Errorf("%d tokens kept, want at most %d", len(c.inflight), finishedCalls)
	}
}
