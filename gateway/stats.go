package gateway

import (
	"sync/atomic"

	"github.com/switchboard-mcp/switchboard/config"
)

// Stats is what a gateway counts, for metrics (DESIGN.md, "Observing").
type Stats struct {
	// Views is how many views the gateway keeps; Sessions, how many
	// legacy (2025-11-25) client sessions they hold.
	Views, Sessions int
	// QueueDepth is how many notifications wait for clients (at most
	// noteQueue); Dropped, how many were dropped because it was full.
	QueueDepth int
	Dropped    int64
	// Forwarded counts notifications handed to clients (log lines and
	// resource updates).
	Forwarded int64
	// ClientsDropped counts sessions closed because they took no write
	// in time.
	ClientsDropped int64
	// Requests counts HTTP requests that reached MCP, by protocol era
	// (config.ProtocolModern or config.ProtocolLegacy).
	Requests map[string]int64
	// RateLimited counts tool calls refused by Limits, by which limit:
	// "user", "tool", or "store" (the store did not answer).
	RateLimited map[string]int64
}

// counters are the gateway's running counts (Stats).
type counters struct {
	forwarded, clientsDropped, legacyRequests, modernRequests atomic.Int64
	limitedUser, limitedTool, limitedStore                    atomic.Int64
}

// limited counts a call refused by the limit of that name.
func (c *counters) limited(limit string) {
	switch limit {
	case "user":
		c.limitedUser.Add(1)
	case "tool":
		c.limitedTool.Add(1)
	default:
		c.limitedStore.Add(1)
	}
}

// Stats counts what the gateway holds and did, now.
func (g *Gateway) Stats() Stats {
	s := Stats{
		QueueDepth:     len(g.notes),
		Dropped:        g.dropped.Load(),
		Forwarded:      g.counts.forwarded.Load(),
		ClientsDropped: g.counts.clientsDropped.Load(),
		Requests: map[string]int64{
			config.ProtocolLegacy: g.counts.legacyRequests.Load(),
			config.ProtocolModern: g.counts.modernRequests.Load(),
		},
		RateLimited: map[string]int64{
			"user":     g.counts.limitedUser.Load(),
			"tool":     g.counts.limitedTool.Load(),
			limitStore: g.counts.limitedStore.Load(),
		},
	}
	g.each(func(v *view) {
		s.Views++
		for range v.srv.Sessions() {
			s.Sessions++
		}
	})
	return s
}
