package host

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/internal/toolcache"
	"github.com/switchboard-mcp/switchboard/host/internal/transport"
)

// Reconnect policy (DESIGN.md F30, F31). A dropped server is retried after
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

// startLocked starts a supervisor for a server that has none in charge:
// idle, starting, or failed. A failed server's supervisor may still be
// returning; the new one waits for it, so a server never has two.
func (h *Host) startLocked(s *server) {
	if s.admin != "" || !s.phase.canBecome(phaseConnecting) {
		return
	}
	ctx, stop := context.WithCancel(h.life)
	prev, done := s.supDone, make(chan struct{})
	s.stopSup, s.supDone = stop, done
	h.transitionLocked(s, phaseConnecting, nil, nil)
	h.goTracked(func() {
		defer close(done)
		defer stop()
		<-prev
		h.supervise(ctx, s)
	})
}

// stopSupervisorLocked cancels the server's supervisor, if it has one, and
// returns a channel closed once it has ended, its session closed and its
// process gone. The caller has already moved the server out of the
// supervised phases in the same hold of the lock, so the supervisor, which
// checks its context under the lock (settle), changes nothing more.
func (s *server) stopSupervisorLocked() <-chan struct{} {
	if s.stopSup != nil {
		s.stopSup()
	}
	return s.supDone
}

// conn is one live connection.
type conn struct {
	sess  *mcp.ClientSession
	stdio *stdioProc // nil for a remote server
	kind  config.Transport
	tools []*mcp.Tool
	ttl   time.Duration // how long the server says its tools stay good; noTTL for no hint
	took  time.Duration // to connect and list the tools
	// listed is closed by listExtras once the rest of the catalog is
	// listed, or the connection is gone.
	listed chan struct{}
	// end ends the context of the host's own requests on the connection
	// (listExtras), set once it is published.
	end context.CancelFunc
	// listenEnded is closed when the server lets the connection's
	// subscriptions/listen stream go (2026-07-28): go-sdk opens it once,
	// at connect, so only a new connection brings list changes again.
	listenEnded chan struct{}
}

// close closes a published connection. The host's own requests end
// first: go-sdk's Close waits for every outgoing call to be answered, and
// a server that died while a grandchild holds its stdout answers none.
func (c *conn) close() {
	c.end()
	c.sess.Close()
}

// supervise owns a server's connection for as long as ctx lives: connect,
// wait for the connection to drop, reconnect with backoff (DESIGN.md F30,
// F31). A first connect that fails is not retried: that is nearly always a
// config problem, and the person should see "failed" rather than endless
// attempts. After that the two kinds of server part ways. A process that
// keeps dying is crash-looping, and is given up on after
// CrashLoopFailures drops within CrashLoopWindow. A remote server that
// cannot be reached is not crash-looping: it is down, and the supervisor
// keeps trying, the delay doubling up to BackoffMax, until it is back.
// When ctx ends, whoever ended it has moved the server on already; the
// supervisor only closes what it holds.
func (h *Host) supervise(ctx context.Context, s *server) {
	var failures []time.Time // recent drops and failed reconnects, for the crash-loop guard
	misses := 0              // failures since the last connection, for a remote server's backoff
	everConnected := false
	process := s.cfg.TransportKind() == config.TransportStdio
	for {
		c, err := h.connectOnce(ctx, s)
		if err == nil {
			if !h.settle(ctx, s, phaseConnected, nil, c) {
				c.sess.Close()
				return
			}
			everConnected, misses = true, 0
			// The rest of the catalog is listed beside the connection's
			// life, and is done with its session before the next one.
			var connCtx context.Context
			connCtx, c.end = context.WithCancel(ctx)
			h.goTracked(func() { h.listExtras(connCtx, s, c) })
			h.afterSettled(s, c)
			err = h.awaitDrop(ctx, s, c)
			c.end()
			<-c.listed
		}
		if ctx.Err() != nil {
			return
		}
		if why, ok := s.needsAuth(err); ok {
			// Not a failure of the server's, and no retry can mend it: it
			// waits for Login (DESIGN.md F41).
			if h.settle(ctx, s, phaseNeedsAuth, why, nil) {
				h.log.Warn("server needs authorization", "server", s.cfg.Name, "error", why)
			}
			return
		}
		if !everConnected {
			err = describeFailure(err, &s.log)
			if h.settle(ctx, s, phaseFailed, err, nil) {
				h.log.Warn("server failed", "server", s.cfg.Name, "error", err)
			}
			return
		}
		now := time.Now()
		failures = append(recentFailures(failures, now), now)
		misses++
		cause := describeFailure(err, &s.log)
		if process && len(failures) >= CrashLoopFailures {
			err := fmt.Errorf("gave up after %d failures within %s (crash loop); last: %w", len(failures), CrashLoopWindow, cause)
			if h.settle(ctx, s, phaseFailed, err, nil) {
				h.log.Warn("server failed", "server", s.cfg.Name, "error", err)
			}
			return
		}
		// The step is the recent drops, or for a remote server that stays
		// unreachable the failures since it was last up, whichever is more:
		// one that accepts each connection and drops it at once must not
		// be tried four times a second for ever.
		step := len(failures)
		if !process {
			step = max(step, misses)
		}
		delay := h.backoff(step)
		if !h.settleRetry(ctx, s, cause, now.Add(delay)) {
			return
		}
		h.log.Info("server dropped, reconnecting", "server", s.cfg.Name, "in", delay.Round(time.Millisecond), "error", cause)
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return
		}
	}
}

// backoff is the delay before the next attempt after n failures: the
// test hook's, if one is set.
func (h *Host) backoff(n int) time.Duration {
	if h.hooks.backoff != nil {
		return h.hooks.backoff(n)
	}
	return backoff(n)
}

// settleRetry moves s to reconnecting for its supervisor, which will try
// again at next, as settle does.
func (h *Host) settleRetry(ctx context.Context, s *server, why error, next time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	s.retryAt = next
	h.transitionLocked(s, phaseReconnecting, why, nil)
	return true
}

// settle moves s on for the supervisor that owns ctx, and reports whether
// it did. It does not once that supervisor has been stopped: whoever
// stopped it (Restart, Reload, Disconnect, Close) moved the server on and
// cancelled ctx in one hold of the lock, so a cancelled ctx seen under the
// lock is final, and a live one stays live until the lock is released.
func (h *Host) settle(ctx context.Context, s *server, to phase, why error, c *conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	h.transitionLocked(s, to, why, c)
	return true
}

// afterSettled does what a new connection needs once it is published and
// that can wait for no lock: cache the tools.
func (h *Host) afterSettled(s *server, c *conn) {
	h.mu.Lock()
	s.expires = expiry(c.ttl)
	h.mu.Unlock()
	h.storeCache(s, c.sess)
}

// storeCache writes the server's cache entry: the tools it offers, and
// the rest of its catalog as last listed (cachedExtras: the connection's
// once listed, else what the cache had, which a new connection's tools
// must not wipe out).
func (h *Host) storeCache(s *server, sess *mcp.ClientSession) {
	s.storing.Lock()
	defer s.storing.Unlock()
	h.mu.Lock()
	ent := toolcache.Entry{Tools: s.cached, Protocol: sessionProtocol(sess), Expires: s.expires}
	if x := s.cachedExtras; x != nil {
		ent.Extras = &toolcache.Extras{Resources: x.Resources, Templates: x.Templates, Prompts: x.Prompts}
	}
	h.mu.Unlock()
	if err := h.cache.Store(s.cfg.Name, s.fingerprint, ent); err != nil {
		h.log.Warn("tool cache write failed", "server", s.cfg.Name, "error", err)
	}
}

// connectOnce runs the pipeline for one attempt: dial, handshake, list
// the tools (DESIGN.md F12), all bounded by the startup timeout. The rest
// of the catalog waits until the connection is published (listExtras):
// a server's tools are what an agent waits for.
func (h *Host) connectOnce(ctx context.Context, s *server) (*conn, error) {
	if h.hooks.beforeAttempt != nil {
		h.hooks.beforeAttempt(ctx, s.cfg.Name)
	}
	h.mu.Lock()
	s.attempts++
	h.mu.Unlock()
	if s.auth != nil {
		s.auth.Retry()
	}
	start := time.Now()
	timeout := s.cfg.EffectiveStartupTimeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	listenEnded := make(chan struct{})
	var once sync.Once
	sess, stdio, kind, err := h.dial(ctx, s, func() { once.Do(func() { close(listenEnded) }) })
	if err != nil {
		err = h.explain(ctx, transport.Explain(err), timeout)
		h.log.Info("connect failed", "server", s.cfg.Name, "took", since(start), "error", err)
		return nil, err
	}
	init := sess.InitializeResult()
	h.log.Info("initialized", "server", s.cfg.Name, "transport", kind, "protocol", init.ProtocolVersion,
		"serverName", serverInfo(init).Name, "serverVersion", serverInfo(init).Version, "took", since(start))
	listed := time.Now()
	// The log level goes alongside the tool list: a go-sdk server sends no
	// log notification until a client sets one, and a call made the moment
	// the server is published must have its logs; in the same round trip,
	// it costs no time.
	levelCtx, stopLevel := context.WithCancel(ctx)
	defer stopLevel()
	levelSet := h.setLogLevel(levelCtx, s, sess, timeout)
	tools, ttl, err := listToolsOf(ctx, sess)
	if err != nil {
		stopLevel() // go-sdk's Close waits for every call in flight
	}
	<-levelSet
	if err != nil {
		sess.Close()
		err = h.explain(ctx, err, timeout)
		h.log.Info("listing failed", "server", s.cfg.Name, "error", err)
		return nil, err
	}
	tools = h.maskCatalog(catalog{tools: tools}).tools
	h.recordPins(s, tools)
	h.log.Info("listed", "server", s.cfg.Name, "tools", len(tools), "took", since(listed))
	return &conn{sess: sess, stdio: stdio, kind: kind, tools: tools, ttl: ttl, took: time.Since(start), listed: make(chan struct{}), listenEnded: listenEnded}, nil
}

// since is the time since t, rounded for a log line.
func since(t time.Time) time.Duration { return time.Since(t).Round(10 * time.Microsecond) }

func serverInfo(r *mcp.InitializeResult) *mcp.Implementation {
	if r == nil || r.ServerInfo == nil {
		return &mcp.Implementation{}
	}
	return r.ServerInfo
}

func (h *Host) explain(ctx context.Context, err error, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within startup timeout %s: %w", timeout, err)
	}
	return err
}

// awaitDrop waits until a connection ends without the host asking: the
// session's Wait returns, a stdio child exits while a grandchild keeps its
// stdout open, or a ping goes unanswered. It returns why, or nil when ctx
// ended first.
//
// The host pings, not go-sdk's KeepAlive: when a ping fails, go-sdk closes
// the session and the error left to read is the one its close ran into
// (over HTTP, `Delete "http://…"`), not the failed ping.
func (h *Host) awaitDrop(ctx context.Context, s *server, c *conn) error {
	done := make(chan error, 1)
	go func() { done <- c.sess.Wait() }()
	var exited <-chan struct{}
	if c.stdio != nil {
		exited = c.stdio.Exited()
	}
	h.mu.Lock()
	interval := s.cfg.PingInterval
	h.mu.Unlock()
	var tick <-chan time.Time
	if interval > 0 {
		ticker := time.NewTicker(interval)
		defer ticker.Stop()
		tick = ticker.C
	}
	lost := s.authLost()
	var err error
	byHost := false // the host ended the connection, and err says why
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-c.listenEnded:
			err = errors.New("the server ended the subscriptions/listen stream")
			byHost = true
			c.close()
			<-done
			break wait
		case <-lost:
			err = errAuthLost
			if na := s.auth.Need(); na != nil {
				err = na
			}
			byHost = true
			c.close()
			<-done
			break wait
		case <-exited:
			err = c.stdio.ExitErr()
			if err == nil {
				err = errors.New("server process exited")
			}
			c.close()
			<-done
			break wait
		case <-tick:
			perr := ping(ctx, c.sess, interval)
			if ctx.Err() != nil {
				break
			}
			if errors.Is(perr, methodNotFound) {
				tick = nil // a server without ping cannot be watched this way
				h.addLog(s, LogLine{Level: LevelWarn, Text: "server does not answer ping; not pinging it"})
				continue
			}
			if perr != nil {
				err = fmt.Errorf("no answer to ping: %w", perr)
				byHost = true
				c.close()
				<-done
				break wait
			}
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			c.close()
			<-done
			return nil
		}
	}
	if c.stdio != nil {
		// The process may still be running (a protocol error ended the
		// session): Close above or the session's own close ended it.
		if exitErr := c.stdio.ExitErr(); exitErr != nil && transport.IsExitError(exitErr) {
			err = fmt.Errorf("server process ended: %w", exitErr)
		}
		// One that exited by itself says so, with its last words.
		if !byHost {
			if err == nil {
				err = errors.New("server closed the connection")
			}
			err = c.stdio.ended(err)
		}
	}
	if err == nil {
		err = errors.New("server closed the connection")
	}
	if h.hooks.dropNoticed != nil {
		h.hooks.dropNoticed(ctx, s.cfg.Name)
	}
	return fmt.Errorf("connection lost: %w", transport.Explain(err))
}

// methodNotFound matches the error of a server that has no such method.
var methodNotFound = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}

// ping sends one ping, bounded by half the interval as go-sdk's own
// keep-alive does: an answer that takes longer than that is no answer.
func ping(ctx context.Context, sess *mcp.ClientSession, interval time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, max(interval/2, 10*time.Millisecond))
	defer cancel()
	var err error
	if modern(sess) {
		err = alive(ctx, sess) // 2026-07-28 has no ping
	} else {
		err = sess.Ping(ctx, nil)
	}
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("none within %s", max(interval/2, 10*time.Millisecond))
	}
	return err
}
