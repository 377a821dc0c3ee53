package store

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Memory is a Store of this process alone: what a replica without a shared
// store has.
type Memory struct {
	events *mcp.MemoryEventStore

	mu       sync.Mutex
	now      func() time.Time
	revoked  map[string]time.Time
	sessions map[string]kept
	buckets  map[string]*bucket
	subs     map[string]map[*subscriber]struct{}
	docs     map[string]doc
	closed   bool
}

type kept struct {
	state   []byte
	expires time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

type subscriber struct {
	fn   func([]byte)
	msgs chan []byte
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory {
	return &Memory{
		events:   mcp.NewMemoryEventStore(nil),
		now:      time.Now,
		revoked:  map[string]time.Time{},
		sessions: map[string]kept{},
		buckets:  map[string]*bucket{},
		subs:     map[string]map[*subscriber]struct{}{},
		docs:     map[string]doc{},
	}
}

func (m *Memory) Revoke(_ context.Context, session string, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.revoked[session] = until
	delete(m.sessions, session)
	return nil
}

func (m *Memory) Revoked(_ context.Context, session string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	until, ok := m.revoked[session]
	if ok && m.now().After(until) {
		delete(m.revoked, session) // expired: the seal refuses it now
		return false, nil
	}
	return ok, nil
}

func (m *Memory) PutSession(_ context.Context, session string, state []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sessions[session] = kept{state: append([]byte(nil), state...), expires: m.now().Add(ttl)}
	return nil
}

func (m *Memory) Session(_ context.Context, session string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.sessions[session]
	if !ok || m.now().After(k.expires) {
		delete(m.sessions, session)
		return nil, ErrNotFound
	}
	return append([]byte(nil), k.state...), nil
}

func (m *Memory) Events() mcp.EventStore { return m.events }

// Publish hands msg to each subscriber's queue; a subscriber whose queue
// is full (64 messages behind) misses it rather than stall the publisher.
func (m *Memory) Publish(_ context.Context, topic string, msg []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for s := range m.subs[topic] {
		select {
		case s.msgs <- append([]byte(nil), msg...):
		default:
		}
	}
	return nil
}

func (m *Memory) Subscribe(ctx context.Context, topic string, fn func([]byte)) error {
	s := &subscriber{fn: fn, msgs: make(chan []byte, 64)}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return context.Canceled
	}
	if m.subs[topic] == nil {
		m.subs[topic] = map[*subscriber]struct{}{}
	}
	m.subs[topic][s] = struct{}{}
	m.mu.Unlock()
	go func() {
		defer func() {
			m.mu.Lock()
			delete(m.subs[topic], s)
			m.mu.Unlock()
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case msg := <-s.msgs:
				s.fn(msg)
			}
		}
	}()
	return nil
}

func (m *Memory) Take(_ context.Context, key string, rate float64, burst int) (bool, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	b := m.buckets[key]
	if b == nil {
		b = &bucket{tokens: float64(burst), at: now}
		m.buckets[key] = b
	}
	b.tokens = math.Min(float64(burst), b.tokens+now.Sub(b.at).Seconds()*rate)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0, nil
	}
	if rate <= 0 {
		return false, time.Duration(math.MaxInt64), nil
	}
	return false, time.Duration((1 - b.tokens) / rate * float64(time.Second)), nil
}

// Close stops new subscriptions; those running end with their contexts.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

var _ Store = (*Memory)(nil)
