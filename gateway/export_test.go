package gateway

import "time"

// InFlight reports what the gateway holds for calls not yet ended: the
// new-era rounds waiting, and the callers noted per upstream server, of
// the legacy era (client sessions) and of rounds. A test that has seen
// every call end awaits zero of each: what is left is a call whose
// cancellation never reached its upstream.
func (g *Gateway) InFlight() (rounds, sessionCallers, roundCallers int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, cs := range g.calling {
		for c, n := range cs {
			if c.r != nil {
				roundCallers += n
			} else {
				sessionCallers += n
			}
		}
	}
	return len(g.rounds), sessionCallers, roundCallers
}

// SetRoundIdle sets how long rounds wait for their client, for a test;
// the returned function puts it back.
func SetRoundIdle(d time.Duration) func() {
	old := roundIdle
	roundIdle = d
	return func() { roundIdle = old }
}

// SetMaxViews sets how many unpinned views a gateway keeps, for a test;
// the returned function puts it back.
func SetMaxViews(n int) func() {
	old := maxViews
	maxViews = n
	return func() { maxViews = old }
}

// Rebuilt counts the sessions rebuilt from their sealed ids.
func (g *Gateway) Rebuilt() int64 { return g.rebuilt.Load() }

// FastCalls counts the legacy calls the sessions held now took on the
// fast path (legacyfast.go).
func (g *Gateway) FastCalls() int64 {
	var n int64
	g.held.Range(func(_, v any) bool {
		if h := v.(*heldSession); h.fast != nil {
			n += h.fast.served.Load()
		}
		return true
	})
	return n
}
