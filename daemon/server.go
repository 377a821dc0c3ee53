package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/app"
)

// EnvSocket names the socket a child process (a subagent) attaches to:
// a parent that serves its app with Serve hands the path down in it
// (AttachFromEnv).
const EnvSocket = "SWITCHBOARD_SOCKET"

// Version is the control API's version, the /v1 of its paths.
const Version = "1"

// Options configure Serve. Nil means the defaults.
type Options struct {
	// Idle stops the daemon after this long with no client attached and
	// no request; 0 never does.
	Idle time.Duration
	// DrainTimeout bounds how long Stop (or ctx's end) lets the calls in
	// flight finish; 0 means 10 s.
	DrainTimeout time.Duration
	// Logger gets what the daemon has to say (a refused peer, a client
	// that left mid-answer). Nil discards it.
	Logger *slog.Logger
	// Sources is the daemon's view of discovery, as
	// `switchboard sources --json` prints it. Nil answers that there is none.
	Sources func(context.Context) (json.RawMessage, error)
	// Problems are the config files that could not be read, one line
	// each; asked on every Info. Nil is none.
	Problems func() []string
	// Demo says the daemon serves the bundled demo (no config found).
	Demo bool
	// Socket is the path Info reports; "" is ln's address.
	Socket string
}

// Info is what a daemon says about itself.
type Info struct {
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Socket  string    `json:"socket"`
	Version string    `json:"version"`
	// Clients are the clients attached now: MCP sessions (Attach) and
	// event streams.
	Clients int `json:"clients"`
	// Idle is the idle timeout (Options.Idle); 0: none.
	Idle     time.Duration `json:"idleNs"`
	Problems []string      `json:"problems,omitempty"`
	Demo     bool          `json:"demo,omitempty"`
}

// defaultDrain is how long a stop lets calls in flight finish.
const defaultDrain = 10 * time.Second

// daemon is one Serve's state.
type daemon struct {
	a       *app.App
	opts    Options
	started time.Time
	socket  string
	log     *slog.Logger

	// streams is the context of the event streams, ended first when the
	// daemon stops; attached is the attached sessions', ended once their
	// calls in flight have drained.
	streams     context.Context
	endStreams  context.CancelFunc
	attached    context.Context
	endAttached context.CancelFunc
	stopOnce    sync.Once
	stopping    chan struct{} // closed by Stop or the idle timer

	mu       sync.Mutex
	active   int // requests being answered, streams included
	clients  int // attached sessions and event streams
	idle     *time.Timer
	conns    map[net.Conn]struct{} // hijacked: attached sessions and stop waiters
	waiters  []net.Conn            // Stop callers, told when the daemon is gone
	gone     bool                  // the waiters were told
	sessions sync.WaitGroup        // attached sessions' goroutines
	flights  flights               // their requests not answered yet (flight.go)
}

// Serve answers the control API and attaches clients to a on ln until
// ctx ends, a client asks it to Stop, or it was idle for Options.Idle;
// then it stops taking requests, lets the calls in flight finish
// (DrainTimeout), ends the attached sessions and closes a. It returns
// nil for those ends, else why a or the listener failed. It closes ln.
func Serve(ctx context.Context, a *app.App, ln net.Listener, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.DrainTimeout == 0 {
		o.DrainTimeout = defaultDrain
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if l, ok := ln.(*listener); ok {
		l.logger = log
	}
	d := &daemon{a: a, opts: o, started: time.Now().UTC(), socket: o.Socket, log: log,
		stopping: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	if d.socket == "" {
		d.socket = ln.Addr().String()
	}
	d.streams, d.endStreams = context.WithCancel(context.WithoutCancel(ctx))
	defer d.endStreams()
	d.attached, d.endAttached = context.WithCancel(context.WithoutCancel(ctx))
	defer d.endAttached()
	srv := &http.Server{
		Handler:           d.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		// A client's idle kept-alive connection is let go: the next
		// request dials again, at no cost on a unix socket.
		IdleTimeout: time.Minute,
		ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	d.mu.Lock()
	d.armIdleLocked()
	d.mu.Unlock()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case <-d.stopping:
	case <-a.Done():
		err = errors.New("daemon: the app stopped on its own")
	case err = <-errc:
		errc <- nil // Shutdown below finds it ended
		err = fmt.Errorf("daemon: serving %s: %w", d.socket, err)
	}
	d.stop()
	return errors.Join(err, d.shutdown(srv))
}

// shutdown stops taking requests, drains the calls in flight, ends the
// streams and the attached sessions, closes the app, and last tells the
// Stop callers, whose connections close once everything is gone.
func (d *daemon) shutdown(srv *http.Server) error {
	drain, cancel := context.WithTimeout(context.Background(), d.opts.DrainTimeout)
	defer cancel()
	d.a.BeginDrain()
	d.endStreams()
	if err := srv.Shutdown(drain); err != nil {
		srv.Close() // calls that outlived the drain are cut
	}
	d.a.Drain(drain)      // the attached sessions' calls in flight
	d.flights.wait(drain) // and the replies that carry their results
	d.endAttached()
	d.mu.Lock()
	if d.idle != nil {
		d.idle.Stop()
	}
	for c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	d.sessions.Wait()
	err := d.a.Close()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.gone = true
	for _, c := range d.waiters {
		c.Close()
	}
	return err
}

// stop begins the daemon's end, once.
func (d *daemon) stop() {
	d.stopOnce.Do(func() { close(d.stopping) })
}

// enter marks a request begun: the daemon is not idle while it runs.
func (d *daemon) enter() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.active++
	if d.idle != nil {
		d.idle.Stop()
	}
}

// leave marks a request done; the last one arms the idle timer.
func (d *daemon) leave() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.active--
	d.armIdleLocked()
}

func (d *daemon) armIdleLocked() {
	if d.opts.Idle <= 0 || d.active > 0 {
		return
	}
	if d.idle == nil {
		d.idle = time.AfterFunc(d.opts.Idle, d.idleOut)
		return
	}
	d.idle.Reset(d.opts.Idle)
}

// idleOut stops the daemon if it is still idle: a request that began as
// the timer fired keeps it.
func (d *daemon) idleOut() {
	d.mu.Lock()
	idle := d.active == 0
	d.mu.Unlock()
	if idle {
		d.log.Info("daemon: idle, stopping", "idle", d.opts.Idle)
		d.stop()
	}
}

func (d *daemon) client(delta int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clients += delta
}

func (d *daemon) info() Info {
	d.mu.Lock()
	clients := d.clients
	d.mu.Unlock()
	in := Info{PID: os.Getpid(), Started: d.started, Socket: d.socket, Version: Version,
		Clients: clients, Idle: d.opts.Idle, Demo: d.opts.Demo}
	if d.opts.Problems != nil {
		in.Problems = d.opts.Problems()
	}
	return in
}

// hijack takes w's connection for a stream of its own: an upgrade
// answer, then bytes both ways. The reader holds what the client sent
// past the request.
func hijack(w http.ResponseWriter, upgrade string) (net.Conn, *bufio.Reader, error) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("daemon: the connection cannot be taken over")
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	if err := rw.Writer.Flush(); err != nil {
		conn.Close()
		return nil, nil, err
	}
	if _, err := fmt.Fprintf(conn, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: %s\r\n\r\n", upgrade); err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, rw.Reader, nil
}

// track keeps a hijacked connection until it is closed, so the
// daemon's end closes it; false when the daemon is already ending.
func (d *daemon) track(c net.Conn) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	select {
	case <-d.stopping:
		return false
	default:
	}
	d.conns[c] = struct{}{}
	d.sessions.Add(1) // under mu: shutdown waits only once stopping is closed
	return true
}

func (d *daemon) untrack(c net.Conn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.conns, c)
}

// readCloser reads what the hijack buffered, then the connection.
type readCloser struct {
	io.Reader
	io.Closer
}
