package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An upstream server's own requests (sampling, elicitation, roots) go to
// the client whose call led to them (DESIGN.md F51): the one client with a
// call to that server in flight. With several (the request carries
// nothing that says whose call it serves), or to a client that does not
// offer the capability, it is refused, saying why; with none, sampling
// and elicitation are refused and roots are the host's. The host's
// Options.Sampling, Options.Elicitation and Options.ListRoots are these
// three methods.

// Sampling answers an upstream server's sampling/createMessage.
func (g *Gateway) Sampling(ctx context.Context, server string, req *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	c, err := g.askee(ctx, server, func(c *mcp.ClientCapabilities) bool { return c.Sampling != nil }, "sampling")
	if err != nil {
		return nil, err
	}
	if c.r != nil {
		return sampleViaRound(ctx, c.r, req)
	}
	return c.ss.CreateMessage(ctx, req)
}

// Elicitation answers an upstream server's elicitation/create.
func (g *Gateway) Elicitation(ctx context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	c, err := g.askee(ctx, server, func(c *mcp.ClientCapabilities) bool { return c.Elicitation != nil }, "elicitation")
	if err != nil {
		return nil, err
	}
	if c.r != nil {
		return elicitViaRound(ctx, c.r, req)
	}
	return c.ss.Elicit(ctx, req)
}

// ListRoots answers an upstream server's roots/list with the roots of the
// client whose call it serves. Outside any client's call (a server asks
// as it starts, or after roots/list_changed) there is no such client, and
// it leaves the answer to the host's own roots.
func (g *Gateway) ListRoots(ctx context.Context, server string) ([]*mcp.Root, error) {
	c, err := g.askee(ctx, server, func(c *mcp.ClientCapabilities) bool { return c.RootsV2 != nil }, "roots")
	switch {
	case errors.Is(err, errNoCaller):
		return nil, nil
	case err != nil:
		return nil, err
	}
	var res *mcp.ListRootsResult
	if c.r != nil {
		res, err = rootsViaRound(ctx, c.r)
	} else {
		res, err = c.ss.ListRoots(ctx, nil)
	}
	if err != nil {
		return nil, err
	}
	if res.Roots == nil {
		return []*mcp.Root{}, nil // the client has none: an answer, not "ask the host"
	}
	return res.Roots, nil
}

// errNoCaller is a request of an upstream's outside any client's call.
var errNoCaller = errors.New("no client's call in flight")

// askee is the client to ask for what server requests: the round the
// request came in (an input request in a new-era upstream's result arrives
// within the call), else the one caller with a call to server in flight.
func (g *Gateway) askee(ctx context.Context, server string, offers func(*mcp.ClientCapabilities) bool, what string) (caller, error) {
	c := caller{r: roundFrom(ctx)}
	if c.r == nil {
		g.mu.Lock()
		var callers []caller
		for c := range g.calling[server] {
			callers = append(callers, c)
		}
		g.mu.Unlock()
		switch len(callers) {
		case 0:
			return caller{}, fmt.Errorf("switchboard: %s asked for %s outside a client's call; no client to ask: %w", server, what, errNoCaller)
		case 1:
			c = callers[0]
		default:
			return caller{}, fmt.Errorf("switchboard: %s asked for %s while %d clients call it; it cannot be told whose call it serves", server, what, len(callers))
		}
	}
	caps := c.capabilities()
	if caps == nil || !offers(caps) {
		return caller{}, errors.New("switchboard: the client does not offer " + what)
	}
	return c, nil
}

func (c caller) capabilities() *mcp.ClientCapabilities {
	if c.r != nil {
		return c.r.caps
	}
	if p := c.ss.InitializeParams(); p != nil {
		return p.Capabilities
	}
	return nil
}
