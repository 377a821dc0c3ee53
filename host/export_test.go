package host

import (
	"context"
	"time"
)

// Hooks are the host's test hooks (hooks.go), for the tests in host_test.
type Hooks struct {
	BeforeAttempt func(ctx context.Context, server string)
	CallWaits     func(server string)
	DropNoticed   func(ctx context.Context, server string)
	Backoff       func(n int) time.Duration
	Coalesce      time.Duration
	Listing       func(server string)
}

// SetHooks installs test hooks on a host that has not started yet.
func (h *Host) SetHooks(k Hooks) {
	h.hooks = hooks{beforeAttempt: k.BeforeAttempt, callWaits: k.CallWaits, dropNoticed: k.DropNoticed, backoff: k.Backoff, coalesce: k.Coalesce, listing: k.Listing}
}

// ExtrasAtOnce is extrasAtOnce, for the test that takes every turn.
const ExtrasAtOnce = extrasAtOnce
