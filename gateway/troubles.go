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
// client sets a log level, and none below it: a client that never sets
// one starts at defaultLogLevel, and each is told at its start of the
// troubles standing then (greet).

// defaultLogLevel is a session's log level until its client sets one:
// what needs a person's attention (a server's warnings and errors, ours)
// reaches every client, as the spec lets a server decide when the client
// has not, and no client is flooded with a server's info lines unasked.
const defaultLogLevel mcp.LoggingLevel = "warning"

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

// greet is the middleware that, once a client says it is initialized and
// before it can set a level of its own, sets its session's level to
// defaultLogLevel and tells it of the troubles standing among the servers
// its view shows (a server that failed before the client came). go-sdk
// handles a session's notifications in order, so the client's own
// logging/setLevel, later, replaces the default.
func (g *Gateway) greet(v *view) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method != "notifications/initialized" || err != nil {
				return res, err
			}
			ss, ok := req.GetSession().(*mcp.ServerSession)
			if !ok {
				return res, err
			}
			if _, err := next(ctx, "logging/setLevel", &mcp.ServerRequest[*mcp.SetLoggingLevelParams]{
				Session: ss, Params: &mcp.SetLoggingLevelParams{Level: defaultLogLevel}}); err != nil {
				return res, nil
			}
			for _, tr := range g.troubles.Current() {
				if v.shows(tr.Server) {
					g.logTo(ctx, ss, troubleEvent(tr), troubleLogger)
				}
			}
			return res, nil
		}
	}
}
