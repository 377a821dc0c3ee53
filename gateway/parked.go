package gateway

// A drain (app.Drain) waits for the calls in flight. A 2026-07-28 round
// parked on its client's input is not work of the replica's own: the
// client holds the next step, and with session keys it can take that
// step on any replica, which runs the call again from the sealed
// requestState (mrtrseal.go). Behind a load balancer a draining replica
// gets no new requests anyway. So the drain ends such rounds
// (DESIGN.md, "Drain and parked rounds"): EndParkedRounds cancels their
// upstream calls, and from then on a round that parks is ended as it
// parks, its client answered with the input-required result all the
// same.

// RoundsMovable reports whether a round's client can continue it on
// another replica: requestState is sealed with session keys.
func (g *Gateway) RoundsMovable() bool { return g.roundKeys.Load() != nil }

// EndParkedRounds ends the rounds waiting on their client's input, and
// every round that parks from now on; it returns how many it ended now.
func (g *Gateway) EndParkedRounds() int {
	g.parkEnds.Store(true)
	g.mu.Lock()
	var parked []*round
	for _, r := range g.rounds {
		if r.parked() {
			parked = append(parked, r)
		}
	}
	g.mu.Unlock()
	for _, r := range parked {
		g.endRound(r)
	}
	return len(parked)
}

// parked reports whether r waits on its client's answers: the questions
// went out, none has come back.
func (r *round) parked() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.waiting) > 0
}

// parks is callRound's step once r's questions went out: after
// EndParkedRounds, r ends now rather than wait for a client that is to
// go elsewhere.
func (g *Gateway) parks(r *round) {
	if g.parkEnds.Load() {
		g.endRound(r)
	}
}
