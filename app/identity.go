package app

import (
	"net/http"

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
// shared token alone.
func (m *Metrics) protected(opts gateway.HTTPOptions) http.Handler {
	if opts.Resource == nil {
		return m.Handler(opts.Token)
	}
	return opts.Resource.Handler(m.Handler(""), opts.Token)
}
