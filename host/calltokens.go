package host

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// tokenPrefix starts every progress token the host hands out.
const tokenPrefix = "switchboard-"

// finishedCalls is how many ended calls keep their progress token. go-sdk
// handles notifications on another goroutine than responses, so a server's
// last progress report, sent just before its result, is often handled after
// CallTool has returned; it must still name its tool. Tokens are never
// reused, so keeping a few hundred costs little and misleads no one.
const finishedCalls = 256

// callTokens names the tool of each call's progress token (DESIGN.md F23).
// It has a lock of its own, not the host's: a call takes it twice, when it
// starts and when it ends, and nothing else waits on it.
type callTokens struct {
	seq      atomic.Uint64
	mu       sync.Mutex
	inflight map[uint64]tracked // token number -> the call
	// finished holds the tokens of the last finishedCalls calls to end,
	// which stay in inflight until pushed out.
	finished [finishedCalls]uint64
	next     int
}

// tracked is a call: its exposed tool, whom to tell of its progress
// besides the events (WithProgress), if anyone, and while it is in flight
// its context, for the requests it leads to (callerContext).
type tracked struct {
	tool     string
	progress func(Progress, string)
	ctx      context.Context
}

// track registers an in-flight call of tool, made under ctx, under a
// fresh token.
func (c *callTokens) track(ctx context.Context, tool string) (token string, n uint64) {
	n = c.seq.Add(1)
	c.mu.Lock()
	if c.inflight == nil {
		c.inflight = map[uint64]tracked{}
	}
	c.inflight[n] = tracked{tool, progressFrom(ctx), ctx}
	c.mu.Unlock()
	return tokenPrefix + strconv.FormatUint(n, 10), n
}

// only is the context of the one call to server in flight; nil when
// there is none or there are several, which a request cannot tell apart.
func (c *callTokens) only(server string) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	var found context.Context
	for _, t := range c.inflight {
		if t.ctx == nil {
			continue
		}
		if call, _ := CallerOf(t.ctx); call.Server == server {
			if found != nil {
				return nil
			}
			found = t.ctx
		}
	}
	return found
}

// untrack marks a call as ended; its token is forgotten finishedCalls
// calls later.
func (c *callTokens) untrack(n uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.inflight[n]; ok {
		t.ctx = nil // ended: no longer anyone's caller
		c.inflight[n] = t
	}
	if old := c.finished[c.next]; old != 0 {
		delete(c.inflight, old)
	}
	c.finished[c.next] = n
	c.next = (c.next + 1) % finishedCalls
}

// tool names the tool a progress token belongs to, or "" for a token that
// is not the host's or no longer known.
func (c *callTokens) tool(token any) string { return c.call(token).tool }

// call is the call a progress token belongs to; zero for a token that is
// not the host's or no longer known.
func (c *callTokens) call(token any) tracked {
	t, ok := token.(string)
	if !ok {
		return tracked{}
	}
	digits, ok := strings.CutPrefix(t, tokenPrefix)
	if !ok {
		return tracked{}
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || strconv.FormatUint(n, 10) != digits {
		return tracked{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inflight[n]
}
