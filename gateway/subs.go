package gateway

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client's resource subscriptions are its own. Each (server, URI) keeps
// the sessions that subscribed; the host is asked once per session (it
// counts them, and tells the server to stop only after the last), so a
// client that never subscribed cannot end another's subscription by
// unsubscribing, and a session that ends without unsubscribing gives its
// share back the next time subscriptions change or an update comes.

type subKey struct{ server, uri string }

func (g *Gateway) subscribe(v *view) func(context.Context, *mcp.SubscribeRequest) error {
	return func(ctx context.Context, req *mcp.SubscribeRequest) error {
		g.pruneSubs(ctx)
		server, ok := g.owner(v, req.Params.URI)
		if !ok {
			return fmt.Errorf("no server offers %s", req.Params.URI)
		}
		key := subKey{server, req.Params.URI}
		g.mu.Lock()
		already := g.subs[key][req.Session]
		g.mu.Unlock()
		if already {
			return nil
		}
		if err := g.h.SubscribeResource(ctx, server, req.Params.URI); err != nil {
			return err
		}
		g.mu.Lock()
		if g.subs == nil {
			g.subs = map[subKey]map[*mcp.ServerSession]bool{}
		}
		if g.subs[key] == nil {
			g.subs[key] = map[*mcp.ServerSession]bool{}
		}
		dup := g.subs[key][req.Session]
		g.subs[key][req.Session] = true
		g.mu.Unlock()
		if dup { // the same session subscribed twice at once: one counts
			return g.h.UnsubscribeResource(ctx, server, req.Params.URI)
		}
		return nil
	}
}

func (g *Gateway) unsubscribe(v *view) func(context.Context, *mcp.UnsubscribeRequest) error {
	return func(ctx context.Context, req *mcp.UnsubscribeRequest) error {
		// A new-era client unsubscribes by ending its subscriptions/listen
		// request, whose context is done by then: the server must still
		// be told (the host bounds the request by the server's timeout).
		ctx = context.WithoutCancel(ctx)
		g.pruneSubs(ctx)
		var servers []string
		g.mu.Lock()
		for key, sessions := range g.subs {
			if key.uri == req.Params.URI && sessions[req.Session] {
				delete(sessions, req.Session)
				if len(sessions) == 0 {
					delete(g.subs, key)
				}
				servers = append(servers, key.server)
			}
		}
		g.mu.Unlock()
		var err error
		for _, server := range servers {
			if e := g.h.UnsubscribeResource(ctx, server, req.Params.URI); e != nil && err == nil {
				err = e
			}
		}
		return err
	}
}

// pruneSubs ends the subscriptions of sessions that are gone.
func (g *Gateway) pruneSubs(ctx context.Context) {
	live := map[*mcp.ServerSession]bool{}
	g.each(func(v *view) {
		for ss := range v.srv.Sessions() {
			live[ss] = true
		}
	})
	var gone []subKey
	g.mu.Lock()
	for key, sessions := range g.subs {
		for ss := range sessions {
			if !live[ss] {
				delete(sessions, ss)
				gone = append(gone, key)
			}
		}
		if len(sessions) == 0 {
			delete(g.subs, key)
		}
	}
	g.mu.Unlock()
	for _, key := range gone {
		_ = g.h.UnsubscribeResource(ctx, key.server, key.uri)
	}
}
