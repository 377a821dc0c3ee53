package host

import (
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EventType says what an Event reports.
type EventType string

const (
	// EventState: a server changed state (connecting, connected, failed, …).
	EventState EventType = "state"
	// EventTools: the tool set changed; Version is the new version.
	EventTools EventType = "tools"
	// EventLog: a server wrote a line to stderr or a log notification, or
	// a non-JSON line to stdout.
	EventLog EventType = "log"
	// EventProgress: a server reported progress on a request.
	EventProgress EventType = "progress"
	// EventResources and EventPrompts: a server's resource or prompt list
	// changed.
	EventResources EventType = "resources"
	EventPrompts   EventType = "prompts"
	// EventResourceUpdated: a subscribed resource changed; URI says which.
	EventResourceUpdated EventType = "resource-updated"
)

// Progress is a progress notification's payload.
type Progress struct {
	Token    any     `json:"token"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
}

// Event is one thing that happened in the host.
type Event struct {
	Time   time.Time `json:"time"`
	Type   EventType `json:"type"`
	Server string    `json:"server,omitempty"`
	State  State     `json:"state,omitempty"`
	PID    int       `json:"pid,omitempty"`
	Error  string    `json:"error,omitempty"`
	// Retry is when a reconnecting server is tried next.
	Retry    time.Time `json:"retryAt,omitzero"`
	Version  uint64    `json:"version,omitempty"`
	Level    LogLevel  `json:"level,omitempty"`
	Message  string    `json:"message,omitempty"`
	URI      string    `json:"uri,omitempty"`
	Tool     string    `json:"tool,omitempty"` // the exposed tool a progress event is about
	Progress *Progress `json:"progress,omitempty"`
	// ServerInfo, Instructions and Protocol, on a state event that says
	// connected, are who the server says it is, what it tells agents
	// (MaxInstructions at most, masked), and the protocol version spoken.
	ServerInfo   *mcp.Implementation `json:"serverInfo,omitempty"`
	Instructions string              `json:"instructions,omitempty"`
	Protocol     string              `json:"protocolVersion,omitempty"`
	// Stderr, on a state event that says a process dropped or failed, is
	// its last few stderr lines, masked: what a person is shown beside
	// the error (a client, as a log notification).
	Stderr []string `json:"stderr,omitempty"`
	// Pin, on a pin event, is how the tool differs from what was
	// approved; its Change is PinNone once it no longer does.
	Pin *PinChange `json:"pin,omitempty"`
}

// notification reports whether an event is one the backlog keeps for a
// consumer that drains later: what servers said, not state bookkeeping.
func (e Event) notification() bool {
	return e.Type != EventState && e.Type != EventTools
}

// subscriberBuffer is how many events a subscriber may fall behind before
// events to it are dropped; the host never blocks on a slow listener.
const subscriberBuffer = 1024

// Subscription delivers host events until Close.
type Subscription struct {
	C       <-chan Event
	c       chan Event
	hub     *hub
	dropped int
}

// Dropped is how many events were lost because C was not drained in time.
func (s *Subscription) Dropped() int {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.dropped
}

// Close stops delivery and closes C. It is idempotent.
func (s *Subscription) Close() { s.hub.remove(s) }

type hub struct {
	mu         sync.Mutex
	subs       map[*Subscription]struct{}
	closed     bool
	backlog    []Event // notifications while nobody listens
	backlogCap int
	// mask masks the secrets in an event before anyone sees it (DESIGN.md
	// F44); nil leaves events as they are.
	mask func(Event) Event
	// published, when set (by tests), sees every event after delivery.
	published func(Event)
}

func (h *hub) drain() []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.backlog
	h.backlog = nil
	return out
}

func (h *hub) subscribe() *Subscription {
	c := make(chan Event, subscriberBuffer)
	s := &Subscription{C: c, c: c, hub: h}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(c)
		return s
	}
	if h.subs == nil {
		h.subs = map[*Subscription]struct{}{}
	}
	h.subs[s] = struct{}{}
	return s
}

func (h *hub) remove(s *Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.c)
	}
}

func (h *hub) publish(e Event) { h.send(e, e.notification()) }

// publishUnbuffered delivers e to subscribers only, never to the backlog:
// for a notification nobody who drains later needs. A server's first
// resource and prompt lists are what Resources and Prompts show; with a
// hundred servers their events would push every log line out.
func (h *hub) publishUnbuffered(e Event) { h.send(e, false) }

// send delivers e to every subscriber, and keeps it in the backlog if
// keep and nobody subscribes.
func (h *hub) send(e Event, keep bool) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if h.mask != nil {
		e = h.mask(e)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.published != nil {
		defer h.published(e)
	}
	if len(h.subs) == 0 && keep && h.backlogCap > 0 {
		if len(h.backlog) == h.backlogCap {
			h.backlog = append(h.backlog[:0], h.backlog[1:]...)
		}
		h.backlog = append(h.backlog, e)
	}
	for s := range h.subs {
		select {
		case s.c <- e:
		default:
			s.dropped++
		}
	}
}

// close ends every subscription; later subscriptions start closed.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		close(s.c)
	}
	h.subs = nil
}
