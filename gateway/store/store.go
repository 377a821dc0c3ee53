// Package store holds what the replicas of one gateway share (DESIGN.md
// F55): which sessions were ended, each session's mutable state, the
// events a client may resume from, config-change fan-out, rate-limit
// buckets and documents kept for good (tool pins). Memory keeps them in
// this process (one replica, or replicas that do not share); a Redis
// store (see Open) shares them.
//
// The gateway depends on the Store interface only, so a replica works the
// same whichever store it has; what differs is who else sees the state.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNotFound is a session with no state kept.
var ErrNotFound = errors.New("store: not found")

// Store is the state replicas share. Every method is safe for concurrent
// use. Errors are the store's own (a Redis that is down): the caller
// decides what a replica does without it (DESIGN.md F55).
type Store interface {
	// Revoke ends the session on every replica; it stays refused until
	// until (its sealed id's expiry), after which the id is refused anyway.
	Revoke(ctx context.Context, session string, until time.Time) error
	// Revoked reports whether Revoke was called for the session.
	Revoked(ctx context.Context, session string) (bool, error)

	// PutSession keeps a session's mutable state (its log level and
	// subscriptions: opaque bytes to the store) for ttl.
	PutSession(ctx context.Context, session string, state []byte, ttl time.Duration) error
	// Session is the state PutSession kept, or ErrNotFound.
	Session(ctx context.Context, session string) ([]byte, error)

	// Events keeps the events of sessions' streams, so a client that
	// resumes with Last-Event-ID gets what it missed on any replica.
	Events() mcp.EventStore

	// Publish sends msg to every Subscribe of topic, on every replica
	// (this one's too).
	Publish(ctx context.Context, topic string, msg []byte) error
	// Subscribe calls fn with each message published on topic from when
	// it returns nil until ctx ends; it returns once subscribed. fn runs
	// on one goroutine the store owns, which ends with ctx. A store whose
	// connection broke and was made again (Redis) calls fn(nil) once it
	// is subscribed again: messages may have been lost meanwhile, and
	// the subscriber should check again what they would have told it.
	Subscribe(ctx context.Context, topic string, fn func(msg []byte)) error

	// Take takes a token from the bucket named key, which refills at rate
	// tokens a second up to burst. When the bucket is empty it reports
	// false and how long until a token is back.
	Take(ctx context.Context, key string, rate float64, burst int) (ok bool, wait time.Duration, err error)

	// Doc is the document kept at key and its version: nil and 0 when
	// none is kept. Documents are what replicas keep for good (tool
	// pins, DESIGN.md F66): they do not expire.
	Doc(ctx context.Context, key string) (data []byte, version int64, err error)
	// SwapDoc keeps data at key, as version+1, if the document's version
	// is still version (0: none kept); when another wrote first it writes
	// nothing and reports false, and the caller reads it again.
	SwapDoc(ctx context.Context, key string, version int64, data []byte) (ok bool, err error)

	// Close ends the store's connections and subscriptions.
	Close() error
}
