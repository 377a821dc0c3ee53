package host

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 2026-07-28 server asks for input in a result (input-required), and
// the client calls again with the answers. go-sdk's own loop answers a
// roots request from the client's list, past every hook, so
// Options.ListRoots never saw it. The host runs the loop instead, and
// hands each input request to the client's receiving chain as if the
// server had sent it as a request of its own: the same middleware
// (ListRoots, titledItems), go-sdk's checks and the same handlers, in
// either era (DESIGN.md, "Requests reach their caller").

// maxInputRounds and maxShedRounds are go-sdk's bounds on one call's
// rounds: ten in all, three of them answered with no input request (a
// server shedding load).
const (
	maxInputRounds = 10
	maxShedRounds  = 3
)

// inputRounds is the sending middleware that runs a call's rounds;
// receive is the client's receiving chain (receiving).
func inputRounds(receive *mcp.MethodHandler) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" && method != "prompts/get" && method != "resources/read" {
				return next(ctx, method, req)
			}
			shed := 0
			for round := 1; ; round++ {
				res, err := next(ctx, method, req)
				if err != nil {
					return res, err
				}
				asks, state := inputRequests(res)
				if asks == nil {
					return res, nil
				}
				if len(asks) == 0 {
					shed++
				}
				switch {
				case shed >= maxShedRounds:
					return nil, fmt.Errorf("multi-round-trip: exceeded maximum load-shedding retries (%d)", maxShedRounds)
				case round >= maxInputRounds:
					return nil, fmt.Errorf("multi-round-trip: exceeded maximum retries (%d)", maxInputRounds)
				}
				cs, ok := req.GetSession().(*mcp.ClientSession)
				if !ok {
					return res, nil
				}
				answers, err := answerAll(ctx, *receive, cs, asks)
				if err != nil {
					return nil, fmt.Errorf("multi round-trip: %w", err)
				}
				if req, err = again(req, cs, answers, state); err != nil {
					return nil, err
				}
			}
		}
	}
}

// receiving is the receiving middleware, added last, that keeps the
// chain under it for inputRounds.
func receiving(receive *mcp.MethodHandler) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		*receive = next
		return next
	}
}

// inputRequests are what res asks for, nil when it is complete, with the
// state to send back.
func inputRequests(res mcp.Result) (mcp.InputRequestMap, string) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		if r != nil {
			return r.InputRequests, r.RequestState
		}
	case *mcp.GetPromptResult:
		if r != nil {
			return r.InputRequests, r.RequestState
		}
	case *mcp.ReadResourceResult:
		if r != nil {
			return r.InputRequests, r.RequestState
		}
	}
	return nil, ""
}

// answerAll answers every input request at once, as go-sdk does: one may
// wait on a person while another is a quick roots list.
func answerAll(ctx context.Context, receive mcp.MethodHandler, cs *mcp.ClientSession, asks mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		answers = make(mcp.InputResponseMap, len(asks))
		errs    []error
	)
	for key, ask := range asks {
		wg.Go(func() {
			a, err := answer(ctx, receive, cs, ask)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("fulfilling input request %q: %w", key, err))
				cancel()
				return
			}
			answers[key] = a
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return answers, nil
}

// answer hands one input request to the receiving chain under the
// method a server's own request of it has.
func answer(ctx context.Context, receive mcp.MethodHandler, cs *mcp.ClientSession, ask mcp.InputRequest) (mcp.InputResponse, error) {
	var method string
	var req mcp.Request
	switch p := ask.(type) {
	case *mcp.ElicitParams:
		method, req = "elicitation/create", &mcp.ElicitRequest{Session: cs, Params: p}
	case *mcp.CreateMessageParams:
		method, req = "sampling/createMessage", &mcp.CreateMessageWithToolsRequest{Session: cs, Params: withTools(p)}
	case *mcp.CreateMessageWithToolsParams:
		method, req = "sampling/createMessage", &mcp.CreateMessageWithToolsRequest{Session: cs, Params: p}
	case *mcp.ListRootsParams:
		method, req = "roots/list", &mcp.ListRootsRequest{Session: cs, Params: p}
	default:
		return nil, fmt.Errorf("unknown input request type: %T", ask)
	}
	res, err := receive(ctx, method, req)
	if err != nil {
		return nil, err
	}
	a, ok := res.(mcp.InputResponse)
	if !ok || a == nil {
		return nil, errors.New(method + " gave no answer")
	}
	return a, nil
}

// withTools is p in the form go-sdk's sampling takes (its
// createMessageParamsToWithTools).
func withTools(p *mcp.CreateMessageParams) *mcp.CreateMessageWithToolsParams {
	var msgs []*mcp.SamplingMessageV2
	for _, m := range p.Messages {
		msgs = append(msgs, &mcp.SamplingMessageV2{Content: []mcp.Content{m.Content}, Role: m.Role})
	}
	return &mcp.CreateMessageWithToolsParams{
		Meta:             p.Meta,
		IncludeContext:   p.IncludeContext,
		MaxTokens:        p.MaxTokens,
		Messages:         msgs,
		Metadata:         p.Metadata,
		ModelPreferences: p.ModelPreferences,
		StopSequences:    p.StopSequences,
		SystemPrompt:     p.SystemPrompt,
		Temperature:      p.Temperature,
	}
}

// again is req for the next round: a copy of its params (the caller's
// are not changed) with the answers and the state to echo.
func again(req mcp.Request, cs *mcp.ClientSession, answers mcp.InputResponseMap, state string) (mcp.Request, error) {
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.CallToolParams]{Session: cs, Params: &cp}, nil
	case *mcp.GetPromptParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.GetPromptParams]{Session: cs, Params: &cp}, nil
	case *mcp.ReadResourceParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.ReadResourceParams]{Session: cs, Params: &cp}, nil
	}
	return nil, fmt.Errorf("multi-round-trip: unsupported params type %T", req.GetParams())
}
