package host

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/transport"
)

// Reconnect policy (SPEC F30, F31). A dropped server is retried after
// BackoffBase, doubling per recent failure up to BackoffMax, each delay
// spread by ±BackoffJitter so servers that died together do not all come
// back in the same instant. CrashLoopFailures failures within
// CrashLoopWindow mean the server is crash-looping: it is given up on
// (state failed) until Restart or a config change. With these numbers a
// server that dies at once is spawned at most five times a minute.
const (
	BackoffBase       = 250 * time.Millisecond
	BackoffMax        = 30 * time.Second
	BackoffJitter     = 0.2
	CrashLoopFailures = 5
	CrashLoopWindow   = time.Minute
)

// backoff is the delay before the next attempt after n recent failures.
func backoff(n int) time.Duration {
	d := BackoffBase
	for i := 1; i < n && d < BackoffMax; i++ {
		d *= 2
	}
	d = min(d, BackoffMax)
	spread := float64(d) * BackoffJitter
	return d + time.Duration((rand.Float64()*2-1)*spread)
}

// recentFailures drops failures older than the crash-loop window.
func recentFailures(fs []time.Time, now time.Time) []time.Time {
	i := 0
	for i < len(fs) && now.Sub(fs[i]) > CrashLoopWindow {
		i++
	}
	return fs[i:]
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
