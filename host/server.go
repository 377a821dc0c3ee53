package host

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/internal/oauth"
	"github.com/switchboard-mcp/switchboard/host/internal/toolcache"
	"github.com/switchboard-mcp/switchboard/host/internal/transport"
)

// State is a server's public state (DESIGN.md F16).
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
	// offered as deferred tools and the first call connects it (DESIGN.md F19).
	StateIdle State = "idle"
	// StateDuplicate is a server that is another configured server under a
	// second name (the same config.ServerConfig.Identity): connected once,
	// under the other name.
	StateDuplicate State = "duplicate"
)

// server is one configured server. Its connection is owned by one
// supervisor goroutine (supervise); the fields from admin on are guarded
// by Host.mu and read by everyone else.
type server struct {
	h           *Host
	cfg         config.ServerConfig
	fingerprint string
	pinKey      string // its pins' key: the fingerprint of its place (toolcache.PlaceFingerprint)
	log         ringLog

	// admin is a state that holds regardless of connections: disabled,
	// untrusted, blocked, duplicate, or failed for an unusable config.
	admin State
	// phase is where the server is in its life; transitionLocked changes
	// it, and with it err, since, session, pid, listed and settled.
	phase   phase
	err     error
	since   time.Time
	retryAt time.Time // when a reconnecting server is tried next
	session *mcp.ClientSession
	// gone is closed when session is no longer the published one: a
	// call that found it closed before its request was written waits for
	// this, then for the next session.
	gone    chan struct{}
	pid     int
	settled chan struct{} // open while the phase waits: calls wait on it
	stopSup context.CancelFunc
	supDone chan struct{} // closed when the latest supervisor has ended

	// workDir is cfg.WorkDir, or a reload's newer one that the running
	// process does not depend on (config.DependsOnWorkDir): where the
	// next start runs. Guarded by h.mu.
	workDir string

	attempts   int
	connectDur time.Duration
	transport  config.Transport // the one actually used

	// The lists are the catalog's: only changeCatalogLocked writes them
	// (newServer fills cached before anyone sees the entry).
	live   []*mcp.Tool // from the connected session, unfiltered
	cached []*mcp.Tool // from the cache or the last session; deferred until live
	// resources, templates and prompts are listed after the connection
	// is published (listExtras); listed is closed once they are, or once
	// the connection is gone, and is closed while not connected.
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
	listed    chan struct{}
	initRes   *mcp.InitializeResult
	// pinChanges are how the tools offered differ from what is
	// remembered (pins.go), as the last rebuild of the tool set found.
	pinChanges []PinChange
	// cachedExtras are the resources, templates and prompts from the
	// cache or the last connection's listing, shown (deferred) until this
	// connection's are listed (extrasLocked); nil when none are known.
	cachedExtras *toolcache.Extras
	// expires is when the cached tools go stale (toolcache.Entry), kept
	// for the entry's rewrite once the rest of the catalog is listed.
	expires time.Time
	// storing orders the writes of the server's cache entry, each made of
	// what holds when it is written (storeCache): the last is the newest.
	storing sync.Mutex

	subscriptions map[string]int // resource URIs to keep subscribed across reconnects, with their subscribers

	// tail is the last stderr lines of the latest process, for the
	// events that say it dropped or failed; nil before one started.
	tail *stderrTail

	// era is the protocol version the server spoke last, from the tool
	// cache until it connects (eras.go); "" when not known.
	era string

	// auth authorizes a remote server with OAuth when it asks (auth.go);
	// nil for a process. It lives as long as the entry, across connections.
	auth *oauth.Handler

	refreshing map[listKind]bool // a list_changed refresh is pending or running
	again      map[listKind]bool // another notification came during the refresh
}

// newServer builds the entry of cfg, placed in its first phase, with its
// cached tools. It reads only what New set (the options, the cache), so it
// needs no lock, and the entry is nobody's until its caller places it.
func (h *Host) newServer(cfg config.ServerConfig) *server {
	s := &server{
		h: h, cfg: cfg, since: time.Now(), transport: cfg.TransportKind(), workDir: cfg.WorkDir,
		settled: closedChan(), supDone: closedChan(), listed: closedChan(),
		refreshing: map[listKind]bool{}, again: map[listKind]bool{},
		subscriptions: map[string]int{},
	}
	s.log.all = &h.logs
	// The admission order is config's (DESIGN.md, "Admission"): the host
	// and `sources` report the same reason for the same server.
	if h.opts.TrustProject {
		cfg.Untrusted = false
	}
	switch cfg.Admission() {
	case config.AdmitDisabled:
		s.admin = StateDisabled
	case config.AdmitBlocked:
		s.admin, s.err = StateBlocked, fmt.Errorf("blocked by policy: %s", cfg.Blocked)
	case config.AdmitUntrusted:
		s.admin = StateUntrusted
		s.err = errors.New("project not trusted: run 'switchboard trust' to allow its servers")
	case config.AdmitInvalid:
		s.admin, s.err = StateFailed, cfg.Err
	case config.AdmitDuplicate:
		s.admin, s.err = StateDuplicate, fmt.Errorf("same server as %q, connected under that name", cfg.DuplicateOf)
	}
	if s.admin == "" {
		s.auth = h.newAuth(&s.cfg)
		s.fingerprint = toolcache.Fingerprint(&cfg, h.opts.ProjectDir)
		s.pinKey = pinKey(&cfg, h.opts.ProjectDir)
		if e, ok := h.cache.Load(cfg.Name, s.fingerprint); ok {
			h.observeCacheHit(cfg.Name)
			s.era = e.Protocol
			// A list past the ttl its server gave it is not trusted to
			// stand in at start (Start waits for the server, as for one
			// never cached); a lazy server still offers it, deferred: it
			// is the only way its tools are found before a call.
			if !e.Stale || cfg.Lazy {
				s.cached, s.cachedExtras = e.Tools, e.Extras
			}
		}
		if !cfg.Lazy {
			// Placed starting, for its placer (Start, Reload) to start:
			// calls wait for it from the moment anyone can see it.
			s.phase, s.settled = phaseStarting, make(chan struct{})
		}
	}
	return s
}

// newServers builds the entries of configs, as newServer does, reading
// their cache entries in parallel: a hundred of them take milliseconds of
// JSON decoding, all before the startup gate.
func (h *Host) newServers(configs []config.ServerConfig) []*server {
	out := make([]*server, len(configs))
	workers := min(runtime.GOMAXPROCS(0), len(configs))
	if h.cache == nil || workers <= 1 {
		for i, cfg := range configs {
			out[i] = h.newServer(cfg)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(configs); i = int(next.Add(1) - 1) {
				out[i] = h.newServer(configs[i])
			}
		})
	}
	wg.Wait()
	return out
}

// describeFailure adds the server's last error lines on stderr to an
// error: "exit status 1" alone tells a person nothing. An exitedError
// quotes its process's own already.
func describeFailure(err error, log *ringLog) error {
	var exited *exitedError
	if errors.As(err, &exited) {
		return err
	}
	lines := log.tailErrors(3)
	if len(lines) == 0 {
		return err
	}
	return fmt.Errorf("%w (stderr: %s)", err, strings.Join(lines, " | "))
}

// slowProbeFactor is how much longer the era probe is waited for on a
// second connect, after a first whose probe went unanswered in time and
// whose initialize then failed too.
const slowProbeFactor = 4

// dial builds the transport and runs the handshake.
// listenEnded, called by the transport, says the connection's
// subscriptions/listen stream ended (transport.Hooks.ListenEnded).
//
// A server that answers server/discover only after the probe's bound (a
// loaded machine starting many at once) then refuses the initialize sent
// after it on the same connection, as a second handshake: the probe's
// timing out and the initialize's failing together are that, or a broken
// server, and the connect is made once more, the probe waited for
// slowProbeFactor times as long.
func (h *Host) dial(ctx context.Context, s *server, listenEnded func()) (*mcp.ClientSession, *stdioProc, config.Transport, error) {
	var timedOut atomic.Bool
	sess, proc, kind, err := h.dialBounded(ctx, s, listenEnded, h.discoverTimeout(), &timedOut)
	if err == nil || !timedOut.Load() || ctx.Err() != nil {
		return sess, proc, kind, err
	}
	bound := slowProbeFactor * h.discoverTimeout()
	h.addLog(s, LogLine{Level: LevelWarn, Text: fmt.Sprintf("%s after no answer to %s within %s; connecting again, waiting %s for it", err, methodDiscover, h.discoverTimeout(), bound)})
	timedOut.Store(false)
	return h.dialBounded(ctx, s, listenEnded, bound, &timedOut)
}

// dialBounded is dial with the era probe bounded by bound; timedOut
// records that it went unanswered in time.
func (h *Host) dialBounded(ctx context.Context, s *server, listenEnded func(), bound time.Duration, timedOut *atomic.Bool) (*mcp.ClientSession, *stdioProc, config.Transport, error) {
	cfg := &s.cfg
	kind := cfg.TransportKind()
	version := h.protocolFor(s, kind)
	// Every server/discover is bounded, also for a server cached as
	// modern: it may have been replaced by one that ignores it.
	probe := version >= config.ProtocolModern
	opts := &mcp.ClientSessionOptions{ProtocolVersion: version}
	defer func() {
		if timedOut.Load() {
			h.addLog(s, LogLine{Level: LevelWarn, Text: fmt.Sprintf("no answer to %s within %s: speaking %s", methodDiscover, bound, config.ProtocolLegacy)})
		}
	}()
	newClient := func(notes string) *mcp.Client {
		c := h.newClient(s, notes)
		if probe {
			c.AddSendingMiddleware(discoverProbe(bound, timedOut))
		}
		return c
	}
	if kind == config.TransportStdio {
		sess, t, err := h.dialStdio(ctx, s, opts, newClient, listenEnded)
		return sess, t, kind, err
	}
	client := newClient("")
	hooks := transport.Hooks{Dropped: func(what string) { h.addLog(s, LogLine{Level: LevelWarn, Text: what}) }, ListenEnded: listenEnded}
	switch kind {
	case config.TransportAuto:
		h.log.Info("connecting", "server", cfg.Name, "url", cfg.URL, "transport", "streamable HTTP, else SSE")
		auto := transport.NewAuto(cfg, hooks, s.oauthHandler())
		sess, err := client.Connect(ctx, auto.Streamable, opts)
		if err == nil {
			return sess, nil, config.TransportHTTP, nil
		}
		if !auto.FallBack() || ctx.Err() != nil {
			return nil, nil, config.TransportHTTP, err
		}
		h.log.Info("streamable HTTP refused, trying SSE", "server", cfg.Name, "error", err)
		opts.ProtocolVersion = config.ProtocolLegacy // SSE is the legacy era's transport
		sess, err = client.Connect(ctx, transport.NewHTTP(cfg, config.TransportSSE, hooks, s.oauthHandler()), opts)
		return sess, nil, config.TransportSSE, err
	default:
		h.log.Info("connecting", "server", cfg.Name, "url", cfg.URL, "transport", kind)
		sess, err := client.Connect(ctx, transport.NewHTTP(cfg, kind, hooks, s.oauthHandler()), opts)
		return sess, nil, kind, err
	}
}

// dialStdio starts a stdio server and runs the handshake. What the
// transport sees besides messages goes to the server's log: stderr,
// skipped lines, refused messages, and its notes of dropped log
// notifications, which come in the stream under a logger name of their
// own so they keep their place among the server's lines.
// A process that ends during the handshake is told as its own ending,
// with what it said on stderr (exitedError).
func (h *Host) dialStdio(ctx context.Context, s *server, opts *mcp.ClientSessionOptions, newClient func(notes string) *mcp.Client, listenEnded func()) (*mcp.ClientSession, *stdioProc, error) {
	dir := h.workDir
	h.mu.Lock()
	if s.workDir != "" {
		dir = s.workDir // discovery's decision, which follows trust across reloads
	}
	tail := &stderrTail{}
	s.tail = tail
	h.mu.Unlock()
	notes := transport.NewNoteLogger()
	t := transport.NewStdio(&s.cfg, dir, transport.Hooks{
		Stderr:      func(line string) { tail.add(h.serverLog(s, line, "")) },
		Skipped:     func(line string) { h.serverLog(s, line, "skipped non-JSON line on stdout: ") },
		Dropped:     func(what string) { h.addLog(s, LogLine{Level: LevelWarn, Text: what}) },
		NoteLogger:  notes,
		ListenEnded: listenEnded,
	})
	sess, err := newClient(notes).Connect(ctx, t, opts)
	if pid := t.PID(); pid != 0 {
		h.log.Info("process started", "server", s.cfg.Name, "command", s.cfg.Command, "args", s.cfg.Args, "dir", t.Dir(), "pid", pid)
	}
	p := &stdioProc{Stdio: t, tail: tail}
	if err != nil {
		first := t.PID() != 0 && ctx.Err() == nil && p.exitedFirst(err)
		t.Close() // and the last stderr lines are read
		if first {
			err = p.ended(err)
		}
		return nil, nil, err
	}
	t.MarkReady()
	return sess, p, nil
}

// serverLog records a line the process wrote, and returns it as kept
// (masked).
func (h *Host) serverLog(s *server, line, prefix string) string {
	if prefix != "" {
		// Only the head of stdout noise is worth keeping; masked first.
		return h.addLog(s, LogLine{Level: LevelWarn, Text: prefix + cutLogLine(h.redactor.String(line), maxSkippedText)})
	}
	return h.addLog(s, LogLine{Level: classify(line), Text: line})
}

// catalog is what a server lists: its tools when it connects, the rest
// (resources, templates, prompts) right after (extras.go).
type catalog struct {
	tools     []*mcp.Tool
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
}

// listToolsOf reads every page of the server's tools, if it advertises
// them (asking for an unadvertised list is an error on strict servers).
// Never nil: a server that lists none has none, which the tool cache
// tells apart from a server never listed. ttl is how long a 2026-07-28
// server says the list stays good (the shortest of its pages' ttlMs),
// noTTL for a legacy server, which gives no such hint.
func listToolsOf(ctx context.Context, sess *mcp.ClientSession) (tools []*mcp.Tool, ttl time.Duration, err error) {
	ttl = noTTL
	if caps := sess.InitializeResult().Capabilities; caps != nil && caps.Tools != nil {
		seen := map[string]bool{}
		params := &mcp.ListToolsParams{}
		for page := 0; ; page++ {
			res, err := sess.ListTools(ctx, params)
			if err != nil {
				return nil, 0, fmt.Errorf("tools/list: %w", err)
			}
			tools = append(tools, res.Tools...)
			if modern(sess) {
				ttl = minTTL(ttl, time.Duration(res.TTLMs)*time.Millisecond)
			}
			// A cursor seen before, or pages without end, would list for ever.
			if res.NextCursor == "" || seen[res.NextCursor] || page >= maxListPages {
				break
			}
			seen[res.NextCursor] = true
			params = &mcp.ListToolsParams{Cursor: res.NextCursor}
		}
	}
	if tools == nil {
		tools = []*mcp.Tool{}
	}
	return tools, ttl, nil
}

// noTTL says a list came with no ttl hint.
const noTTL time.Duration = -1

// maxListPages bounds how many pages of tools are read.
const maxListPages = 1000

// expiry is when a list with ttl goes stale, from now; zero for noTTL.
func expiry(ttl time.Duration) time.Time {
	if ttl == noTTL {
		return time.Time{}
	}
	return time.Now().Add(ttl)
}

func minTTL(a, b time.Duration) time.Duration {
	if a == noTTL || b < a {
		return max(b, 0)
	}
	return a
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
