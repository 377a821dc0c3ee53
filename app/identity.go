package app

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/switchboard-mcp/switchboard/gateway"
)

// descAuthRefusals counts requests refused for their token (DESIGN.md
// F65), by one of resource.Reasons: bounded.
var descAuthRefusals = prometheus.NewDesc("switchboard_auth_refusals_total",
	"HTTP requests refused for their bearer token, by reason (no_token, expired, audience, …).", []string{"reason"}, nil)

// collectAuth reports the refusals of the guard served, when one is.
func (a *App) collectAuth(ch chan<- prometheus.Metric) {
	g := a.guard.Load()
	if g == nil {
		return
	}
	for reason, n := range g.Refusals() {
		ch <- prometheus.MustNewConstMetric(descAuthRefusals, prometheus.CounterValue, float64(n), reason)
	}
}

// protected is the metrics behind what the gateway asks: the
// guard's tokens (or the shared one) when opts has a guard, else the
// shared token alone. With access rules an access token is refused: the
// labels name every server and tool, which a user's profile may hide on
// /mcp; the shared token (the operator's) still scrapes.
func (m *Metrics) protected(opts gateway.HTTPOptions) http.Handler {
	if opts.Resource == nil {
		return m.Handler(opts.Token)
	}
	next := m.Handler("")
	if opts.Access != nil {
		inner := next
		next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if auth.TokenInfoFromContext(r.Context()) != nil {
				http.Error(w, "switchboard: with access rules, /metrics takes the shared token (--token), not a user's", http.StatusForbidden)
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	return opts.Resource.Handler(next, opts.Token)
}
