//go:build unix

package replicatest_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testkit/redistest"
	"github.com/switchboard-mcp/switchboard/internal/testkit/replicatest"
)

// callOutcome is what a client saw of one call.
type callOutcome struct {
	id, era string
	ok      bool
	err     string
}

// load is a steady stream of calls of count__work through one URL, by
// workers that each call one at a time, half of them in legacy sessions
// (begun again when a call fails: its replica may be gone) and half in
// 2026-07-28 (no session: every call may go to another replica).
type load struct {
	url      string
	ms       int
	sealed   bool // sessions outlive their replica: streams are resumed
	mu       sync.Mutex
	outcomes []callOutcome
	ok       []atomic.Int64 // per worker
	progress chan struct{}
	wg       sync.WaitGroup
}

func startLoad(ctx context.Context, t *testing.T, url string, workers, ms int, sealed bool) *load {
	l := &load{url: url, ms: ms, sealed: sealed, ok: make([]atomic.Int64, workers), progress: make(chan struct{}, 1)}
	for w := range workers {
		era := []string{legacy, next}[w%2]
		l.wg.Go(func() { l.work(ctx, t, w, era) })
	}
	return l
}

// redialPause paces a worker whose session could not begin (its replica
// is draining, and HAProxy has not seen it yet): a client backs off
// rather than spin.
const redialPause = 50 * time.Millisecond

func (l *load) work(ctx context.Context, t *testing.T, w int, era string) {
	var s *mcp.ClientSession
	defer func() {
		if s != nil {
			s.Close()
		}
	}()
	for n := 0; ctx.Err() == nil; n++ {
		if s == nil {
			var err error
			if l.sealed {
				s, err = dialAs(ctx, l.url, era, "load")
			} else {
				s, err = dial(ctx, l.url, era, nil)
			}
			if err != nil {
				s = nil
				select {
				case <-ctx.Done():
				case <-time.After(redialPause):
				}
				continue
			}
		}
		id := fmt.Sprintf("w%d-%d", w, n)
		callCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callBound)
		res, err := s.CallTool(callCtx, &mcp.CallToolParams{Name: "count__work", Arguments: map[string]any{"id": id, "ms": l.ms}})
		cancel()
		o := callOutcome{id: id, era: era, ok: err == nil && !res.IsError}
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			t.Errorf("call %s (%s) hung: no result or error in %v", id, era, callBound)
			o.err = "hung"
		case err != nil:
			o.err = err.Error()
		case res.IsError:
			o.err = "error result: " + resultText(res)
		}
		l.mu.Lock()
		l.outcomes = append(l.outcomes, o)
		l.mu.Unlock()
		if o.ok {
			l.ok[w].Add(1)
			select {
			case l.progress <- struct{}{}:
			default:
			}
		} else if s != nil {
			s.Close()
			s = nil
		}
	}
}

// counts is how many calls each worker has seen succeed.
func (l *load) counts() []int64 {
	c := make([]int64, len(l.ok))
	for i := range l.ok {
		c[i] = l.ok[i].Load()
	}
	return c
}

// awaitProgress waits until every worker has seen a call succeed since
// base was taken (counts).
func (l *load) awaitProgress(t *testing.T, base []int64, what string) {
	t.Helper()
	deadline := time.After(2 * callBound)
	for {
		behind := -1
		for i, n := range l.counts() {
			if n <= base[i] {
				behind = i
			}
		}
		if behind < 0 {
			return
		}
		select {
		case <-l.progress:
		case <-deadline:
			t.Fatalf("%s: worker %d made no call in %v", what, behind, 2*callBound)
		}
	}
}

// TestRollingRestartRunsNoCallTwice: under a steady load of calls (100 ms
// each, so some are always in flight) through HAProxy, each of three
// replicas in turn gets SIGTERM, drains (exit 0), and is started again.
// Every call ends in a result or an error, none hangs; the upstream
// copies, which count every run, ran each call that succeeded once and
// each call the client saw fail at most once (SPEC F64, F60).
//
// With SIGTERM alone, HAProxy sends a replica calls until its /readyz
// check fails (about a second). The draining replica answers a
// 2026-07-28 one 503 before any of it runs, which HAProxy retries on
// another replica: none is refused; a call in a legacy session (no key:
// no other replica can take it up) is. Put in DRAIN on HAProxy's runtime
// API first (docs/deploy/README.md), it gets none but its sessions': no
// 2026-07-28 call fails. With replicas
// that share a session key and a store, and the replica put in MAINT
// (not even its sessions' requests: another replica takes those up), no
// session is lost: at most a request already on its way is refused.
func TestRollingRestartRunsNoCallTwice(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first string // the replica's state in HAProxy before SIGTERM, "" for none
	}{
		{"sigterm", ""},
		{"haproxy drain, then sigterm", "drain"},
		{"sealed sessions, haproxy maint, then sigterm", "maint"},
	} {
		t.Run(tc.name, func(t *testing.T) { rollingRestart(t, tc.first) })
	}
}

func rollingRestart(t *testing.T, first string) {
	c := replicatest.New(t, replicatest.Binary(t), nil)
	runsFile := filepath.Join(c.Dir, "runs")
	c.SetServer(t, "count", c.Upstream(t, runsFile, false))
	sealed := first == "maint"
	if sealed {
		c.Start(t, 3, "--session-key-file", keyFile(t, c.Dir), "--store", redistest.Start(t).URL)
	} else {
		c.Start(t, 3)
	}
	h := c.StartHAProxy(t, "haproxy.cfg")

	ctx, stop := context.WithCancel(t.Context())
	l := startLoad(ctx, t, h.URL, 6, 100, sealed)
	defer func() { stop(); l.wg.Wait() }()
	l.awaitProgress(t, make([]int64, 6), "before the restarts")
	for _, r := range c.Replicas {
		base := l.counts()
		if first != "" {
			if out, err := h.Command("set server " + replicatest.Backend + "/" + r.Name + " state " + first); err != nil || len(out) > 1 {
				t.Fatalf("haproxy: set server state %s: %q %v", first, out, err)
			}
		}
		termed := time.Now()
		r.Signal(t, syscall.SIGTERM)
		if err := r.Wait(t); err != nil {
			t.Errorf("replica %s after SIGTERM: %v, want exit 0 after its drain", r.Name, err)
		}
		drained := time.Since(termed)
		r.Start(t)
		if first != "" {
			if out, err := h.Command("set server " + replicatest.Backend + "/" + r.Name + " state ready"); err != nil || len(out) > 1 {
				t.Fatalf("haproxy: set server state ready: %q %v", out, err)
			}
		}
		up, cancel := context.WithTimeout(t.Context(), replicatest.StartBound)
		err := h.AwaitStatus(up, r.Name, "UP")
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: drained and exited in %v, restarted and UP in haproxy %v after SIGTERM", r.Name, drained.Round(time.Millisecond), time.Since(termed).Round(time.Millisecond))
		l.awaitProgress(t, base, "after restarting "+r.Name)
	}
	stop()
	l.wg.Wait()

	runs := replicatest.Runs(t, runsFile)
	made := map[string]bool{}
	okCalls, failed := 0, 0
	why := map[string]int{}
	for _, o := range l.outcomes {
		made[o.id] = true
		switch n := runs[o.id]; {
		case o.ok && n != 1:
			t.Errorf("call %s succeeded and ran %d times, want once", o.id, n)
		case !o.ok && n > 1:
			t.Errorf("call %s failed (%s) and ran %d times", o.id, o.err, n)
		}
		if o.ok {
			okCalls++
			continue
		}
		failed++
		why[o.era+": "+o.err]++
		// In DRAIN or MAINT first, HAProxy sends the replica no new
		// request: a 2026-07-28 call is never refused. With sealed
		// sessions in MAINT, no session is lost either; what may fail is
		// a request HAProxy had sent on its way just before MAINT, which
		// reaches the replica draining.
		switch {
		case o.era == next && strings.Contains(o.err, "shutting down"):
			t.Errorf("call %s (%s) was refused by a draining replica, not answered 503 for HAProxy to retry elsewhere: %s", o.id, o.era, o.err)
		case first != "" && o.era == next:
			t.Errorf("call %s (%s) failed with the replica in %s in haproxy first: %s", o.id, o.era, first, o.err)
		case first == "maint" && !strings.Contains(o.err, "shutting down"):
			t.Errorf("call %s (%s) failed with sealed sessions, the replica in maint first: %s", o.id, o.era, o.err)
		}
	}
	for id, n := range runs {
		if !made[id] {
			t.Errorf("the upstream ran %s %d times, a call no client made", id, n)
		}
	}
	t.Logf("%d calls: %d succeeded, %d failed", len(l.outcomes), okCalls, failed)
	reasons := make([]string, 0, len(why))
	for r := range why {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		t.Logf("  %d× %s", why[r], r)
	}
}
