package app

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// observer is the host's Observer for the app's metrics (and traces),
// after the one an embedder set in its host options, if any.
func observer(own *host.Observer, o *Options) *host.Observer {
	var calls []func(context.Context, *host.ObservedCall) (context.Context, func(*mcp.CallToolResult, error))
	var hits []func(string)
	if own != nil {
		if own.Call != nil {
			calls = append(calls, own.Call)
		}
		if own.CacheHit != nil {
			hits = append(hits, own.CacheHit)
		}
	}
	if o.Tracing != nil {
		calls = append(calls, newTracing(o.Tracing).observeCall)
	}
	if m := o.Metrics; m != nil {
		calls = append(calls, m.observeCall)
		hits = append(hits, func(server string) { m.cacheHits.WithLabelValues(server).Inc() })
	}
	var refreshes []func(string, error)
	if own != nil && own.AuthRefresh != nil {
		refreshes = append(refreshes, own.AuthRefresh)
	}
	if m := o.Metrics; m != nil {
		refreshes = append(refreshes, m.observeRefresh)
	}
	if len(calls) == 0 && len(hits) == 0 && len(refreshes) == 0 {
		return own
	}
	return &host.Observer{
		Call: func(ctx context.Context, call *host.ObservedCall) (context.Context, func(*mcp.CallToolResult, error)) {
			dones := make([]func(*mcp.CallToolResult, error), 0, len(calls))
			for _, c := range calls {
				var done func(*mcp.CallToolResult, error)
				ctx, done = c(ctx, call)
				dones = append(dones, done)
			}
			return ctx, func(res *mcp.CallToolResult, err error) {
				for i := len(dones) - 1; i >= 0; i-- {
					dones[i](res, err)
				}
			}
		},
		CacheHit: func(server string) {
			for _, h := range hits {
				h(server)
			}
		},
		AuthRefresh: func(server string, err error) {
			for _, r := range refreshes {
				r(server, err)
			}
		},
	}
}

// observing is the goroutine that follows the host's events for the
// metrics.
type observing struct {
	sub  *host.Subscription
	done chan struct{}
}

// observe hands the app to its metrics and follows the host's events
// for them, from before the host starts a server.
func (a *App) observe() {
	m := a.opts.Metrics
	if m == nil {
		return
	}
	m.app.Store(a)
	a.observing = observing{sub: a.h.Subscribe(), done: make(chan struct{})}
	go func() {
		defer close(a.observing.done)
		m.follow(a.observing.sub)
	}()
}

func (a *App) endObserving() {
	if a.observing.sub != nil {
		a.observing.sub.Close()
		<-a.observing.done
	}
}
