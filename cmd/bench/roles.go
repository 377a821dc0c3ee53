package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testkit/benchpeer"
)

// EnvRole names the role a re-executed harness binary plays; unset, it is
// the harness. Every role that waits ends when its stdin closes.
const EnvRole = "SWITCHBOARD_BENCH_ROLE"

// roles are what the harness runs itself as, in child processes: each Go
// contender in a process of its own, so that its CPU time and memory are
// its own and no contender's garbage is collected on another's time.
var roles = map[string]func(args []string) int{
	"client":       clientRole,
	"startup":      startupRole,
	"demo-server":  spawnLogged(demo.Main),
	"demo-http":    func([]string) int { return serveHTTPRole(demoHandler()) },
	"floor-server": floorStdioRole,
	"floor-http":   func([]string) int { return serveHTTPRole(benchpeer.Handler()) },
	"switchboard":  switchboardRole,
}

// roundRequest asks a client child for one round of calls.
type roundRequest struct {
	Calls   int `json:"calls"`
	Callers int `json:"callers"`
}

// roundResult is a client child's figures for one round. The TypeScript
// client (test/peers/bench-client.mjs) answers the same fields.
type roundResult struct {
	Calls  int   `json:"calls"`
	WallNs int64 `json:"wall_ns"`
	P50Ns  int64 `json:"p50_ns"`
	// P90Ns is 0 from the TypeScript client, which does not answer it.
	P90Ns int64 `json:"p90_ns,omitempty"`
	P99Ns int64 `json:"p99_ns"`
	// CPUNs is the client process's user and system time in the round,
	// its servers' not included; 0 where it cannot be read.
	CPUNs int64 `json:"cpu_ns"`
	// Allocs and Bytes are the Go heap's allocations in the round; -1 for
	// the TypeScript client.
	Allocs int64 `json:"allocs"`
	Bytes  int64 `json:"bytes"`
	// MiddleCPUNs is the CPU time in the round of the gateway process
	// the calls went through (serve, mcphub), its servers' not included;
	// 0 for the others and where it cannot be read.
	MiddleCPUNs int64 `json:"middle_cpu_ns,omitempty"`
	// MiddlePeakKB is the gateway process's peak resident memory at the
	// round's end (VmHWM), for serve only; 0 where it cannot be read.
	MiddlePeakKB int64 `json:"middle_peak_kb,omitempty"`
}

// ready is a child's first line once it is connected.
type ready struct {
	Ready bool `json:"ready"`
}

// fail writes an error answer, which the harness reports with the child's name.
func fail(err error) int {
	_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"error": err.Error()})
	return 1
}

func parseTarget(s string) (*target, error) {
	var t target
	if err := json.Unmarshal([]byte(s), &t); err != nil {
		return nil, fmt.Errorf("-target: %w", err)
	}
	return &t, nil
}

// clientRole connects one Go contender, makes warm-up calls, says it is
// ready, then runs a round for every request on stdin until stdin closes.
func clientRole(args []string) int {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	kind := fs.String("contender", "", "host, gateway, bare, raw, serve, mcphub, ops-off or ops-on")
	spec := fs.String("target", "", "the target, as JSON")
	warmup := fs.Int("warmup", 0, "calls made before the first round")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	t, err := parseTarget(*spec)
	if err != nil {
		return fail(err)
	}
	dial, ok := dialers[*kind]
	if !ok {
		return fail(fmt.Errorf("no contender %q", *kind))
	}
	ctx := context.Background()
	c, err := dial(ctx, t)
	if err != nil {
		return fail(err)
	}
	closed := false
	defer func() {
		if !closed {
			c.close()
		}
	}()
	// The first calls of a session pay for what is built lazily, on both
	// sides; every contender makes the same number before it is measured.
	if err := c.calls(ctx, make([]time.Duration, max(*warmup, 1)), 1); err != nil {
		return fail(fmt.Errorf("warm-up: %w", err))
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(ready{Ready: true}); err != nil {
		return 1
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var req roundRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil || req.Calls < 1 || req.Callers < 1 {
			return fail(fmt.Errorf("bad request %q", sc.Text()))
		}
		res, err := round(ctx, c, req)
		if err != nil {
			// A failed call fails its round, not the contender: the
			// harness reports it and asks for the next round.
			if err := enc.Encode(map[string]string{"error": err.Error()}); err != nil {
				return 1
			}
			continue
		}
		if err := enc.Encode(res); err != nil {
			return 1
		}
	}
	// A contender that checks its own work as it closes (ops-on) fails
	// the run when the check fails; the others' close is best effort.
	if _, checks := c.(interface{ checksOnClose() }); checks {
		closed = true
		if err := c.close(); err != nil {
			fmt.Fprintln(os.Stderr, "close:", err)
			return 1
		}
	}
	return 0
}

// round runs one round and measures it.
func round(ctx context.Context, c caller, req roundRequest) (roundResult, error) {
	lat := make([]time.Duration, req.Calls)
	var before, after runtime.MemStats
	mid, _ := c.(interface{ middleCPU() time.Duration })
	middle := func() time.Duration {
		if mid == nil {
			return -1
		}
		return mid.middleCPU()
	}
	runtime.ReadMemStats(&before)
	mid0, cpu0 := middle(), cpuTime()
	start := time.Now()
	err := c.calls(ctx, lat, req.Callers)
	wall := time.Since(start)
	cpu1, mid1 := cpuTime(), middle()
	runtime.ReadMemStats(&after)
	if err != nil {
		return roundResult{}, err
	}
	slices.Sort(lat)
	res := roundResult{
		Calls:  req.Calls,
		WallNs: wall.Nanoseconds(),
		P50Ns:  percentile(lat, 0.50).Nanoseconds(),
		P90Ns:  percentile(lat, 0.90).Nanoseconds(),
		P99Ns:  percentile(lat, 0.99).Nanoseconds(),
		Allocs: int64(after.Mallocs - before.Mallocs),
		Bytes:  int64(after.TotalAlloc - before.TotalAlloc),
	}
	if cpu0 >= 0 && cpu1 >= 0 {
		res.CPUNs = (cpu1 - cpu0).Nanoseconds()
	}
	if mid0 >= 0 && mid1 >= mid0 {
		res.MiddleCPUNs = (mid1 - mid0).Nanoseconds()
	}
	if p, ok := c.(interface{ middlePeakKB() int64 }); ok {
		res.MiddlePeakKB = p.middlePeakKB()
	}
	return res, nil
}

// startupResult is a start-up child's figures. The TypeScript client
// answers the same fields.
type startupResult struct {
	// StartMs is how long the client took to be ready to call: host.Start
	// returning, or every session connected and its tools listed.
	StartMs float64 `json:"start_ms"`
	// AllMs is how long until every server was connected; the same as
	// StartMs but for a host whose Start returned at the gate.
	AllMs     float64 `json:"all_ms"`
	Connected int     `json:"connected"`
	// RSSKB is the client process's peak resident memory, its servers'
	// not included; 0 where it cannot be read.
	RSSKB int64 `json:"rss_kb"`
	// CloseMs is how long closing every server took: host.Close, or
	// every session's Close at once; 0 where not measured (ts).
	CloseMs float64 `json:"close_ms,omitempty"`
}

// startupRole connects n servers of one target at once, closes them, and
// reports how long each took and the memory it used, then exits.
func startupRole(args []string) int {
	fs := flag.NewFlagSet("startup", flag.ContinueOnError)
	kind := fs.String("contender", "", "host or bare")
	spec := fs.String("target", "", "the target, as JSON; each server gets --name sNNN")
	n := fs.Int("n", 1, "servers")
	cache := fs.String("cache", "", "the host's tool cache folder; empty: none")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	t, err := parseTarget(*spec)
	if err != nil {
		return fail(err)
	}
	targets := make([]*target, *n)
	for i := range targets {
		ti := *t
		ti.Args = append(slices.Clone(t.Args), "--name", fmt.Sprintf("s%03d", i))
		targets[i] = &ti
	}
	ctx := context.Background()
	var res startupResult
	var stop func()
	switch *kind {
	case "host":
		res, stop, err = startHost(ctx, targets, *cache)
	case "bare":
		res, stop, err = startBare(ctx, targets)
	default:
		err = fmt.Errorf("no start-up contender %q", *kind)
	}
	if err != nil {
		return fail(err)
	}
	res.RSSKB = peakRSS()
	// Closed before the answer, so the harness, which waits for this
	// exit, starts the next run with these servers gone.
	closing := time.Now()
	stop()
	res.CloseMs = ms(time.Since(closing))
	_ = json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

func startHost(ctx context.Context, targets []*target, cache string) (startupResult, func(), error) {
	configs := make([]config.ServerConfig, len(targets))
	for i, t := range targets {
		configs[i] = t.serverConfig(fmt.Sprintf("s%03d", i))
	}
	h := host.New(&host.Options{CacheDir: cache})
	start := time.Now()
	if err := h.Start(ctx, configs); err != nil {
		h.Close()
		return startupResult{}, nil, err
	}
	res := startupResult{StartMs: ms(time.Since(start))}
	if err := h.WaitSettled(ctx); err != nil {
		h.Close()
		return startupResult{}, nil, err
	}
	res.AllMs = ms(time.Since(start))
	for _, st := range h.Status() {
		if st.State != host.StateConnected {
			h.Close()
			return startupResult{}, nil, fmt.Errorf("server %s: %s %s", st.Name, st.State, st.Error)
		}
		res.Connected++
	}
	return res, func() { h.Close() }, nil
}

func startBare(ctx context.Context, targets []*target) (startupResult, func(), error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	sessions := make([]*mcp.ClientSession, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	start := time.Now()
	for i, t := range targets {
		wg.Go(func() {
			sess, _, err := bareSession(ctx, client, t)
			if err == nil {
				_, err = sess.ListTools(ctx, nil)
				sessions[i] = sess
			}
			errs[i] = err
		})
	}
	wg.Wait()
	took := time.Since(start)
	stop := func() {
		var wg sync.WaitGroup
		for _, s := range sessions {
			if s != nil {
				wg.Go(func() { s.Close() })
			}
		}
		wg.Wait()
	}
	if err := errors.Join(errs...); err != nil {
		stop()
		return startupResult{}, nil, err
	}
	return startupResult{StartMs: ms(took), AllMs: ms(took), Connected: len(sessions)}, stop, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

func floorStdioRole([]string) int {
	if err := benchpeer.ServeStdio(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "floor server:", err)
		return 1
	}
	return 0
}

// demoHandler is the demo server over streamable HTTP, one server for
// every session, as a deployed go-sdk server is.
func demoHandler() http.Handler {
	srv := demo.NewServer(demo.Options{})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
}

// serveHTTPRole serves h on a free loopback port, says where on stdout, and
// serves until stdin closes.
func serveHTTPRole(h http.Handler) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	url := "http://" + l.Addr().String() + "/mcp"
	if err := json.NewEncoder(os.Stdout).Encode(map[string]string{"url": url}); err != nil {
		return 1
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	// Streams still open (a client's standalone GET) are cut at once.
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
	}
	<-served
	return 0
}
