package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An upstream server's own requests (sampling, elicitation) go to the
// client whose call led to them (DESIGN.md F51): the one client with a
// call to that server in flight. With none, or with several (the request
// carries nothing that says whose call it serves), or to a client that
// does not offer the capability, it is refused, saying why. The host's
// Options.Sampling and Options.Elicitation are these two methods.

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
			return caller{}, fmt.Errorf("switchboard: %s asked for %s outside a client's call; no client to ask", server, what)
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
