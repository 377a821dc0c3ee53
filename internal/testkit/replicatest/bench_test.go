//go:build unix

package replicatest_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testkit/replicatest"
)

// benchRound is how long each contender is loaded in one round; rounds
// alternate between contenders, so that whatever else the machine does
// falls on all of them alike.
const (
	benchRound   = 2 * time.Second
	benchRounds  = 5
	benchCallers = 16
	// serialMS is the serial upstream's time per call: one replica can
	// then do at most 1000/serialMS calls a second, whatever the cores.
	serialMS = 20
)

// contender is one setup measured: a cluster of n replicas behind
// HAProxy, and the calls its clients make.
type contender struct {
	name  string
	url   string
	ms    int
	rates []float64 // calls a second, one a round
}

// BenchmarkReplicas measures calls a second through HAProxy with one
// replica and with three, interleaved round by round, with 16 callers
// in 2026-07-28 (no session: HAProxy spreads every call). Two upstreams:
// "free" answers at once, so the gateways' own CPU is the limit and two
// cores cannot show three replicas scaling; "serial" runs one call at a
// time for 20 ms per replica, a capacity each replica adds. Run with
// -benchtime=1x: each run is benchRounds rounds of benchRound per
// contender; it reports each contender's median calls/s and the ratios.
func BenchmarkReplicas(b *testing.B) {
	bin := replicatest.Binary(b)
	var cs []*contender
	for _, upstream := range []string{"free", "serial"} {
		for _, n := range []int{1, 3} {
			cs = append(cs, startContender(b, bin, upstream, n))
		}
	}
	for b.Loop() {
		for range benchRounds {
			for _, c := range cs {
				c.rates = append(c.rates, c.round(b))
			}
		}
	}
	med := map[string]float64{}
	for _, c := range cs {
		slices.Sort(c.rates)
		med[c.name] = c.rates[len(c.rates)/2]
		b.ReportMetric(med[c.name], c.name+"-calls/s")
	}
	for _, u := range []string{"free", "serial"} {
		b.ReportMetric(med[u+"/3"]/med[u+"/1"], u+"-ratio-3/1")
	}
	var lines []string
	for _, c := range cs {
		lines = append(lines, fmt.Sprintf("%s: median %.0f calls/s (rounds %v)", c.name, med[c.name], roundAll(c.rates)))
	}
	b.Logf("through HAProxy, %d callers:\n%s", benchCallers, strings.Join(lines, "\n"))
}

func roundAll(v []float64) []int {
	out := make([]int, len(v))
	for i, f := range v {
		out[i] = int(f + 0.5)
	}
	return out
}

// startContender starts n replicas serving the counting upstream (serial
// or free) and HAProxy in front.
func startContender(b *testing.B, bin, upstream string, n int) *contender {
	c := replicatest.New(b, bin, nil)
	ms := 0
	if upstream == "serial" {
		ms = serialMS
	}
	c.SetServer(b, "count", c.Upstream(b, filepath.Join(c.Dir, "runs"), upstream == "serial"))
	c.Start(b, n)
	h := c.StartHAProxy(b, "haproxy.cfg")
	return &contender{name: fmt.Sprintf("%s/%d", upstream, n), url: h.URL, ms: ms}
}

// round loads the contender for benchRound with benchCallers callers,
// each in its own 2026-07-28 client, and returns the calls a second.
func (c *contender) round(b *testing.B) float64 {
	ctx, cancel := context.WithTimeout(b.Context(), benchRound)
	defer cancel()
	var calls atomic.Int64
	var wg sync.WaitGroup
	var errOnce sync.Once
	var firstErr error
	start := time.Now()
	for w := range benchCallers {
		wg.Go(func() {
			s, err := dial(b.Context(), c.url, next, nil)
			if err != nil {
				errOnce.Do(func() { firstErr = err })
				return
			}
			defer s.Close()
			for n := 0; ctx.Err() == nil; n++ {
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "count__work", Arguments: map[string]any{"id": fmt.Sprintf("b%d-%d", w, n), "ms": c.ms}})
				if ctx.Err() != nil {
					return // the round's end cut it: not counted
				}
				if err != nil || res.IsError {
					errOnce.Do(func() { firstErr = fmt.Errorf("call: %v %v", err, res) })
					return
				}
				calls.Add(1)
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	return float64(calls.Load()) / time.Since(start).Seconds()
}

// BenchmarkFailover measures, per iteration, the time from SIGKILL of
// the replica a client's calls were going to, to that client's first
// successful call through HAProxy: a 2026-07-28 client (no session: the
// next call goes to a live replica); a 2025-11-25 session on replicas
// with no session key, which ends with its replica (the client begins a
// new session, as the spec tells it to); and one on replicas sharing a
// key file, which goes on on another replica under the same id. The
// killed replica is started again before the next iteration.
func BenchmarkFailover(b *testing.B) {
	bin := replicatest.Binary(b)
	for _, tc := range []struct {
		name, era string
		sealed    bool
	}{
		{"2026-07-28", next, false},
		{"2025-11-25/new-session", legacy, false},
		{"2025-11-25/sealed", legacy, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := replicatest.New(b, bin, nil)
			c.SetServer(b, "demo", c.Demo("demo"))
			var extra []string
			if tc.sealed {
				extra = []string{"--session-key-file", keyFile(b, c.Dir)}
			}
			c.Start(b, 3, extra...)
			h := c.StartHAProxy(b, "haproxy.cfg")
			var took []time.Duration
			// ns/op is not the figure: ms-to-first-call is.
			for range b.N {
				took = append(took, failOver(b, c, h, tc.era, tc.sealed))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-to-first-call")
			b.Logf("%s: kill to first successful call, sorted: %v", tc.name, took)
		})
	}
}

// failOver kills the replica a client's call reached and returns how
// long until its next call succeeded (in the same session when sealed),
// then starts the replica again.
func failOver(b *testing.B, c *replicatest.Cluster, h *replicatest.HAProxy, era string, sealed bool) time.Duration {
	pidOf := func(s *mcp.ClientSession) string {
		ctx, cancel := context.WithTimeout(b.Context(), callBound)
		defer cancel()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "demo__pid"})
		if err != nil || res.IsError {
			return ""
		}
		return resultText(res)
	}
	replicaOf := map[string]*replicatest.Replica{}
	for _, r := range c.Replicas {
		s, err := dial(b.Context(), r.URL, next, nil)
		if err != nil {
			b.Fatal(err)
		}
		replicaOf[pidOf(s)] = r
		s.Close()
	}
	s, err := dialAs(b.Context(), h.URL, era, "bench")
	if err != nil {
		b.Fatal(err)
	}
	id := s.ID()
	victim := replicaOf[pidOf(s)]
	if victim == nil {
		b.Fatal("the client's call reached no known replica")
	}
	killed := time.Now()
	victim.Signal(b, syscall.SIGKILL)
	_ = victim.Wait(b)
	for s == nil || pidOf(s) == "" {
		if time.Since(killed) > callBound {
			b.Fatalf("no successful call %v after the kill", callBound)
		}
		if sealed {
			b.Fatalf("the sealed session's call failed after its replica was killed")
		}
		if s != nil {
			s.Close()
		}
		if s, err = dialAs(b.Context(), h.URL, era, "bench"); err != nil {
			s = nil
		}
	}
	took := time.Since(killed)
	if sealed && s.ID() != id {
		b.Fatalf("the sealed session's id changed")
	}
	s.Close()
	victim.Start(b)
	up, cancel := context.WithTimeout(b.Context(), replicatest.StartBound)
	defer cancel()
	if err := h.AwaitStatus(up, victim.Name, "UP"); err != nil {
		b.Fatal(err)
	}
	return took
}
