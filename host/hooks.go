package host

import (
	"context"
	"time"
)

// hooks are points where a test can hold the host, or learn that it got
// somewhere, which it could otherwise only guess at with sleeps. The zero
// value does nothing. Only tests set them (export_test.go), before Start.
type hooks struct {
	// beforeAttempt runs on the supervisor's goroutine before every
	// connect attempt, outside the lock and outside the startup timeout:
	// blocking in it holds the attempt. It must return once ctx ends.
	beforeAttempt func(ctx context.Context, server string)
	// callWaits runs when a call starts waiting for its server to connect
	// (or for a connection it found closed to be dropped).
	callWaits func(server string)
	// dropNoticed runs on the supervisor's goroutine when it has seen a
	// connection end by itself, before the server leaves connected:
	// blocking in it holds the server there. It must return once ctx ends.
	dropNoticed func(ctx context.Context, server string)
	// backoff replaces the delay before a reconnect after n failures, so
	// a test of many reconnects need not wait out the real ones.
	backoff func(n int) time.Duration
	// coalesce replaces toolsCoalesce, so a test can count the versions
	// of a burst without a timer publishing some of them.
	coalesce time.Duration
	// listing runs when a server has taken a slot to list the rest of its
	// catalog (listExtras).
	listing func(server string)
}
