package app

import "time"

// What a draining replica lets go of, so that another replica finishes
// it (DESIGN.md, "Drain and parked rounds"): the 2026-07-28 rounds
// parked on their client's input (here), and the calls it would refuse,
// which it answers with 503 before any handler sees them so that a load
// balancer can send them to another replica (drainretry.go).

// parkedGrace is how long a drain without session keys leaves a round
// parked on its client's input, for the client to come back with its
// answers: its requestState opens on this replica only. With keys the
// drain ends such rounds at once: the client continues on another one.
var parkedGrace = 5 * time.Second

// parkedGraceC is when Drain ends the parked rounds: nil (never) without
// a gateway; a closed channel with session keys; parkedGrace's timer
// otherwise, stopped by stop.
func (a *App) parkedGraceC() (c <-chan time.Time, stop func()) {
	switch {
	case a.gw == nil:
		return nil, func() {}
	case a.gw.RoundsMovable():
		now := make(chan time.Time, 1)
		now <- time.Now()
		return now, func() {}
	}
	t := time.NewTimer(parkedGrace)
	return t.C, func() { t.Stop() }
}
