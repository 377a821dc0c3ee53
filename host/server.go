package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/toolcache"
	"github.com/switchboard-mcp/switchboard/internal/transport"
)

// State is a server's public state (SPEC F16).
type State string

const (
	StateConnecting   State = "connecting"
	StateConnected    State = "connected"
	StateDisconnected State = "disconnected"
	StateFailed       State = "failed"
	StateDisabled     State = "disabled"
	StateBlocked      State = "blocked"
	StateUntrusted    State = "untrusted"
	StateNeedsAuth    State = "needs-auth"
	// StateIdle is a lazy server not started yet: its cached tools are
	// offered as deferred tools and the first call connects it (SPEC F19).
	StateIdle State = "idle"
	// StateDuplicate is a server that is another configured server under a
	// second name (same command and args, or same url): connected once,
	// under the other name.
	StateDuplicate State = "duplicate"
)

// server is one configured server. Its connection is owned by one
// supervisor goroutine (supervise); the fields below the line are guarded
// by Host.mu and read by everyone else.
type server struct {
	h           *Host
	cfg         config.ServerConfig
	fingerprint string
	log         ringLog

	// admin is a state that holds regardless of connections: disabled,
	// untrusted, blocked, duplicate, or failed for an unusable config.
	admin      State
	err        error
	session    *mcp.ClientSession
	connecting bool          // the supervisor is trying to (re)connect
	settled    chan struct{} // closed when the supervisor connects or gives up
	stopSup    context.CancelFunc
	supDone    chan struct{} // closed when the supervisor has ended
	running    bool          // a supervisor runs (from startLocked until it ends)
	// waitingStart marks an entry Reload has put in place but not started
	// yet: nobody else may start it (Reload will, once the old process
	// is gone).
	waitingStart bool
	// restarting keeps a server connecting while Restart swaps its
	// supervisor, so calls wait instead of failing in the gap.
	restarting bool
	detached   bool // disconnected or host closed
	since      time.Time
	attempts   int
	failures   []time.Time // recent drops and failed reconnects, for the crash-loop guard
	connectDur time.Duration
	pid        int
	transport  config.Transport // the one actually used

	live      []*mcp.Tool // from the connected session, unfiltered
	cached    []*mcp.Tool // from the cache or the last session; deferred until live
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
	initRes   *mcp.InitializeResult

	subscriptions map[string]bool // resource URIs to keep subscribed across reconnects

	refreshing map[listKind]bool // a list_changed refresh is pending or running
	again      map[listKind]bool // another notification came during the refresh
}

func (h *Host) newServer(cfg config.ServerConfig) *server {
	s := &server{
		h: h, cfg: cfg, since: time.Now(), transport: cfg.TransportKind(),
		settled: closedChan(), supDone: closedChan(),
		refreshing: map[listKind]bool{}, again: map[listKind]bool{},
		subscriptions: map[string]bool{},
	}
	// What the person decided (disabled) and what protects them (policy,
	// trust) come before what is wrong with the entry: an untrusted
	// project's server that cannot be substituted is untrusted first.
	switch {
	case cfg.Disabled:
		s.admin = StateDisabled
	case cfg.Blocked != "":
		s.admin, s.err = StateBlocked, fmt.Errorf("blocked by policy: %s", cfg.Blocked)
	case cfg.Untrusted && !h.opts.TrustProject:
		s.admin = StateUntrusted
		s.err = errors.New("project not trusted: run 'switchboard trust' to allow its servers")
	case cfg.Err != nil:
		s.admin, s.err = StateFailed, cfg.Err
	case cfg.DuplicateOf != "":
		s.admin, s.err = StateDuplicate, fmt.Errorf("same server as %q, connected under that name", cfg.DuplicateOf)
	}
	if s.admin == "" {
		s.fingerprint = toolcache.Fingerprint(&cfg, h.opts.ProjectDir)
		s.cached, _ = h.cache.Load(cfg.Name, s.fingerprint)
	}
	return s
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// stateLocked derives the public state from what the host tracks (SPEC
// F16): the administrative state, then connected, connecting, failed.
func (s *server) stateLocked() State {
	switch {
	case s.admin != "":
		return s.admin
	case s.session != nil:
		return StateConnected
	case s.connecting:
		return StateConnecting
	case s.err != nil:
		return StateFailed
	case s.cfg.Lazy:
		return StateIdle
	}
	return StateDisconnected
}

// startLocked starts the server's supervisor. The server must not have a
// running one.
func (h *Host) startLocked(s *server) {
	if s.running || s.detached {
		return // one supervisor per server, and none for a removed one
	}
	ctx, stop := context.WithCancel(h.life)
	s.stopSup = stop
	s.supDone = make(chan struct{})
	s.running = true
	s.restarting, s.waitingStart = false, false
	s.failures = nil
	h.setConnectingLocked(s, nil)
	done := s.supDone
	h.goTracked(func() {
		defer close(done)
		defer func() {
			h.mu.Lock()
			s.running = false
			h.mu.Unlock()
		}()
		defer stop()
		h.supervise(ctx, s)
	})
}

// mayStartLocked reports whether a caller other than Reload may start the
// server now (a lazy server's first call).
func (s *server) mayStartLocked() bool {
	return s.admin == "" && !s.running && !s.waitingStart && !s.detached && s.session == nil && !s.connecting
}

// setConnectingLocked marks a server as (re)connecting; calls arriving now
// wait on its settled channel. A channel still open is kept, so calls
// already waiting (during a reload, say) are woken by this attempt.
func (h *Host) setConnectingLocked(s *server, why error) {
	s.connecting = true
	s.err = why
	s.since = time.Now()
	select {
	case <-s.settled:
		s.settled = make(chan struct{})
	default:
	}
	ev := Event{Type: EventState, Server: s.cfg.Name, State: StateConnecting}
	if why != nil {
		ev.Error = why.Error()
	}
	h.events.publish(ev)
}

// stopLocked stops the supervisor and returns a channel closed once it has
// ended, its session closed and its process gone.
func (s *server) stopLocked() <-chan struct{} {
	if s.running {
		s.stopSup()
		return s.supDone
	}
	// No supervisor will release the calls waiting for this server (a
	// Reload entry not started yet): release them here.
	s.connecting, s.restarting = false, false
	s.releaseLocked()
	return s.supDone
}

// conn is one live connection.
type conn struct {
	sess  *mcp.ClientSession
	stdio *transport.Stdio
	kind  config.Transport
	cat   catalog
	took  time.Duration
}

// supervise owns a server's connection for as long as ctx lives: connect,
// wait for the connection to drop, reconnect with backoff, and give up
// after a crash loop (SPEC F30, F31). A first connect that fails is not
// retried: that is nearly always a config problem, and the person should
// see "failed" rather than endless attempts.
func (h *Host) supervise(ctx context.Context, s *server) {
	everConnected := false
	for {
		c, err := h.connectOnce(ctx, s)
		if ctx.Err() != nil {
			if c != nil {
				c.sess.Close()
			}
			h.settleStopped(s)
			return
		}
		if err != nil {
			if !everConnected {
				h.settleFailed(s, err)
				return
			}
			if !h.retryAfter(ctx, s, err) {
				return
			}
			continue
		}
		everConnected = true
		h.settleConnected(s, c)
		err = h.awaitDrop(ctx, c)
		if ctx.Err() != nil {
			c.sess.Close()
			h.settleStopped(s)
			return
		}
		if !h.retryAfter(ctx, s, err) {
			return
		}
	}
}

// retryAfter handles a drop or a failed reconnect: it counts the failure,
// gives up when the server is crash-looping, and otherwise waits out the
// backoff. It reports whether to try again.
func (h *Host) retryAfter(ctx context.Context, s *server, cause error) bool {
	h.mu.Lock()
	if s.detached {
		s.session, s.pid, s.live = nil, 0, nil
		s.connecting = false
		s.releaseLocked()
		h.mu.Unlock()
		return false
	}
	now := time.Now()
	s.failures = append(recentFailures(s.failures, now), now)
	wasLive := s.session != nil
	if wasLive {
		s.session, s.pid, s.live = nil, 0, nil
	}
	cause = describeFailure(cause, &s.log)
	if len(s.failures) >= CrashLoopFailures {
		s.connecting = false
		s.err = fmt.Errorf("gave up after %d failures within %s (crash loop); last: %w", len(s.failures), CrashLoopWindow, cause)
		s.since = now
		h.events.publish(Event{Type: EventState, Server: s.cfg.Name, State: StateFailed, Error: s.err.Error()})
		h.rebuildToolsLocked()
		s.releaseLocked()
		h.mu.Unlock()
		return false
	}
	delay := backoff(len(s.failures))
	if wasLive {
		h.setConnectingLocked(s, cause)
	} else {
		s.err = cause
	}
	if wasLive {
		h.rebuildToolsLocked()
	}
	h.mu.Unlock()
	h.log.Info("server dropped, reconnecting", "server", s.cfg.Name, "in", delay, "error", cause)
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		h.settleStopped(s)
		return false
	}
}

// settleConnected publishes a new connection and its lists.
func (h *Host) settleConnected(s *server, c *conn) {
	h.mu.Lock()
	if s.detached {
		// Removed while connecting: the supervisor's context is cancelled
		// and it closes c; nothing is published for a server that is gone.
		h.mu.Unlock()
		return
	}
	s.connecting = false
	s.err = nil
	s.since = time.Now()
	s.connectDur = c.took
	s.transport = c.kind
	s.session = c.sess
	s.pid = 0
	if c.stdio != nil {
		s.pid = c.stdio.PID()
	}
	s.live, s.cached = c.cat.tools, c.cat.tools
	s.resources, s.templates, s.prompts = c.cat.resources, c.cat.templates, c.cat.prompts
	s.initRes = c.sess.InitializeResult()
	// Events go out before waiters wake: whoever waited for this server
	// (Start, a deferred call) finds them already published.
	h.events.publish(Event{Type: EventState, Server: s.cfg.Name, State: StateConnected, PID: s.pid})
	h.rebuildToolsLocked()
	s.releaseLocked()
	h.mu.Unlock()

	if c.cat.warning != nil {
		h.addLog(s, LogLine{Level: LevelWarn, Text: c.cat.warning.Error()})
	}
	if err := h.cache.Store(s.cfg.Name, s.fingerprint, c.cat.tools); err != nil {
		h.log.Warn("tool cache write failed", "server", s.cfg.Name, "error", err)
	}
}

// settleFailed reports a first connect that failed.
func (h *Host) settleFailed(s *server, err error) {
	h.mu.Lock()
	if s.detached {
		s.connecting = false
		s.releaseLocked()
		h.mu.Unlock()
		return
	}
	s.connecting = false
	s.err = describeFailure(err, &s.log)
	s.since = time.Now()
	msg := s.err.Error()
	h.events.publish(Event{Type: EventState, Server: s.cfg.Name, State: StateFailed, Error: msg})
	h.rebuildToolsLocked()
	s.releaseLocked()
	h.mu.Unlock()
	h.log.Warn("server failed", "server", s.cfg.Name, "error", msg)
}

// settleStopped releases waiting calls when the supervisor is stopped.
func (h *Host) settleStopped(s *server) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.session, s.pid, s.live = nil, 0, nil
	if s.restarting && !s.detached {
		return // the next supervisor releases the waiting calls
	}
	s.connecting = false
	s.releaseLocked()
}

// releaseLocked closes settled, waking the calls that wait for the server.
func (s *server) releaseLocked() {
	select {
	case <-s.settled:
	default:
		close(s.settled)
	}
}

// connectOnce runs the pipeline for one attempt: dial, handshake, list
// everything (SPEC F12), all bounded by the startup timeout.
func (h *Host) connectOnce(ctx context.Context, s *server) (*conn, error) {
	h.mu.Lock()
	s.attempts++
	h.mu.Unlock()
	start := time.Now()
	timeout := s.cfg.EffectiveStartupTimeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sess, stdio, kind, err := h.dial(ctx, s)
	if err != nil {
		return nil, h.explain(ctx, err, timeout)
	}
	cat, err := list(ctx, sess)
	if err != nil {
		sess.Close()
		return nil, h.explain(ctx, err, timeout)
	}
	h.afterConnect(ctx, s, sess)
	return &conn{sess: sess, stdio: stdio, kind: kind, cat: cat, took: time.Since(start)}, nil
}

func (h *Host) explain(ctx context.Context, err error, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within startup timeout %s: %w", timeout, err)
	}
	return err
}

// awaitDrop waits until a connection ends without the host asking: the
// session's Wait returns, or a stdio child exits while a grandchild keeps
// its stdout open. It returns why, or nil when ctx ended first.
func (h *Host) awaitDrop(ctx context.Context, c *conn) error {
	done := make(chan error, 1)
	go func() { done <- c.sess.Wait() }()
	var exited <-chan struct{}
	if c.stdio != nil {
		exited = c.stdio.Exited()
	}
	var err error
	select {
	case err = <-done:
	case <-exited:
		err = c.stdio.ExitErr()
		if err == nil {
			err = errors.New("server process exited")
		}
		c.sess.Close()
		<-done
	case <-ctx.Done():
		c.sess.Close()
		<-done
		return nil
	}
	if c.stdio != nil {
		// The process may still be running (a protocol error ended the
		// session): Close above or the session's own close ended it.
		if exitErr := c.stdio.ExitErr(); exitErr != nil && transport.IsExitError(exitErr) {
			err = fmt.Errorf("server process ended: %w", exitErr)
		}
	}
	if err == nil {
		err = errors.New("server closed the connection")
	}
	return fmt.Errorf("connection lost: %w", err)
}

// describeFailure adds the server's last error lines on stderr to an
// error: "exit status 1" alone tells a person nothing.
func describeFailure(err error, log *ringLog) error {
	lines := log.tailErrors(3)
	if len(lines) == 0 {
		return err
	}
	return fmt.Errorf("%w (stderr: %s)", err, strings.Join(lines, " | "))
}

// dial builds the transport and runs the handshake.
func (h *Host) dial(ctx context.Context, s *server) (*mcp.ClientSession, *transport.Stdio, config.Transport, error) {
	cfg := &s.cfg
	client := h.newClient(s)
	opts := &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion}
	kind := cfg.TransportKind()
	switch kind {
	case config.TransportStdio:
		t := transport.NewStdio(cfg, h.opts.ProjectDir, transport.Hooks{
			Stderr:  func(line string) { h.serverLog(s, line, "") },
			Skipped: func(line string) { h.serverLog(s, line, "skipped non-JSON line on stdout: ") },
		})
		sess, err := client.Connect(ctx, t, opts)
		if err != nil {
			t.Close()
			return nil, nil, kind, err
		}
		t.MarkReady()
		return sess, t, kind, nil
	case config.TransportAuto:
		auto := transport.NewAuto(cfg)
		sess, err := client.Connect(ctx, auto.Streamable, opts)
		if err == nil {
			return sess, nil, config.TransportHTTP, nil
		}
		if !auto.FallBack() || ctx.Err() != nil {
			return nil, nil, config.TransportHTTP, err
		}
		h.log.Info("streamable HTTP refused, trying SSE", "server", cfg.Name, "error", err)
		sess, err = client.Connect(ctx, transport.NewHTTP(cfg, config.TransportSSE), opts)
		return sess, nil, config.TransportSSE, err
	default:
		sess, err := client.Connect(ctx, transport.NewHTTP(cfg, kind), opts)
		return sess, nil, kind, err
	}
}

func (h *Host) serverLog(s *server, line, prefix string) {
	l := LogLine{Level: classify(line), Text: prefix + line}
	if prefix != "" {
		l.Level = LevelWarn
	}
	h.addLog(s, l)
}

// catalog is everything a server offers, listed right after connecting.
type catalog struct {
	tools     []*mcp.Tool
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
	warning   error // a non-tool list failed
}

// list reads every page of every list the server advertises, and only those
// (asking for an unadvertised list is an error on strict servers).
func list(ctx context.Context, sess *mcp.ClientSession) (catalog, error) {
	var c catalog
	caps := sess.InitializeResult().Capabilities
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	var err error
	if caps.Tools != nil {
		if c.tools, err = collect(sess.Tools(ctx, nil)); err != nil {
			return c, fmt.Errorf("tools/list: %w", err)
		}
	}
	if c.tools == nil {
		c.tools = []*mcp.Tool{}
	}
	// Resources and prompts are extras: a server whose resource listing is
	// broken still has usable tools, so those failures are only noted.
	var extra []error
	if caps.Resources != nil {
		if c.resources, err = collect(sess.Resources(ctx, nil)); err != nil {
			extra = append(extra, fmt.Errorf("resources/list: %w", err))
		}
		if c.templates, err = collect(sess.ResourceTemplates(ctx, nil)); err != nil {
			extra = append(extra, fmt.Errorf("resources/templates/list: %w", err))
		}
	}
	if caps.Prompts != nil {
		if c.prompts, err = collect(sess.Prompts(ctx, nil)); err != nil {
			extra = append(extra, fmt.Errorf("prompts/list: %w", err))
		}
	}
	c.warning = errors.Join(extra...)
	return c, nil
}

func collect[T any](seq func(yield func(T, error) bool)) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// afterConnect sets up what a new session needs before it is published:
// the log level (go-sdk servers send no log notifications until a client
// sets one) and the resource subscriptions of the previous session.
func (h *Host) afterConnect(ctx context.Context, s *server, sess *mcp.ClientSession) {
	caps := sess.InitializeResult().Capabilities
	if caps != nil && caps.Logging != nil {
		//lint:ignore SA1019 the level is how 2025-11-25 servers learn to send logs
		if err := sess.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: h.opts.LogLevel}); err != nil {
			h.addLog(s, LogLine{Level: LevelWarn, Text: "logging/setLevel: " + err.Error()})
		}
	}
	h.mu.Lock()
	var uris []string
	for uri := range s.subscriptions {
		uris = append(uris, uri)
	}
	h.mu.Unlock()
	for _, uri := range uris {
		if err := sess.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			h.addLog(s, LogLine{Level: LevelWarn, Text: "resubscribing to " + uri + ": " + err.Error()})
		}
	}
}
