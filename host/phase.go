package host

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// phase is where a server is in its life. Only transitionLocked changes it
// (a new server is placed in its first phase by newServer, before anyone
// has seen it), and with it everything that follows from a phase: the
// state event, the server's part of the tool set, and the settled channel
// calls wait on. The public State is derived from it; an admin state
// (disabled, blocked, …) is not a phase but holds from the config, and a
// server that has one stays idle.
//
// The changes a server can go through (canBecome):
//
//	idle         → connecting    a lazy server's first call, or Restart
//	starting     → connecting    its supervisor starts (Start, Reload, Restart)
//	connecting   → connected     the first attempt worked
//	connecting   → failed        it did not: nearly always a config problem
//	connected    → reconnecting  the connection dropped
//	reconnecting → reconnecting  another attempt failed: a new error and next try
//	reconnecting → connected     an attempt worked
//	connected    → failed        a crash loop: given up on
//	reconnecting → failed        (the same)
//	failed       → connecting    Restart
//	connecting, connected, reconnecting → needs-auth   the server asks for authorization no flow can get alone
//	needs-auth   → connecting    Login, Restart
//	connecting, connected, reconnecting → starting   Restart swaps the supervisor
//	not removed  → stopping      Disconnect, Close: announced later, or never
//	not stopped  → stopped       Reload at once, Disconnect once the process is gone
type phase int

const (
	// phaseIdle: nothing runs and nothing is pending. A lazy server waits
	// here for its first call, and a server with an admin state for good.
	phaseIdle phase = iota
	// phaseStarting: in place and waiting for whoever put it there to
	// start its supervisor: Start at once, Reload once the old process is
	// gone, Restart once the old supervisor has ended. Calls wait.
	phaseStarting
	// phaseConnecting: the supervisor's first connect attempt. Calls wait.
	phaseConnecting
	// phaseConnected: a live session; calls go through it.
	phaseConnected
	// phaseReconnecting: the connection dropped, and the supervisor waits
	// out the backoff and tries again. Calls wait.
	phaseReconnecting
	// phaseFailed: the first attempt failed, or the server crash-looped.
	// Nothing runs until Restart or a config change.
	phaseFailed
	// phaseNeedsAuth: the server asks for authorization, and none can be
	// had without a person (DESIGN.md F41). Nothing runs until Login,
	// Restart or a config change.
	phaseNeedsAuth
	// phaseStopping: removed from the host, and not announced yet: its
	// supervisor is ending and its process going.
	phaseStopping
	// phaseStopped: removed and announced as disconnected. Its supervisor
	// may still be ending, but it changes nothing any more.
	phaseStopped
)

var phaseNames = [...]string{"idle", "starting", "connecting", "connected", "reconnecting", "failed", "needs-auth", "stopping", "stopped"}

func (p phase) String() string { return phaseNames[p] }

// waits reports whether calls to a server in p wait for it (on settled)
// instead of failing.
func (p phase) waits() bool {
	return p == phaseStarting || p == phaseConnecting || p == phaseReconnecting
}

// supervised reports whether a supervisor is in charge of a server in p:
// only it, or whoever stops it, moves the server on.
func (p phase) supervised() bool {
	return p == phaseConnecting || p == phaseConnected || p == phaseReconnecting
}

// removed reports whether the server is no longer part of the host.
func (p phase) removed() bool { return p == phaseStopping || p == phaseStopped }

// canBecome reports whether a server may go from p to next: the table in
// the comment on phase.
func (p phase) canBecome(next phase) bool {
	switch next {
	case phaseStarting:
		return p.supervised()
	case phaseConnecting:
		return p == phaseIdle || p == phaseStarting || p == phaseFailed || p == phaseNeedsAuth
	case phaseConnected:
		return p == phaseConnecting || p == phaseReconnecting
	case phaseReconnecting:
		return p == phaseConnected || p == phaseReconnecting
	case phaseFailed, phaseNeedsAuth:
		return p.supervised()
	case phaseStopping:
		return !p.removed()
	case phaseStopped:
		return p != phaseStopped
	}
	return false // nothing goes back to idle
}

// state is the public state a server in p shows (DESIGN.md F16).
func (p phase) state(lazy bool) State {
	switch p {
	case phaseIdle:
		if lazy {
			return StateIdle
		}
	case phaseStarting, phaseConnecting, phaseReconnecting:
		return StateConnecting
	case phaseConnected:
		return StateConnected
	case phaseFailed:
		return StateFailed
	case phaseNeedsAuth:
		return StateNeedsAuth
	}
	return StateDisconnected
}

// offer is which of its tools a server contributes to the tool set.
type offer int

const (
	offerNone   offer = iota
	offerCached       // deferred: the server is not connected yet, and a call waits for it
	offerLive
)

// offerLocked says what the server contributes to the tool set: its live
// tools when connected; its cached tools, deferred, while calls wait for
// it or while it is a lazy server that the first call will start; nothing
// otherwise.
func (s *server) offerLocked() offer {
	switch {
	case s.admin != "" || s.phase.removed():
		return offerNone
	case s.phase == phaseConnected:
		return offerLive
	case s.phase.waits(), s.phase == phaseIdle && s.cfg.Lazy:
		return offerCached
	}
	return offerNone
}

// stateLocked is the server's public state (DESIGN.md F16): its admin state if
// it has one, else what its phase shows.
func (s *server) stateLocked() State {
	if s.admin != "" {
		return s.admin
	}
	return s.phase.state(s.cfg.Lazy)
}

// transitionLocked moves s to phase to. why is the error the new phase
// shows (the cause of a drop or a failure; nil otherwise), and c the new
// connection when to is connected. It is the only place a phase changes,
// and it does what follows from the change, in the order waiters rely on:
// the state event first, then the server's part of the tool set
// (published, or pending where every reader publishes it first), and only
// then are the calls waiting on settled woken, so whoever waited (Start, a
// deferred call) finds both.
//
// The server's part of the catalog changes through changeCatalogLocked,
// the catalog's one writer (change.go), and is published in one of two
// ways (toolset.go). When the change leaves no server on its first connect,
// the set is rebuilt here, before settled closes, with every change still
// pending. While other servers are still connecting (a burst: Start of
// fifty), the change is only marked pending (toolsDirty), so the burst
// costs one rebuild and one version instead of fifty; the timer publishes
// it within toolsCoalesce at the latest. Either way the invariants hold:
//
//   - A caller woken on settled finds the server's tools: the tool set is
//     read only through Tools, Status and a call's name lookup, and each
//     of them publishes what is pending first (flushToolsLocked), in the
//     same hold of the lock. Pending is set here, before settled closes,
//     so nothing woken by it can read an older set.
//   - The state event precedes the tools event that carries its change:
//     the state event is published here, under the lock, before the
//     change is marked; the tools event comes from the rebuild that
//     publishes the change, here or in a later hold of the lock.
//
// A change of phase is announced with the public state it shows, except
// entering stopping: Disconnect announces a removed server once its
// process is gone, and Close not at all. Going to the same phase (another
// failed reconnect) only records the new error. Entering stopping or
// stopped leaves the tool set alone, since whoever removed the server
// publishes the set without it, once (Disconnect at once, Reload when the
// new entries are in place). So does a change that leaves the server's
// part as it was (a supervisor starting), which is how Start and Reload
// start many servers and publish them in one change.
func (h *Host) transitionLocked(s *server, to phase, why error, c *conn) {
	from := s.phase
	if !from.canBecome(to) {
		// A bug in the host, not in a server: say so, and keep the state
		// consistent rather than half-changed.
		h.log.Error("impossible phase change refused", "server", s.cfg.Name, "from", from, "to", to)
		return
	}
	before := s.offerLocked()
	s.phase, s.err = to, why
	if to != phaseReconnecting {
		s.retryAt = time.Time{} // only a reconnecting server has a next try
	}
	if to != from {
		s.since = time.Now()
	}
	var tools []*mcp.Tool
	if to == phaseConnected {
		s.useLocked(c)
		tools = c.tools
	} else {
		if s.session != nil {
			close(s.gone)
		}
		s.session, s.pid = nil, 0
	}
	// A channel still open is kept, so calls already waiting (during a
	// reload or a restart, say) are woken by the attempt that follows.
	if to.waits() && isClosed(s.settled) {
		s.settled = make(chan struct{})
	}
	// Every failed reconnect is announced, with its cause and next try: a
	// remote server may be down for long, and whoever watches should see
	// it is still being tried.
	if (to != from || to == phaseReconnecting) && to != phaseStopping {
		ev := Event{Type: EventState, Server: s.cfg.Name, State: to.state(s.cfg.Lazy), PID: s.pid, Retry: s.retryAt}
		if why != nil {
			ev.Error = why.Error()
			if to == phaseReconnecting || to == phaseFailed {
				ev.Stderr = s.tail.last(eventStderrLines)
			}
		}
		if to == phaseConnected && s.initRes != nil {
			ev.ServerInfo, ev.Instructions, ev.Protocol = h.maskInfo(s.initRes.ServerInfo), h.instructions(s.initRes), s.era
		}
		h.events.publish(ev)
	}
	h.changeCatalogLocked(s, catalogChange{op: catalogPhase, offered: before, catalog: catalog{tools: tools}})
	if !to.waits() && !isClosed(s.settled) {
		close(s.settled)
	}
	h.noteQuietLocked()
}

// useLocked takes in a new connection: its session; its tools are the
// catalog's (changeCatalogLocked).
func (s *server) useLocked(c *conn) {
	if s.session != nil && s.session != c.sess {
		close(s.gone)
	}
	if s.session != c.sess {
		s.gone = make(chan struct{})
	}
	s.session, s.transport, s.connectDur = c.sess, c.kind, c.took
	s.pid = 0
	if c.stdio != nil {
		s.pid = c.stdio.PID()
	}
	s.listed = c.listed
	s.initRes = c.sess.InitializeResult()
	s.era = sessionProtocol(c.sess)
}

// removeLocked takes s out of the host for good, to stopping (announced
// later by the caller, or never) or stopped (announced now), and stops its
// supervisor. It returns a channel closed once the supervisor has ended,
// its session closed and its process gone.
func (h *Host) removeLocked(s *server, to phase) <-chan struct{} {
	h.transitionLocked(s, to, nil, nil)
	s.log.release()
	return s.stopSupervisorLocked()
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
