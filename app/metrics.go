package app

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// MetricsPath is where ServeHTTP serves the metrics, beside the gateway.
const MetricsPath = "/metrics"

// Metrics are an app's Prometheus metrics (DESIGN.md, "Observing"): calls
// by server, tool and outcome with their latency, servers' states and
// reconnects, the gateway's sessions, views, queue and dropped clients,
// tool cache hits, OAuth refreshes. Every label value is a server's name, an exposed tool
// name (both the host's), an outcome, a state or an era: bounded. Create
// them with NewMetrics and give them to Start in Options.Metrics.
type Metrics struct {
	reg        *prometheus.Registry
	calls      *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	reconnects *prometheus.CounterVec
	cacheHits  *prometheus.CounterVec
	refreshes  *prometheus.CounterVec
	pinChanges *prometheus.CounterVec
	app        atomic.Pointer[App] // set by Start; read by the collector at a scrape
}

// NewMetrics returns metrics on a registry of their own, which also has
// Go's runtime and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_tool_calls_total",
			Help: "Tool calls sent to upstream servers, by server, exposed tool name and outcome.",
		}, []string{"server", "tool", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "switchboard_tool_call_duration_seconds",
			Help:    "Time from a tool call's request to its outcome, by server and exposed tool name.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 9), // 1 ms to 65 s
		}, []string{"server", "tool"}),
		reconnects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_server_reconnects_total",
			Help: "Connections of a server after its first.",
		}, []string{"server"}),
		cacheHits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_tool_cache_hits_total",
			Help: "Servers whose tools were found in the tool cache at start.",
		}, []string{"server"}),
		refreshes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_oauth_refreshes_total",
			Help: "Refreshes of a server's OAuth access token, by result (ok, failed).",
		}, []string{"server", "result"}),
		pinChanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_tool_definition_changes_total",
			Help: "Tools found changed, re-added or removed since they were first seen or approved (DESIGN.md F66), by server.",
		}, []string{"server"}),
	}
	m.reg.MustRegister(m.calls, m.latency, m.reconnects, m.cacheHits, m.refreshes, m.pinChanges, collector{m},
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// Registry is the registry the metrics are on: an embedder may serve it
// or add its own.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in Prometheus' text format; with a token,
// only to a request that carries it (as the gateway asks it).
func (m *Metrics) Handler(token string) http.Handler {
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	if token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
			http.Error(w, "switchboard: a token is needed (Authorization: Bearer …)", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// observeCall counts one call, by its server and exposed tool name.
func (m *Metrics) observeCall(ctx context.Context, call *host.ObservedCall) (context.Context, func(*mcp.CallToolResult, error)) {
	server, tool := call.Server, call.Tool
	began := time.Now()
	return ctx, func(res *mcp.CallToolResult, err error) {
		m.latency.WithLabelValues(server, tool).Observe(time.Since(began).Seconds())
		m.calls.WithLabelValues(server, tool, host.Outcome(res, err)).Inc()
	}
}

func (m *Metrics) observeRefresh(server string, err error) {
	result := "ok"
	if err != nil {
		result = "failed"
	}
	m.refreshes.WithLabelValues(server, result).Inc()
}

// follow counts reconnects and tool definition changes from the host's
// events until sub closes.
func (m *Metrics) follow(sub *host.Subscription) {
	connected := map[string]bool{}
	for e := range sub.C {
		if e.Type == host.EventPin && e.Pin != nil && e.Pin.Change != host.PinNone && e.Pin.Change != host.PinUnverified {
			m.pinChanges.WithLabelValues(e.Server).Inc()
			continue
		}
		if e.Type != host.EventState || e.State != host.StateConnected {
			continue
		}
		if connected[e.Server] {
			m.reconnects.WithLabelValues(e.Server).Inc()
		}
		connected[e.Server] = true
	}
}

// allStates are the states of host.State (DESIGN.md F16).
var allStates = []host.State{host.StateConnecting, host.StateConnected, host.StateDisconnected, host.StateFailed,
	host.StateDisabled, host.StateBlocked, host.StateUntrusted, host.StateNeedsAuth, host.StateIdle, host.StateDuplicate}

// collector reads, at a scrape, what the host and the gateway hold now.
type collector struct{ m *Metrics }

var (
	descServers = prometheus.NewDesc("switchboard_servers",
		"Servers by state.", []string{"state"}, nil)
	descViews = prometheus.NewDesc("switchboard_gateway_views",
		"Views the gateway keeps (distinct ?servers= lists and the default).", nil, nil)
	descSessions = prometheus.NewDesc("switchboard_gateway_sessions",
		"Client sessions held, by protocol era (2026-07-28 has none: each request stands alone).", []string{"era"}, nil)
	descRequests = prometheus.NewDesc("switchboard_gateway_http_requests_total",
		"HTTP requests that reached MCP, by protocol era.", []string{"era"}, nil)
	descQueue = prometheus.NewDesc("switchboard_gateway_queue_depth",
		"Notifications waiting for clients.", nil, nil)
	descDropped = prometheus.NewDesc("switchboard_gateway_notifications_dropped_total",
		"Notifications dropped because clients did not take them.", nil, nil)
	descForwarded = prometheus.NewDesc("switchboard_gateway_notifications_forwarded_total",
		"Log lines and resource updates handed to clients.", nil, nil)
	descClientsDropped = prometheus.NewDesc("switchboard_gateway_clients_dropped_total",
		"Client sessions closed because they took no write in time.", nil, nil)
	descRateLimited = prometheus.NewDesc("switchboard_gateway_rate_limited_total",
		"Tool calls refused by a rate limit, by limit (user, tool; store: the shared store did not answer).", []string{"limit"}, nil)
	descWithheld = prometheus.NewDesc("switchboard_tools_withheld",
		"Tools withheld from agents and clients until approved (pinTools, DESIGN.md F66), by server.", []string{"server"}, nil)
)

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descServers, descWithheld, descViews, descSessions, descRequests, descQueue, descDropped, descForwarded, descClientsDropped, descAuthRefusals, descRateLimited, descStoreUp} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	a := c.m.app.Load()
	if a == nil {
		return
	}
	// Every state is there, zeros too, so a query over a state that no
	// server is in now finds a series.
	states := map[host.State]int{}
	for _, st := range allStates {
		states[st] = 0
	}
	for _, s := range a.h.Status() {
		states[s.State]++
		withheld := 0
		for _, c := range s.Pins {
			if c.Withheld {
				withheld++
			}
		}
		ch <- prometheus.MustNewConstMetric(descWithheld, prometheus.GaugeValue, float64(withheld), s.Name)
	}
	for st, n := range states {
		ch <- prometheus.MustNewConstMetric(descServers, prometheus.GaugeValue, float64(n), string(st))
	}
	a.collectAuth(ch)
	a.collectStore(ch)
	if a.gw == nil {
		return
	}
	s := a.gw.Stats()
	ch <- prometheus.MustNewConstMetric(descViews, prometheus.GaugeValue, float64(s.Views))
	ch <- prometheus.MustNewConstMetric(descSessions, prometheus.GaugeValue, float64(s.Sessions), "2025-11-25")
	for era, n := range s.Requests {
		ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(n), era)
	}
	ch <- prometheus.MustNewConstMetric(descQueue, prometheus.GaugeValue, float64(s.QueueDepth))
	ch <- prometheus.MustNewConstMetric(descDropped, prometheus.CounterValue, float64(s.Dropped))
	ch <- prometheus.MustNewConstMetric(descForwarded, prometheus.CounterValue, float64(s.Forwarded))
	ch <- prometheus.MustNewConstMetric(descClientsDropped, prometheus.CounterValue, float64(s.ClientsDropped))
	for limit, n := range s.RateLimited {
		ch <- prometheus.MustNewConstMetric(descRateLimited, prometheus.CounterValue, float64(n), limit)
	}
}

// withMetrics serves the app's metrics at MetricsPath and next elsewhere;
// next alone without Options.Metrics.
func (a *App) withMetrics(next http.Handler, opts gateway.HTTPOptions) http.Handler {
	if a.opts.Metrics == nil {
		return next
	}
	metrics := a.opts.Metrics.protected(opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == MetricsPath {
			metrics.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
