package gateway

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway/store"
)

// Rate is a token bucket: Rate calls a second on average, Burst at once.
type Rate struct {
	Rate  float64
	Burst int
}

// Limits bound the tool calls that come through one Handler (DESIGN.md
// F65), in buckets of HTTPOptions.Store: every replica with the same
// store draws on the same buckets. A call past one is answered with a
// tool error saying when to try again, and never reaches its server.
type Limits struct {
	// PerUser bounds each caller's calls, of every tool together; the
	// caller is CallerOf's (a user, a token's digest, or, unauthenticated,
	// everyone at once). Nil bounds none.
	PerUser *Rate
	// PerTool bounds the calls of a tool, by its exposed name, by every
	// caller together: what protects a server (and the credentials it
	// calls out with) from the whole team at once.
	PerTool map[string]Rate
}

// ErrRateLimited is the error a refused call ends with (Options.Calls'
// CallEnd.Err); the client gets a tool error.
var ErrRateLimited = errors.New("rate limit")

// handlerHeader tags each request with the Handler it came through, so
// that a tool handler, which go-sdk gives the request's header but not
// its context, finds that Handler's limits. A client's own value is
// replaced.
const handlerHeader = "Switchboard-Handler"

// handlerState is what a tool call needs of the Handler it came through.
type handlerState struct {
	limits *Limits
	store  store.Store
}

// addHandler keeps st for the calls of a Handler, and returns its tag.
func (g *Gateway) addHandler(st *handlerState) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.handlers == nil {
		g.handlers = map[string]*handlerState{}
	}
	id := strconv.Itoa(len(g.handlers) + 1)
	g.handlers[id] = st
	return id
}

// handlerOf is the state of the Handler a request came through, nil over
// stdio and for a Handler without limits.
func (g *Gateway) handlerOf(extra *mcp.RequestExtra) *handlerState {
	if extra == nil || extra.Header == nil {
		return nil
	}
	id := extra.Header.Get(handlerHeader)
	if id == "" {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.handlers[id]
}

// tagRequest marks r as come through the Handler tagged id ("" for none).
func tagRequest(r *http.Request, id string) {
	r.Header.Del(handlerHeader)
	if id != "" {
		r.Header.Set(handlerHeader, id)
	}
}

// limited takes a token from each bucket a call of the tool exposed as
// name draws on, and returns the tool error of a refusal, or nil.
// Without the store's answer the call is refused: a limit that fails
// open when Redis is down is no limit.
func (g *Gateway) limited(ctx context.Context, extra *mcp.RequestExtra, name string) *mcp.CallToolResult {
	st := g.handlerOf(extra)
	if st == nil || st.limits == nil {
		return nil
	}
	if r := st.limits.PerUser; r != nil {
		who := callerOfExtra(extra)
		if who == "" {
			who = "anonymous"
		}
		if res := g.take(ctx, st.store, "user", "rate:user:"+who, *r, "your calls"); res != nil {
			return res
		}
	}
	if r, ok := st.limits.PerTool[name]; ok {
		return g.take(ctx, st.store, "tool", "rate:tool:"+name, r, "calls of "+name)
	}
	return nil
}

func (g *Gateway) take(ctx context.Context, s store.Store, limit, key string, r Rate, what string) *mcp.CallToolResult {
	ok, wait, err := s.Take(ctx, key, r.Rate, r.Burst)
	switch {
	case err != nil:
		g.log.Warn("call refused: the rate limits' store did not answer", "error", err)
		g.counts.limited(limitStore)
		return toolError(fmt.Errorf("%w: the limits' store is unavailable; try again later", ErrRateLimited))
	case !ok:
		g.counts.limited(limit)
		secs := math.Ceil(wait.Seconds()*10) / 10
		return toolError(fmt.Errorf("%w: try again in %.1f s (%s: %s a second, %d at once)", ErrRateLimited, max(secs, 0.1), what,
			strconv.FormatFloat(r.Rate, 'f', -1, 64), r.Burst))
	}
	return nil
}

// limitStore counts refusals because the store did not answer.
const limitStore = "store"
