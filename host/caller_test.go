package host_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

type agentKey struct{}

// samplingOf is a sampling handler that answers as agent, after checking
// that its request came from agent's call through view.
func samplingOf(t *testing.T, agent string, arrived *sync.WaitGroup, both <-chan struct{}) func(context.Context, string, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return func(ctx context.Context, server string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		c, ok := host.CallerOf(ctx)
		switch {
		case !ok || c.View == nil:
			t.Errorf("%s: no calling view in the handler's context", agent)
		case c.View.Name() != agent || c.Server != server || c.Tool != "mcp__"+server+"__sample":
			t.Errorf("%s: caller %q %s %s", agent, c.View.Name(), c.Server, c.Tool)
		}
		if got := ctx.Value(agentKey{}); got != agent {
			t.Errorf("%s: the handler's context carries %v of the caller's values", agent, got)
		}
		if _, ok := ctx.Deadline(); !ok {
			t.Errorf("%s: the handler's context has no deadline", agent)
		}
		if arrived != nil {
			arrived.Done()
			select { // both requests are in flight at once
			case <-both:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		asked := p.Messages[0].Content.(*mcp.TextContent).Text
		return &mcp.CreateMessageResult{Model: agent, Role: "assistant", Content: &mcp.TextContent{Text: agent + " answers " + asked}}, nil
	}
}

func hostSampling(t *testing.T) func(context.Context, string, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return func(context.Context, string, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		t.Error("the host's handler was asked for a view's call")
		return nil, errors.New("not this handler")
	}
}

// Two subagents' views, each with its own sampling handler, call the same
// server's sampling tool at once: each request reaches the view whose call
// led to it, with that caller's context.
func TestViewsGetTheirOwnRequests(t *testing.T) {
	h := start(t, &host.Options{Sampling: hostSampling(t)}, demoServer(t, "demo", "--sampling"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h.WaitSettled(ctx)
	var arrived sync.WaitGroup
	arrived.Add(2)
	both := make(chan struct{})
	go func() { arrived.Wait(); close(both) }()
	agents := []string{"planner", "coder"}
	got := make([]string, len(agents))
	var calls sync.WaitGroup
	for i, agent := range agents {
		v := h.ViewWith(host.ViewFilter{}, &host.ViewOptions{Name: agent, Sampling: samplingOf(t, agent, &arrived, both)})
		calls.Go(func() {
			res, err := v.CallTool(context.WithValue(ctx, agentKey{}, agent), "mcp__demo__sample", map[string]any{"text": "hi from " + agent})
			if err != nil {
				t.Errorf("%s: %v", agent, err)
				return
			}
			got[i] = text(t, res)
		})
	}
	calls.Wait()
	for i, agent := range agents {
		if want := agent + " answers hi from " + agent; got[i] != want {
			t.Errorf("%s got %q, want %q", agent, got[i], want)
		}
	}
}

// A 2025-11-25 server's request carries nothing of the call that led to
// it; with one call to it in flight, that call is its caller.
func TestLegacyRequestReachesTheOneCaller(t *testing.T) {
	h := start(t, &host.Options{Sampling: hostSampling(t)}, demoServer(t, "old", "--sampling", "--legacy"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h.WaitSettled(ctx)
	v := h.ViewWith(host.ViewFilter{}, &host.ViewOptions{Name: "coder", Sampling: samplingOf(t, "coder", nil, nil)})
	res, err := v.CallTool(context.WithValue(ctx, agentKey{}, "coder"), "mcp__old__sample", map[string]any{"text": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := text(t, res), "coder answers hi"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A view's own elicitation handler answers for its calls in either era;
// the host's answers for calls made on the host itself.
func TestViewElicitation(t *testing.T) {
	answer := func(who string) func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return func(ctx context.Context, _ string, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			if c, ok := host.CallerOf(ctx); !ok || (c.View != nil) != (who != "host") {
				t.Errorf("%s: caller %+v %v", who, c, ok)
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": who}}, nil
		}
	}
	h := start(t, &host.Options{Elicitation: answer("host")},
		demoServer(t, "modern", "--elicitation"), demoServer(t, "legacy", "--elicitation", "--legacy"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h.WaitSettled(ctx)
	v := h.ViewWith(host.ViewFilter{}, &host.ViewOptions{Name: "coder", Elicitation: answer("coder")})
	for _, server := range []string{"modern", "legacy"} {
		for _, c := range []struct {
			who  string
			call func(context.Context, string, any) (*mcp.CallToolResult, error)
		}{{"coder", v.CallTool}, {"host", h.CallTool}} {
			res, err := c.call(ctx, "mcp__"+server+"__ask", map[string]any{})
			if err != nil {
				t.Fatalf("%s through %s: %v", server, c.who, err)
			}
			if got, want := text(t, res), "hello "+c.who; got != want {
				t.Errorf("%s through %s: %q, want %q", server, c.who, got, want)
			}
		}
	}
}

// With two calls in flight to a 2025-11-25 server, its request cannot be
// told to belong to either: the host's handler answers, with no caller.
func TestLegacyRequestAmongSeveralCalls(t *testing.T) {
	h := start(t, &host.Options{Sampling: func(ctx context.Context, _ string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		if c, ok := host.CallerOf(ctx); ok {
			t.Errorf("the request names caller %+v", c)
		}
		return &mcp.CreateMessageResult{Model: "host", Role: "assistant", Content: &mcp.TextContent{Text: "host"}}, nil
	}}, demoServer(t, "old", "--sampling", "--legacy"))
	sub := h.Subscribe()
	defer sub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h.WaitSettled(ctx)

	// A planner's call stays in flight...
	planner := h.ViewWith(host.ViewFilter{}, &host.ViewOptions{Name: "planner", Sampling: samplingOf(t, "planner", nil, nil)})
	sleeping, wake := context.WithCancel(ctx)
	var calls sync.WaitGroup
	calls.Go(func() { planner.CallTool(sleeping, "mcp__old__sleep", map[string]any{"ms": 60000}) })
	defer calls.Wait()
	defer wake()
	await(t, sub, "the planner's call reaching the server", func(e host.Event) bool {
		return e.Type == host.EventProgress && e.Tool == "mcp__old__sleep"
	})
	// ...while a coder's leads to a request.
	coder := h.ViewWith(host.ViewFilter{}, &host.ViewOptions{Name: "coder", Sampling: samplingOf(t, "coder", nil, nil)})
	res, err := coder.CallTool(ctx, "mcp__old__sample", map[string]any{"text": "hi"})
	if err != nil || text(t, res) != "host" {
		t.Errorf("coder: %v %v", err, res)
	}
}
