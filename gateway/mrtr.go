package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// A client of the 2026-07-28 era cannot be sent requests: a server asks it
// for input in an input-required result, and the client calls again with
// the answers. When an upstream asks for input during such a client's
// call, the gateway keeps the call running upstream (a round, below),
// answers the client with an input-required result naming the round, and
// hands the answers the client comes back with to the upstream's waiting
// request; then it waits for the call's result, or the next question.

// roundIdle is how long a round waits for the client to come back, with
// its answers (then the upstream's request is refused) or for the result
// (then the round is dropped). The upstream call itself is bounded only by
// the server's own timeout.
var roundIdle = 5 * time.Minute

// round is one client call of the new era whose upstream call is still
// running.
type round struct {
	id     string // the requestState the client echoes: unguessable
	asks   chan ask
	done   chan callOutcome
	ctx    context.Context // the round's life: ended by cancel (the client's call ended, or Run did)
	cancel context.CancelFunc
	caps   *mcp.ClientCapabilities // the client's, from its request's _meta
	mu     sync.Mutex
	// notify passes progress on to the client through the request being
	// served now (a new-era server sends notifications only within one);
	// nil between the client's requests, when progress is dropped.
	notify  func(host.Progress, string)
	waiting map[string]ask // asks sent to the client, by input key; nil until the first
	seq     int
	// binding is the caller and request the round belongs to: a
	// requestState, sealed or bare, continues it only for them; answered, when the round runs again on a replica that
	// did not start it, the client's answers to questions asked before
	// (mrtrseal.go).
	binding  *roundBinding
	answered mcp.InputResponseMap
}

type ask struct {
	key   string
	req   mcp.InputRequest
	reply chan mcp.InputResponse
}

type callOutcome struct {
	res *mcp.CallToolResult
	err error
}

type roundKey struct{}

// modernClient reports whether ss is a session of the new era.
func modernClient(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= config.ProtocolModern
}

// callRound runs a tool call for a client of the new era: a call with a
// requestState continues its round; any other starts one.
func (g *Gateway) callRound(ctx context.Context, req *mcp.CallToolRequest, v *view, hv *host.View, name, server string, args any) (*mcp.CallToolResult, error) {
	var notify func(host.Progress, string)
	if tok := req.Params.GetProgressToken(); tok != nil {
		ss := req.Session
		notify = func(p host.Progress, msg string) {
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p.Progress, Total: p.Total, Message: msg})
		}
	}
	var r *round
	var answers mcp.InputResponseMap // a round run again here (mrtrseal.go)
	if state := req.Params.RequestState; state != "" {
		var err error
		if r, err = g.roundOf(req, state); err != nil {
			return nil, err
		}
		if r != nil {
			r.setNotify(notify)
			r.answer(req.Params.InputResponses)
		} else {
			answers = req.Params.InputResponses
		}
	}
	if r == nil {
		end, err := g.admitTool(ctx, req, v, hv, name, server)
		if err != nil {
			return nil, err
		}
		if res := g.limited(ctx, req.Extra, name); res != nil {
			end(CallEnd{Result: res, Err: ErrRateLimited})
			return res, nil
		}
		r = g.startRound(ctx, hv, name, server, args, req, notify, end, answers)
	}
	defer r.setNotify(nil)
	select {
	case out := <-r.done:
		g.endRound(r)
		return out.res, out.err
	case a := <-r.asks:
		r.mu.Lock()
		if r.waiting == nil {
			r.waiting = map[string]ask{}
		}
		r.waiting[a.key] = a
		r.mu.Unlock()
		res := &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{a.key: a.req}, RequestState: g.stateOf(r)}
		g.parks(r)
		return res, nil
	case <-ctx.Done():
		// The client cancelled the call: the upstream's is cancelled too.
		g.endRound(r)
		return nil, ctx.Err()
	}
}

// The round's call outlives the request that starts it, so it takes
// that request's values (its trace span: DESIGN.md, "Observing"), not its
// end.
func (g *Gateway) startRound(reqCtx context.Context, hv *host.View, name, server string, args any, req *mcp.CallToolRequest, notify func(host.Progress, string), end func(CallEnd), answers mcp.InputResponseMap) *round {
	ctx, cancel := context.WithCancel(context.WithoutCancel(reqCtx))
	r := &round{id: rand.Text(), asks: make(chan ask), done: make(chan callOutcome, 1), ctx: ctx, cancel: cancel, notify: notify,
		binding: bindingOf(req), answered: maps.Clone(answers)}
	if p := req.Session.InitializeParams(); p != nil {
		r.caps = p.Capabilities
	}
	g.mu.Lock()
	if g.rounds == nil {
		g.rounds = map[string]*round{}
	}
	g.rounds[r.id] = r
	g.mu.Unlock()
	ctx = context.WithValue(ctx, roundKey{}, r)
	ctx = host.WithProgress(ctx, func(p host.Progress, msg string) {
		r.mu.Lock()
		notify := r.notify
		r.mu.Unlock()
		if notify != nil {
			notify(p, msg)
		}
	})
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer g.calls(server, caller{r: r})()
		res, err := hv.CallTool(ctx, name, args)
		end(CallEnd{Result: res, Err: err})
		res, err = g.reply(r.binding.caller, res, err)
		r.done <- callOutcome{res, err}
		// A client that never comes back for the result leaves the round
		// behind: drop it after a while.
		idle := time.NewTimer(roundIdle)
		defer idle.Stop()
		select {
		case <-r.ctx.Done():
		case <-idle.C:
			g.endRound(r)
		}
	}()
	return r
}

func (g *Gateway) endRound(r *round) {
	r.cancel()
	g.mu.Lock()
	delete(g.rounds, r.id)
	g.mu.Unlock()
}

func (r *round) setNotify(fn func(host.Progress, string)) {
	r.mu.Lock()
	r.notify = fn
	r.mu.Unlock()
}

// answer hands the client's answers to the upstream requests waiting on them.
func (r *round) answer(responses mcp.InputResponseMap) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, resp := range responses {
		if a, ok := r.waiting[key]; ok {
			delete(r.waiting, key)
			a.reply <- resp
		}
	}
}

// askClient puts an upstream's request for input to the round's client,
// and waits for the answer.
func (r *round) askClient(ctx context.Context, kind string, req mcp.InputRequest) (mcp.InputResponse, error) {
	r.mu.Lock()
	r.seq++
	a := ask{key: fmt.Sprintf("%s-%d", kind, r.seq), req: req, reply: make(chan mcp.InputResponse, 1)}
	resp, known := r.answered[a.key]
	delete(r.answered, a.key)
	r.mu.Unlock()
	if known { // asked and answered before the round moved here
		return resp, nil
	}
	// The upstream's request may come with a context of its own (a
	// request of the legacy era's), which the round's end must end too:
	// else a round nobody comes back to holds the upstream's request, and
	// the host's close waits for it.
	select {
	case r.asks <- a:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.ctx.Done():
		return nil, errRoundEnded
	}
	idle := time.NewTimer(roundIdle)
	defer idle.Stop()
	select {
	case resp := <-a.reply:
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.ctx.Done():
		return nil, errRoundEnded
	case <-idle.C:
		return nil, errRoundEnded
	}
}

// errRoundEnded is an upstream's input request whose client did not come
// back with the answer in time, or gave the call up.
var errRoundEnded = errors.New("switchboard: the client did not answer the input request (its call ended)")

func roundFrom(ctx context.Context) *round {
	r, _ := ctx.Value(roundKey{}).(*round)
	return r
}

// sampleViaRound asks a new-era client for a sampling result.
func sampleViaRound(ctx context.Context, r *round, req *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	resp, err := r.askClient(ctx, "sampling", req)
	if err != nil {
		return nil, err
	}
	switch v := resp.(type) {
	case *mcp.CreateMessageWithToolsResult:
		out := &mcp.CreateMessageResult{Model: v.Model, Role: v.Role, StopReason: v.StopReason}
		if len(v.Content) > 0 {
			out.Content = v.Content[0]
		}
		return out, nil
	}
	return nil, fmt.Errorf("switchboard: the client answered sampling with %T", resp)
}

// rootsViaRound asks a new-era client for its roots.
func rootsViaRound(ctx context.Context, r *round) (*mcp.ListRootsResult, error) {
	resp, err := r.askClient(ctx, "roots", &mcp.ListRootsParams{})
	if err != nil {
		return nil, err
	}
	if v, ok := resp.(*mcp.ListRootsResult); ok {
		return v, nil
	}
	return nil, fmt.Errorf("switchboard: the client answered roots/list with %T", resp)
}

// elicitViaRound asks a new-era client to elicit.
func elicitViaRound(ctx context.Context, r *round, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	resp, err := r.askClient(ctx, "elicitation", req)
	if err != nil {
		return nil, err
	}
	if v, ok := resp.(*mcp.ElicitResult); ok {
		return v, nil
	}
	return nil, fmt.Errorf("switchboard: the client answered elicitation with %T", resp)
}
