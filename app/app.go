package app

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/gateway/resource"
	"github.com/switchboard-mcp/switchboard/gateway/store"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/watch"
)

// Options configure Start. Nil means defaults: a host on its defaults,
// running the first reading's configs until Close, serving nothing.
type Options struct {
	// Host are the host's options. Nil means host.New's defaults. Start
	// sets UntrustedProject from the first reading, a nil Logger to
	// Logger, and, with Gateway, the handlers of the servers' own requests
	// (sampling, elicitation, roots).
	Host *host.Options
	// Reload reads the configs again when a file of the last reading
	// changes (DESIGN.md F36); a change to the host's TokenFile (a login
	// elsewhere) connects the servers waiting for one. Nil watches
	// nothing.
	Reload func(context.Context) (*Loaded, error)
	// Gateway, when set, serves the host as one MCP server (ServeStdio,
	// ServePipe, Handler, ServeHTTP) with these options; a nil Logger
	// there is Logger, and its Calls is asked after the app's own drain
	// and audit (drain.go). Nil serves nothing.
	Gateway *gateway.Options
	// Logger gets the watcher's diagnostics, and the host's and the
	// gateway's when their options name no logger. Nil discards them.
	Logger *slog.Logger
	// HostEvent gets each of the host's events (host.Subscribe), from
	// the first state change on. Nil ignores them.
	HostEvent func(host.Event)
	// ConfigEvent gets each thing the reloading did. Nil ignores them.
	// HostEvent and ConfigEvent are never called at once, so they may
	// share an output; they should not block for long.
	ConfigEvent func(ConfigEvent)
	// Audit, with Gateway, writes a line for every call a client makes
	// (audit.go). Nil keeps no audit trail.
	Audit *AuditOptions
	// Metrics, when set, count what the host and the gateway do
	// (NewMetrics); ServeHTTP serves them at MetricsPath. Nil counts
	// nothing.
	Metrics *Metrics
	// Tracing, when set, makes a span of every request a client sends the
	// gateway and every call the host sends a server, with trace context
	// passed on both ways (TracingFromEnv makes one). Nil traces nothing.
	Tracing trace.TracerProvider
	// Store, when set, is what this replica shares with the others
	// (DESIGN.md F64; the caller opens and closes it): Handler gives it
	// to the gateway when the HTTPOptions name none, /readyz and the
	// metrics say whether it answers, and, with Reload, a reload that
	// changes what is served is published on it and one published by
	// another replica reads the configs again (replicas.go).
	Store store.Store
}

// App is a host started from a reading of the configs, with the watcher
// that reloads it and the gateway that serves it. Create it with Start;
// Close ends it.
type App struct {
	h    *host.Host
	gw   *gateway.Gateway // nil without Options.Gateway
	opts Options
	// guard is the token guard served over HTTP, if any, for metrics.
	guard atomic.Pointer[resource.Guard]

	// emitMu orders HostEvent and ConfigEvent calls.
	emitMu sync.Mutex
	sub    *host.Subscription
	// observing is what observe.go runs until Close.
	observing observing
	// printed is closed when every host event taken has been handed on.
	printed chan struct{}

	// The parts that run until Close, each stopped and waited for in
	// turn. failed is closed when one stops on its own.
	watcher, serving part
	failOnce         sync.Once
	failed           chan struct{}

	// life is what the parts' contexts derive from: Start's values,
	// without its end.
	life context.Context

	// What the readings found, touched only by the watcher's goroutine
	// (the reader and Notify) once Start returns: the files that could
	// not be read; the configs the host runs; those of the last reading
	// that may be applied, which the next reload applies.
	broken          map[string]bool
	running, latest []config.ServerConfig

	ops ops    // drain.go
	fan fanout // replicas.go
	// closing is closed when Close begins.
	closing chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// part is a goroutine of the app's, with its own stop.
type part struct {
	stop context.CancelFunc
	done chan struct{}
	err  error
}

// end stops the part and waits for it; a part never started is done.
func (p *part) end() error {
	if p.done == nil {
		return nil
	}
	p.stop()
	<-p.done
	return p.err
}

// Start builds the host on first's configs and starts it (ctx bounds
// that, as it bounds host.Start), then the gateway and the watcher. When
// it returns, the gateway shows what the host has. An error leaves
// nothing running.
func Start(ctx context.Context, first *Loaded, opts *Options) (*App, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	var hopts host.Options
	if o.Host != nil {
		hopts = *o.Host
	}
	hopts.UntrustedProject = first.UntrustedProject
	if o.Store != nil && hopts.Pins == nil {
		hopts.Pins = PinStore(o.Store) // replicas share their pins (pinstore.go)
	}
	if hopts.Logger == nil {
		hopts.Logger = o.Logger
	}
	// The host asks the gateway, which is built on the host: the router
	// is in between, given the gateway before the host starts servers
	// that could ask.
	var r *router
	if o.Gateway != nil {
		r = &router{}
		hopts.Sampling, hopts.Elicitation, hopts.ListRoots = r.sampling, r.elicitation, r.listRoots
	}
	hopts.Observer = observer(hopts.Observer, &o)
	a := &App{h: host.New(&hopts), opts: o, failed: make(chan struct{}), life: context.WithoutCancel(ctx), closing: make(chan struct{})}
	a.ops.init()
	if o.Gateway != nil {
		if o.Audit != nil {
			l, err := openAudit(*o.Audit, a.h.Redact)
			if err != nil {
				a.h.Close()
				return nil, err
			}
			a.ops.audit = l
		}
		gopts := *o.Gateway
		if gopts.Logger == nil {
			gopts.Logger = o.Logger
		}
		gopts.Calls = a.calls(gopts.Calls)
		if o.Tracing != nil {
			gopts.Middleware = append(slices.Clip(gopts.Middleware), newTracing(o.Tracing).middleware)
		}
		a.gw = gateway.New(a.h, &gopts)
		r.gw = a.gw
	}
	if o.HostEvent != nil {
		a.handEvents()
	}
	a.observe()
	if err := a.h.Start(ctx, first.Servers); err != nil {
		a.Close()
		return nil, err
	}
	if a.gw != nil {
		a.serving.run(a, a.gw.Run)
		select {
		case <-a.gw.Synced():
		case <-ctx.Done():
			a.Close()
			return nil, ctx.Err()
		}
	}
	if err := a.startFanout(); err != nil {
		a.Close()
		return nil, err
	}
	if o.Reload != nil {
		a.running, a.latest, a.broken = first.Servers, first.Servers, brokenFiles(first)
		w := &watch.Loaded{Servers: first.Servers, Files: first.Files, Errors: first.SourceErrors()}
		wopts := &watch.Options{Logger: o.Logger, Notify: a.notify, TokenFile: hopts.TokenFile, Reread: a.fan.reread}
		a.watcher.run(a, func(ctx context.Context) error {
			return watch.Run(ctx, a.h, w, func() (*watch.Loaded, error) { return a.reload(ctx) }, wopts)
		})
	}
	return a, nil
}

// run starts fn as this part of a.
func (p *part) run(a *App, fn func(context.Context) error) {
	ctx, stop := context.WithCancel(a.life)
	p.stop, p.done = stop, make(chan struct{})
	go func() {
		defer close(p.done)
		p.err = fn(ctx)
		if ctx.Err() == nil {
			a.failOnce.Do(func() { close(a.failed) })
		}
	}()
}

// handEvents hands the host's events to Options.HostEvent until Close.
func (a *App) handEvents() {
	a.sub = a.h.Subscribe()
	a.printed = make(chan struct{})
	go func() {
		defer close(a.printed)
		for e := range a.sub.C {
			a.emit(func() { a.opts.HostEvent(e) })
		}
	}()
}

func (a *App) emit(fn func()) {
	a.emitMu.Lock()
	defer a.emitMu.Unlock()
	fn()
}

// Host is the app's host.
func (a *App) Host() *host.Host { return a.h }

// Gateway is the app's gateway, nil without Options.Gateway.
func (a *App) Gateway() *gateway.Gateway { return a.gw }

// Done is closed when a part of the app (the watcher, the gateway) stopped
// before Close: Close says why.
func (a *App) Done() <-chan struct{} { return a.failed }

// Close ends the watcher, then the gateway, then the host, and returns
// what stopped a part early, if anything did. It may be called more than
// once, and at once from several goroutines.
func (a *App) Close() error {
	a.closeOnce.Do(func() {
		close(a.closing)
		a.endFanout()
		errW := a.watcher.end()
		errG := a.serving.end()
		if a.sub != nil {
			a.sub.Close()
			<-a.printed
		}
		var errA error
		if a.ops.audit != nil {
			errA = a.ops.audit.close()
		}
		a.endObserving()
		a.closeErr = errors.Join(errW, errG, a.h.Close(), errA)
	})
	return a.closeErr
}
