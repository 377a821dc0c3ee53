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
)

// closer is what ends a connection: a client session, or a bare transport
// when the handshake never produced one.
type closer interface{ Close() error }

// server is one configured server and its connection. Fields below the
// line are guarded by Host.mu.
type server struct {
	h           *Host
	cfg         config.ServerConfig
	fingerprint string
	log         ringLog

	// admin is a state that holds regardless of connections: disabled,
	// untrusted, blocked, or failed for an unusable config.
	admin      State
	err        error
	session    *mcp.ClientSession
	stdio      *transport.Stdio
	connecting bool          // a connect attempt is running
	settled    chan struct{} // closed when the current attempt ends
	cancel     context.CancelFunc
	detached   bool // disconnected or host closed: late results are dropped
	since      time.Time
	attempts   int
	connectDur time.Duration
	pid        int
	transport  config.Transport // the one actually used

	live      []*mcp.Tool // from the connected session, unfiltered
	cached    []*mcp.Tool // from the cache, deferred until live
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
	initRes   *mcp.InitializeResult

	refreshing, refreshAgain bool // a tools/list_changed refresh is running
}

func (h *Host) newServer(cfg config.ServerConfig) *server {
	s := &server{h: h, cfg: cfg, since: time.Now(), settled: closedChan(), transport: cfg.TransportKind()}
	switch {
	case cfg.Err != nil:
		s.admin, s.err = StateFailed, cfg.Err
	case cfg.Disabled:
		s.admin = StateDisabled
	case cfg.Source.Level == config.LevelProject && !h.opts.TrustProject:
		s.admin = StateUntrusted
		s.err = errors.New("project config is not trusted; run with --trust-project to allow it")
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

func (s *server) hasCache() bool {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.cached != nil
}

// stateLocked derives the public state from what the host tracks.
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

// startConnectLocked begins a connect attempt in the background.
func (h *Host) startConnectLocked(s *server) {
	ctx, cancel := context.WithTimeout(h.life, s.cfg.EffectiveStartupTimeout())
	s.connecting = true
	s.cancel = cancel
	s.settled = make(chan struct{})
	s.attempts++
	s.err = nil
	s.since = time.Now()
	settled := s.settled
	h.events.publish(Event{Type: EventState, Server: s.cfg.Name, State: StateConnecting})
	h.goTracked(func() {
		defer cancel()
		h.connect(ctx, s, settled)
	})
}

// connect runs the pipeline for one server: connect, list everything,
// publish, write the cache (SPEC F12, F14).
func (h *Host) connect(ctx context.Context, s *server, settled chan struct{}) {
	start := time.Now()
	sess, stdio, kind, err := h.dial(ctx, s)
	var c catalog
	if err == nil {
		c, err = list(ctx, sess)
		if err != nil {
			sess.Close()
		}
	}
	if err != nil && ctx.Err() == context.DeadlineExceeded && h.life.Err() == nil {
		err = fmt.Errorf("no answer within startup timeout %s: %w", s.cfg.EffectiveStartupTimeout(), err)
	}

	h.mu.Lock()
	if s.detached {
		h.mu.Unlock()
		close(settled)
		if sess != nil && err == nil {
			sess.Close()
		}
		return
	}
	s.connecting = false
	s.since = time.Now()
	s.connectDur = time.Since(start)
	s.transport = kind
	if err != nil {
		s.err = describeFailure(err, &s.log)
	} else {
		s.session, s.stdio = sess, stdio
		if stdio != nil {
			s.pid = stdio.PID()
		}
		s.live, s.resources, s.templates, s.prompts, s.initRes = c.tools, c.resources, c.templates, c.prompts, sess.InitializeResult()
		s.cached = c.tools
		if c.warning != nil {
			s.log.add(LogLine{Time: time.Now(), Level: LevelWarn, Text: c.warning.Error()})
		}
	}
	state, pid := s.stateLocked(), s.pid
	close(settled)
	changed := h.rebuildToolsLocked()
	if err == nil {
		h.goTracked(func() { h.monitor(s, sess, stdio) })
	}
	h.mu.Unlock()

	ev := Event{Type: EventState, Server: s.cfg.Name, State: state, PID: pid}
	if err != nil {
		ev.Error = s.err.Error()
		h.log.Warn("server failed", "server", s.cfg.Name, "error", s.err)
	}
	h.events.publish(ev)
	if changed {
		h.publishTools()
	}
	if err == nil {
		if err := h.cache.Store(s.cfg.Name, s.fingerprint, c.tools); err != nil {
			h.log.Warn("tool cache write failed", "server", s.cfg.Name, "error", err)
		}
	}
}

// describeFailure adds the server's last error lines on stderr to a connect
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

// monitor notices a connection that ends without the host asking: the
// session's Wait returns, or a stdio child exits while a grandchild keeps
// its stdout open.
func (h *Host) monitor(s *server, sess *mcp.ClientSession, stdio *transport.Stdio) {
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	var err error
	var exited <-chan struct{}
	if stdio != nil {
		exited = stdio.Exited()
	}
	select {
	case err = <-done:
	case <-exited:
		err = stdio.ExitErr()
		sess.Close()
		<-done
	}
	h.mu.Lock()
	if s.session != sess || s.detached {
		h.mu.Unlock()
		return
	}
	s.session, s.stdio, s.pid = nil, nil, 0
	s.live = nil
	if err == nil {
		err = errors.New("server closed the connection")
	}
	s.err = describeFailure(fmt.Errorf("connection lost: %w", err), &s.log)
	s.since = time.Now()
	state := s.stateLocked()
	changed := h.rebuildToolsLocked()
	h.mu.Unlock()
	h.events.publish(Event{Type: EventState, Server: s.cfg.Name, State: state, Error: s.err.Error()})
	if changed {
		h.publishTools()
	}
}

// detachLocked marks a server as gone and returns its connection, which
// the caller closes with stop after releasing the lock.
func (s *server) detachLocked() closer {
	s.detached = true
	if s.cancel != nil {
		s.cancel()
	}
	sess := s.session
	s.session, s.live = nil, nil
	if sess == nil {
		return nil
	}
	return sess
}

// stop closes a detached server's connection and waits for a running
// connect attempt to give up (it closes its own transport).
func (s *server) stop(c closer) {
	if c != nil {
		c.Close()
	}
	s.h.mu.Lock()
	settled := s.settled
	s.h.mu.Unlock()
	<-settled
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
