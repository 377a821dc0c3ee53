package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// troubleLogger is the logger name of the gateway's own news of a
// server's drop or failure, apart from what servers log under their names.
const troubleLogger = "switchboard"

// A server that drops or fails reaches the clients that see it as one log
// notification per change of state (host.Troubles), at warning for a drop
// that will be retried and error for a server given up on, with its last
// stderr lines (DESIGN.md F51). go-sdk sends a session none until its
// client sets a log level, and none below it; a client that sets one late
// is told of the troubles still standing then.

// noteTrouble queues e's trouble, if it is news, for notify.
func (g *Gateway) noteTrouble(e host.Event) {
	if tr, ok := g.troubles.Note(e); ok {
		g.queue(troubleEvent(tr))
	}
}

// troubleEvent is tr as the event notify forwards: a log line of the
// gateway's own, which its type (state) tells from a server's.
func troubleEvent(tr host.Trouble) host.Event {
	return host.Event{Type: host.EventState, Server: tr.Server, Level: tr.Level, Message: tr.Detail()}
}

// tellLate is the middleware that tells a client that sets its log level
// of the troubles still standing among the servers its view shows.
func (g *Gateway) tellLate(v *view) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method != "logging/setLevel" || err != nil {
				return res, err
			}
			ss, ok := req.GetSession().(*mcp.ServerSession)
			if !ok {
				return res, err
			}
			for _, tr := range g.troubles.Current() {
				if v.shows(tr.Server) {
					g.logTo(ctx, ss, troubleEvent(tr), troubleLogger)
				}
			}
			return res, err
		}
	}
}
