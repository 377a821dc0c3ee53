package app

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// errNoGateway is serving from an app started without Options.Gateway.
var errNoGateway = errors.New("app: started without a gateway (Options.Gateway)")

// ServeStdio serves the view filter shows to one client over stdin and
// stdout until the client leaves or ctx ends (gateway.ServeStdio).
func (a *App) ServeStdio(ctx context.Context, filter host.ViewFilter) error {
	if a.gw == nil {
		return errNoGateway
	}
	return a.gw.ServeStdio(ctx, filter)
}

// ServePipe is ServeStdio over in and out (gateway.ServePipe).
func (a *App) ServePipe(ctx context.Context, filter host.ViewFilter, in io.ReadCloser, out io.Writer) error {
	if a.gw == nil {
		return errNoGateway
	}
	return a.gw.ServePipe(ctx, filter, in, out)
}

// Handler serves the gateway over streamable HTTP at gateway.Path
// (gateway.Handler): opts name the token every request must carry and the
// view of a request that names no servers. HealthPath and ReadyPath answer
// without the token (drain.go). Nil without a gateway.
func (a *App) Handler(opts gateway.HTTPOptions) http.Handler {
	if a.gw == nil {
		return nil
	}
	if opts.Resource != nil {
		a.guard.Store(opts.Resource)
	}
	if opts.Store == nil {
		opts.Store = a.opts.Store
	}
	return a.opsHandler(a.gw.Handler(opts), opts.Token, opts.Resource != nil, opts.SessionKeys != nil)
}

// shutdownWait is how long requests in flight may finish once ServeHTTP's
// ctx ends: a call answering now should not be cut, and an interrupt
// should not wait on a hung one.
const shutdownWait = 5 * time.Second

// readHeaderWait bounds a client's request headers, so that a slow one
// cannot hold a connection open.
const readHeaderWait = 10 * time.Second

// ServeHTTP serves Handler(opts) on ln until ctx ends or a Drain ended,
// then ends the open streams, lets requests in flight finish for a
// moment, and closes the gateway's sessions (a ServeStdio's too: an app
// serves one way at a time). It closes ln. With Options.Metrics it serves
// them at MetricsPath too, to requests with opts.Token (or, with
// opts.Resource, an access token it accepts).
func (a *App) ServeHTTP(ctx context.Context, ln net.Listener, opts gateway.HTTPOptions) error {
	if a.gw == nil {
		ln.Close()
		return errNoGateway
	}
	srv := &http.Server{Handler: a.withMetrics(a.Handler(opts), opts), ReadHeaderTimeout: readHeaderWait}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	case <-a.ops.stopped:
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownWait)
	defer cancel()
	// Replies still being written go out before the streams end: a
	// client whose stream ends first takes its session for lost.
	a.ops.waitPosts(shutdown)
	a.endStreams()
	_ = srv.Shutdown(shutdown)
	srv.Close()
	<-errc
	a.gw.CloseSessions()
	return nil
}

// router takes the host's requests of a server's own (sampling,
// elicitation, roots) to the gateway, which is built on the host: Start
// gives it the gateway before the host starts a server that could ask.
type router struct{ gw *gateway.Gateway }

func (r *router) sampling(ctx context.Context, server string, req *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if r.gw == nil {
		return nil, errNoGateway
	}
	return r.gw.Sampling(ctx, server, req)
}

func (r *router) elicitation(ctx context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if r.gw == nil {
		return nil, errNoGateway
	}
	return r.gw.Elicitation(ctx, server, req)
}

// listRoots leaves the answer to the host's own roots without a gateway.
func (r *router) listRoots(ctx context.Context, server string) ([]*mcp.Root, error) {
	if r.gw == nil {
		return nil, nil
	}
	return r.gw.ListRoots(ctx, server)
}
