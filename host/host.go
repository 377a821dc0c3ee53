// Package host is switchboard's MCP host runtime: it owns one connection
// per configured server, connects them all in parallel behind a startup
// gate, and offers their tools as one sorted, versioned set with calls,
// events and a clean shutdown. It knows nothing about terminals.
package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/internal/oauth"
	"github.com/switchboard-mcp/switchboard/host/internal/toolcache"
	"github.com/switchboard-mcp/switchboard/host/internal/transport"
	"github.com/switchboard-mcp/switchboard/internal/execpath"
	"github.com/switchboard-mcp/switchboard/internal/reap"
	"github.com/switchboard-mcp/switchboard/internal/redact"
)

// ErrNoName is returned by Start and Reload for a config without a name:
// its tools would have no server in their names.
var ErrNoName = errors.New("server name is empty")

// Host owns the connections to a set of MCP servers.
type Host struct {
	opts Options
	// workDir is where stdio servers without an absolute cwd start: the
	// project, or outside it while it is untrusted.
	workDir string
	log     *slog.Logger
	cache   *toolcache.Cache
	events  hub
	// redactor masks secrets in everything the host lets out (redact.go).
	redactor *redact.Redactor
	// logs is what every server's log holds together (log.go).
	logs logBudget
	// tokens keeps the OAuth grants of remote servers (auth.go).
	tokens *oauth.Store

	// life is cancelled by Close; every connect runs under it.
	life     context.Context
	stopLife context.CancelFunc
	wg       sync.WaitGroup // every goroutine the host starts

	// releaseReaper ends this host's hold on the child subreaper; nil
	// without Options.Subreaper.
	releaseReaper func()
	// closeDone is closed when the first Close has finished; later calls
	// wait for it.
	closeDone chan struct{}

	reloadMu sync.Mutex // serialises Reload
	hooks    hooks      // for tests; the zero value does nothing

	mu      sync.Mutex
	closed  bool
	started bool // a Start or Reload has been accepted
	servers map[string]*server
	order   []string // names in config order, for Status
	tools   ToolSet
	toolSrc []*mcp.Tool // what each of tools.Tools was made from (sameSourced)
	// names are every exposed name, by kind (names.go); the tools' change
	// with the tool set, the others' are made again, when namesDirty, by
	// the next reader.
	names      [kinds]nameBook
	namesDirty bool
	// toolsDirty says a server's part of the tool set changed since it
	// was last published; toolsTimer, when set, publishes it within
	// toolsCoalesce (toolset.go).
	toolsDirty bool
	toolsTimer *time.Timer
	// quiet, while open, is closed once no server is on its first connect
	// (extras.go).
	quiet chan struct{}
	// extrasSlots holds a token per server listing the rest of its
	// catalog, at most extrasAtOnce (extras.go).
	extrasSlots chan struct{}

	calls callTokens // progress tokens; a lock of its own
	roots rootsState // the roots offered; a lock of its own (roots.go)

	search searchCache // the tool set's search index; a lock of its own (search.go)

	pins     *pinState // remembered tool definitions; a lock of its own (pins.go)
	pinWatch sync.Once // starts watchPins at the first Start
}

// New returns a host with no servers. Start adds them.
func New(opts *Options) *Host {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.StartupGate <= 0 {
		o.StartupGate = DefaultStartupGate
	}
	switch o.ToolPrefix {
	case "":
		o.ToolPrefix = DefaultToolPrefix
	case NoToolPrefix:
		o.ToolPrefix = ""
	}
	if o.ProjectDir == "" {
		o.ProjectDir, _ = os.Getwd()
	}
	if o.ClientName == "" {
		o.ClientName = "switchboard"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = Version
	}
	if o.LogLevel == "" {
		o.LogLevel = "info"
	}
	if o.NotificationBuffer <= 0 {
		o.NotificationBuffer = DefaultNotificationBuffer
	}
	r := redact.New()
	logger := slog.New(slog.DiscardHandler)
	if o.Logger != nil {
		logger = slog.New(r.Handler(o.Logger.Handler()))
	}
	workDir := o.ProjectDir
	if o.UntrustedProject {
		workDir = outsideProject()
		// The project is still what the person works on: servers that ask
		// for roots learn it, and read it as data, not code.
		root := (&url.URL{Scheme: "file", Path: filepath.ToSlash(o.ProjectDir)}).String()
		if !slices.ContainsFunc(o.Roots, func(r *mcp.Root) bool { return r.URI == root }) {
			o.Roots = append(slices.Clone(o.Roots), &mcp.Root{URI: root, Name: filepath.Base(o.ProjectDir)})
		}
	}
	var releaseReaper func()
	if o.Subreaper {
		var err error
		if releaseReaper, err = reap.Subreaper(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			logger.Warn("cannot adopt orphaned server processes", "error", err)
		}
	}
	life, stop := context.WithCancel(context.Background())
	return &Host{
		opts:          o,
		releaseReaper: releaseReaper,
		workDir:       workDir,
		log:           logger,
		cache:         toolcache.Open(o.CacheDir),
		pins:          newPinState(o.PinFile, o.Pins),
		tokens:        oauth.NewStore(o.TokenFile),
		redactor:      r,
		life:          life,
		stopLife:      stop,
		closeDone:     make(chan struct{}),
		servers:       map[string]*server{},
		roots:         rootsState{list: o.Roots},
		extrasSlots:   make(chan struct{}, extrasAtOnce),
		events:        hub{backlogCap: o.NotificationBuffer, mask: func(e Event) Event { return maskEvent(r, e) }},
	}
}

// outsideProject is where servers start while the project is untrusted.
func outsideProject() string {
	home, _ := os.UserHomeDir()
	return execpath.OutsideProject(home)
}

// Start adds servers and connects them all in parallel (DESIGN.md F12, F13). It
// returns when every server has settled or the startup gate has passed,
// whichever is first; after the gate, servers with cached tools go on in
// the background (their tools deferred), while servers without a cache
// entry are still waited for, each bounded by its startup timeout. A
// server is settled once its tools are in the tool set: its resources
// and prompts follow (EventResources, EventPrompts), and WaitSettled
// waits for them too. A server that fails never fails Start: its error is
// in Status. Start returns an error only for a closed host, a ctx done
// before it began (then it starts nothing), a ctx done while it waits
// (the servers go on), an empty name (ErrNoName) or a duplicate name;
// with any but the second it starts nothing.
//
// Without a cache a first run waits for its slowest server, up to that
// server's startup timeout (30 s by default). To answer sooner, set
// Options.StartWait, or bound ctx: Start then returns at the bound (with
// ctx's error) and the servers go on connecting in the background.
func (h *Host) Start(ctx context.Context, configs []config.ServerConfig) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := namesGiven(configs); err != nil {
		return err
	}
	// The gate counts from here: reading a hundred cache entries is part
	// of the time a caller waits.
	began := time.Now()
	// The entries are built before the lock, since building one reads its
	// cache entry and touches nothing shared; a Start refused below
	// throws them away.
	fresh := h.newServers(configs)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	// Refuse a duplicate before starting anything: Start is all or nothing.
	names := make(map[string]bool, len(configs))
	for _, cfg := range configs {
		if _, dup := h.servers[cfg.Name]; dup || names[cfg.Name] {
			h.mu.Unlock()
			return fmt.Errorf("server %q: defined twice", cfg.Name)
		}
		names[cfg.Name] = true
	}
	if err := ctx.Err(); err != nil {
		h.mu.Unlock()
		return err
	}
	h.started = true
	h.pinWatch.Do(h.watchPins)
	h.learn(configs)
	var pending []waiting
	for i, cfg := range configs {
		s := fresh[i]
		h.servers[cfg.Name] = s
		h.order = append(h.order, cfg.Name)
		if s.phase == phaseStarting {
			h.startLocked(s)
			pending = append(pending, waiting{settled: s.settled, cached: s.cached != nil})
		} else {
			h.announceAdminLocked(s)
		}
	}
	// One tool set for all of them: starting them did not change it.
	h.changeCatalogLocked(nil, catalogChange{op: catalogPublish})
	h.mu.Unlock()

	return h.gate(ctx, pending, began)
}

// namesGiven refuses a config without a name, naming the entry by its
// place in configs and its source.
func namesGiven(configs []config.ServerConfig) error {
	for i, cfg := range configs {
		if cfg.Name == "" {
			where := ""
			if src := cfg.Source.String(); src != "" {
				where = " (" + src + ")"
			}
			return fmt.Errorf("config %d%s: %w", i, where, ErrNoName)
		}
	}
	return nil
}

// announceAdminLocked announces a server placed in an admin state:
// nothing will start it, so nothing else would say what it is (disabled,
// blocked, untrusted, a duplicate, or failed for a config that cannot be
// used, with the reason).
func (h *Host) announceAdminLocked(s *server) {
	if s.admin == "" {
		return
	}
	ev := Event{Type: EventState, Server: s.cfg.Name, State: s.admin}
	if s.err != nil {
		ev.Error = s.err.Error()
	}
	h.events.publish(ev)
}

// waiting is a server Start waits for: its first connect attempt, and
// whether the cache can stand in for it.
type waiting struct {
	settled <-chan struct{}
	cached  bool
}

// gate waits for pending servers as DESIGN.md F13 says, the gate ending
// StartupGate after began, and all waiting StartWait after it.
func (h *Host) gate(ctx context.Context, pending []waiting, began time.Time) error {
	timer := time.NewTimer(time.Until(began.Add(h.opts.StartupGate)))
	defer timer.Stop()
	var stop <-chan time.Time // Options.StartWait's bound, if any
	if h.opts.StartWait > 0 {
		end := time.NewTimer(time.Until(began.Add(h.opts.StartWait)))
		defer end.Stop()
		stop = end.C
	}
	i := 0
wait:
	for ; i < len(pending); i++ {
		select {
		case <-pending[i].settled:
		case <-timer.C:
			break wait
		case <-stop:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, w := range pending[i:] {
		if w.cached {
			continue
		}
		select {
		case <-w.settled:
		case <-stop:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// WaitSettled waits until no server is connecting — every server is
// connected, failed, or not meant to connect — and every connected
// server's resources and prompts are listed.
func (h *Host) WaitSettled(ctx context.Context) error { return h.await(ctx, true) }

// WaitListed waits until every server connected now or while it waits
// has its resources and prompts listed, which follow its tools; a server
// still connecting is not waited for. Start answers once the tools are
// in: this is for whoever shows what else the servers offer.
func (h *Host) WaitListed(ctx context.Context) error { return h.await(ctx, false) }

// await waits for the servers' lists, and with connecting for every
// server that is connecting too.
func (h *Host) await(ctx context.Context, connecting bool) error {
	for {
		h.mu.Lock()
		var waitFor <-chan struct{}
		for _, s := range h.servers {
			if connecting && s.phase.waits() {
				waitFor = s.settled
				break
			}
			if s.phase == phaseConnected && !isClosed(s.listed) {
				waitFor = s.listed
				break
			}
		}
		h.mu.Unlock()
		if waitFor == nil {
			return nil
		}
		select {
		case <-waitFor:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Subscribe returns a subscription to host events. Close it when done.
func (h *Host) Subscribe() *Subscription { return h.events.subscribe() }

// DrainEvents returns the notification events that arrived while nobody
// was subscribed, oldest first, at most Options.NotificationBuffer of them,
// and empties the buffer.
func (h *Host) DrainEvents() []Event { return h.events.drain() }

// Disconnect stops one server: its connection is closed, its process ended,
// its tools removed (one change event), and it is forgotten (DESIGN.md F33).
// Disconnecting an unknown server is not an error.
func (h *Host) Disconnect(name string) error {
	h.mu.Lock()
	s, ok := h.servers[name]
	if !ok {
		h.mu.Unlock()
		return nil
	}
	delete(h.servers, name)
	for i, n := range h.order {
		if n == name {
			h.order = append(h.order[:i:i], h.order[i+1:]...)
			break
		}
	}
	done := h.removeLocked(s, phaseStopping)
	h.changeCatalogLocked(nil, catalogChange{op: catalogPublish})
	h.mu.Unlock()
	<-done
	// Announced once the process is gone: a caller may check for it.
	h.mu.Lock()
	h.transitionLocked(s, phaseStopped, nil, nil)
	h.mu.Unlock()
	return nil
}

// Restart disconnects a server and connects it again from its current
// config, showing connecting meanwhile (DESIGN.md F34). It also revives a server
// given up on after a crash loop. Its tools stay listed, deferred.
func (h *Host) Restart(name string) error {
	h.mu.Lock()
	s, ok := h.servers[name]
	if !ok {
		h.mu.Unlock()
		return fmt.Errorf("unknown server %q", name)
	}
	if s.admin != "" {
		h.mu.Unlock()
		return fmt.Errorf("server %q is %s", name, s.admin)
	}
	switch {
	case s.phase == phaseStarting:
		h.mu.Unlock()
		return nil // a Reload or another Restart is starting it afresh
	case !s.phase.supervised(): // given up on, failed, or a lazy server not started
		h.startLocked(s)
		h.mu.Unlock()
		return nil
	}
	// Calls made from now on wait for the new connection instead of
	// failing on the closing one.
	h.transitionLocked(s, phaseStarting, nil, nil)
	done := s.stopSupervisorLocked()
	h.mu.Unlock()
	<-done
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return ErrClosed
	}
	if s.phase.removed() {
		if _, replaced := h.servers[name]; replaced {
			return nil // a reload restarted it under its new config
		}
		return fmt.Errorf("server %q was removed while restarting", name)
	}
	h.startLocked(s)
	return nil
}

// CloseBound is how long Close takes at most: calls in flight end at
// once, and every server ends in parallel, a stdio server within its
// shutdown graces (stdin closed, SIGTERM, SIGKILL and the kernel's reap,
// its last stderr: 7.5 s for one that ignores SIGTERM and is slow to die)
// and a remote one within go-sdk's 5 s bound on the DELETE that ends its
// session. Most servers end in milliseconds.
const CloseBound = 10 * time.Second

// Close disconnects every server concurrently and waits until every
// goroutine and child process the host started is gone, within
// CloseBound. Calls in flight are cancelled: their callers get a
// *CallError for which errors.Is(err, ErrClosed) holds. It is idempotent
// and safe to call concurrently with anything else.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		<-h.closeDone
		return nil
	}
	h.closed = true
	defer close(h.closeDone)
	// Calls in flight end now, with ErrClosed, before any session is
	// closed: go-sdk's close would wait for their answers.
	h.stopLife()
	var stopping []<-chan struct{}
	for _, s := range h.servers {
		stopping = append(stopping, h.removeLocked(s, phaseStopping))
	}
	h.servers = map[string]*server{}
	h.order = nil
	h.changeCatalogLocked(nil, catalogChange{op: catalogClosed})
	h.mu.Unlock()

	// Each supervisor closes its own connection: all at once.
	for _, done := range stopping {
		<-done
	}
	h.wg.Wait()
	h.events.close()
	transport.CloseIdleConnections()
	if h.releaseReaper != nil {
		h.releaseReaper() // every server, and what it left, has ended
	}
	return nil
}

// Logs returns a server's recent log lines, oldest first, secrets masked.
func (h *Host) Logs(name string) ([]LogLine, bool) {
	h.mu.Lock()
	s, ok := h.servers[name]
	h.mu.Unlock()
	if !ok {
		return nil, false
	}
	return s.log.snapshot(), true
}

// goTracked runs f in a goroutine that Close waits for.
func (h *Host) goTracked(f func()) {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		f()
	}()
}
