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
	ss, err := g.askee(server, func(c *mcp.ClientCapabilities) bool { return c.Sampling != nil }, "sampling")
	if err != nil {
		return nil, err
	}
	return ss.CreateMessage(ctx, req)
}

// Elicitation answers an upstream server's elicitation/create.
func (g *Gateway) Elicitation(ctx context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	ss, err := g.askee(server, func(c *mcp.ClientCapabilities) bool { return c.Elicitation != nil }, "elicitation")
	if err != nil {
		return nil, err
	}
	return ss.Elicit(ctx, req)
}

// askee is the client to ask for what server requests.
func (g *Gateway) askee(server string, offers func(*mcp.ClientCapabilities) bool, what string) (*mcp.ServerSession, error) {
	g.mu.Lock()
	var sessions []*mcp.ServerSession
	for ss := range g.calling[server] {
		sessions = append(sessions, ss)
	}
	g.mu.Unlock()
	switch len(sessions) {
	case 0:
		return nil, fmt.Errorf("switchboard: %s asked for %s outside a client's call; no client to ask", server, what)
	case 1:
	default:
		return nil, fmt.Errorf("switchboard: %s asked for %s while %d clients call it; it cannot be told whose call it serves", server, what, len(sessions))
	}
	ss := sessions[0]
	params := ss.InitializeParams()
	if params == nil || params.Capabilities == nil || !offers(params.Capabilities) {
		return nil, errors.New("switchboard: the client does not offer " + what)
	}
	return ss, nil
}
