package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"
)

// run measures what o says and prints the tables to stdout, progress to
// stderr. It prints what it measured even when a part failed, then
// returns every failure.
func run(ctx context.Context, o *Options, stdout, stderr io.Writer) error {
	e, err := newEnv(o, stderr)
	if err != nil {
		return err
	}
	began, load0 := time.Now(), loadavg()
	var errs []error
	var calls []*callCase
	for _, server := range o.Servers {
		for _, transport := range o.Transports {
			if ctx.Err() != nil {
				break
			}
			cases, err := e.runCalls(ctx, server, transport)
			if errors.Is(err, errNoPeers) {
				e.notes = append(e.notes, fmt.Sprintf("%s over %s left out: %v", server, transport, err))
				continue
			}
			errs = append(errs, err)
			calls = append(calls, cases...)
		}
	}
	loadCalls := loadavg() // start-up runs a hundred servers at once: that load is its own
	var cold, warm []*startupCase
	for _, n := range o.Startup {
		if ctx.Err() != nil {
			break
		}
		sc, err := e.runStartup(ctx, n, "")
		errs = append(errs, err)
		if sc != nil {
			cold = append(cold, sc)
		}
	}
	if len(o.WarmStartup) > 0 && ctx.Err() == nil {
		dir, remove, err := tempCache()
		if err != nil {
			return err
		}
		for _, n := range o.WarmStartup {
			if ctx.Err() != nil {
				break
			}
			sc, err := e.runStartup(ctx, n, dir)
			errs = append(errs, err)
			if sc != nil {
				warm = append(warm, sc)
			}
		}
		remove()
	}
	var eras []*eraCase
	if o.EraRounds > 0 && ctx.Err() == nil {
		var err error
		eras, err = e.runEras(ctx)
		errs = append(errs, err)
	}
	var daemon *daemonCase
	if o.DaemonRounds > 0 && ctx.Err() == nil {
		var err error
		daemon, err = e.runDaemon(ctx)
		errs = append(errs, err)
	}
	var oneShot *oneShotCase
	if o.OneShotRounds > 0 && ctx.Err() == nil {
		var err error
		oneShot, err = e.runOneShot(ctx)
		errs = append(errs, err)
	}
	errs = append(errs, ctx.Err())

	w := &errWriter{w: stdout}
	e.header(w, began, load0, loadCalls)
	if len(calls) > 0 {
		printCalls(w, o, calls)
		printRatios(w, calls)
		printMiddle(w, calls)
		printServeGC(w, calls)
		printOps(w, calls)
	}
	if len(cold) > 0 {
		printStartup(w, o, cold)
	}
	if len(warm) > 0 {
		printWarm(w, o, warm)
	}
	if len(eras) > 0 {
		printEras(w, o, eras)
	}
	if daemon != nil {
		printDaemon(w, daemon)
	}
	if oneShot != nil && len(oneShot.ms) > 0 {
		printOneShot(w, o, oneShot)
	}
	for _, n := range e.notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return errors.Join(append(errs, w.err)...)
}

// errWriter keeps the first write error, so printing can go on unchecked.
type errWriter struct {
	w   io.Writer
	err error
}

func (w *errWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return len(p), nil
	}
	n, err := w.w.Write(p)
	w.err = err
	return n, nil
}

func (e *env) header(w io.Writer, began time.Time, load0, loadCalls string) {
	sdk := "?"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/modelcontextprotocol/go-sdk" {
				sdk = d.Version
			}
		}
	}
	node := "–"
	if e.node != "" {
		if out, err := exec.Command(e.node, "--version").Output(); err == nil {
			node = strings.TrimSpace(string(out))
		}
	}
	ts := e.tsVersion
	if ts == "" {
		ts = "–"
	}
	hub := ""
	if e.hub != "" {
		hub = ", mcp-hub " + e.hubVersion
	}
	fmt.Fprintf(w, "switchboard bench, %s: %s, go-sdk %s, TypeScript SDK %s, node %s%s; %d CPUs\n",
		began.Format("2006-01-02 15:04"), runtime.Version(), sdk, ts, node, hub, runtime.NumCPU())
	fmt.Fprintf(w, "before: %s\nafter the calls: %s\nafter the start-ups: %s\ntook %s\n\n",
		load0, loadCalls, loadavg(), time.Since(began).Round(time.Second))
}

// loadavg is how busy the machine was: the 1, 5 and 15 minute load
// average, and the share of the last minute in which some runnable task
// waited for a CPU (Linux's pressure stall information), where the system
// says them.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	load := "load " + strings.Join(f[:3], " ")
	b, err = os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return load
	}
	for _, field := range strings.Fields(strings.SplitN(string(b), "\n", 2)[0]) {
		if v, ok := strings.CutPrefix(field, "avg60="); ok {
			load += ", CPU waited " + v + "% of the last minute"
		}
	}
	return load
}

var contenderLegend = map[string]string{
	"host":    "host: switchboard host.Host.CallTool",
	"gateway": "gateway: a go-sdk ClientSession over HTTP to switchboard's gateway over a host, in one process",
	"bare":    "bare: a go-sdk ClientSession",
	"ts":      "ts: the TypeScript SDK Client",
	"raw":     "raw: pre-encoded requests, answers not decoded (no MCP library)",
	"serve":   "serve: a go-sdk ClientSession over HTTP to a `switchboard serve` process",
	"mcphub":  "mcphub: a go-sdk ClientSession over SSE to an mcp-hub process",
	"ops-off": "ops-off: as gateway, through the app (serve --http's gateway) with no metrics, traces or audit log",
	"ops-on":  "ops-on: as ops-off with metrics, traces to an OTLP receiver on loopback and the audit log",
}

func printCalls(w io.Writer, o *Options, cases []*callCase) {
	fmt.Fprintf(w, "Tool calls: %d rounds of %d calls per client (after %d unmeasured), the clients taking turns in each round.\n",
		o.Rounds, o.Calls, o.Warmup)
	fmt.Fprintln(w, "Medians over the rounds; p50 range is the lowest and highest round. CPU is the client process's alone.")
	var legend []string
	for _, c := range o.Contenders {
		legend = append(legend, contenderLegend[c])
	}
	fmt.Fprintf(w, "%s.\n\n", strings.Join(legend, "; "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\ttransport\tcallers\tclient\tp50 µs\tp50 range\tp99 µs\tcalls/s\tCPU µs/call\tallocs/call\tKB/call\t")
	for _, cc := range cases {
		for _, name := range o.Contenders {
			lead := fmt.Sprintf("%s\t%s\t%d\t%s\t", cc.server, cc.transport, cc.callers, name)
			p50 := summarize(cc.series(name, p50us))
			if p50.N == 0 {
				fmt.Fprintf(tw, "%s–\t–\t–\t–\t–\t–\t–\t\n", lead)
				continue
			}
			fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", lead,
				num(p50.Median), rangeOf(p50), num(summarize(cc.series(name, p99us)).Median),
				whole(summarize(cc.series(name, perSec)).Median), num(summarize(cc.series(name, cpuUs)).Median),
				whole(summarize(cc.series(name, allocs)).Median), num(summarize(cc.series(name, kbytes)).Median))
		}
	}
	tw.Flush()
	for _, cc := range cases {
		for _, name := range cc.contenders {
			if n := summarize(cc.series(name, p50us)).N; n < o.Rounds {
				fmt.Fprintf(w, "note: %s over %s, %d callers: %s ran %d of %d rounds (errors below)\n",
					cc.server, cc.transport, cc.callers, name, n, o.Rounds)
			}
		}
	}
	fmt.Fprintln(w)
}

func printRatios(w io.Writer, cases []*callCase) {
	fmt.Fprintln(w, "Ratios of p50, the host's over the other client's, taken round by round: median [lowest–highest round].")
	fmt.Fprintln(w, "Above 1 the host is slower; gateway/host is the gateway's over the host's, above 1 the gateway is slower.")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\ttransport\tcallers\thost/bare\thost/ts\thost/raw\tgateway/host\t")
	for _, cc := range cases {
		host := cc.series("host", p50us)
		fmt.Fprintf(tw, "%s\t%s\t%d\t", cc.server, cc.transport, cc.callers)
		for _, other := range []string{"bare", "ts", "raw"} {
			fmt.Fprintf(tw, "%s\t", ratioText(summarize(ratios(host, cc.series(other, p50us)))))
		}
		fmt.Fprintf(tw, "%s\t", ratioText(summarize(ratios(cc.series("gateway", p50us), host))))
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func printStartup(w io.Writer, o *Options, cases []*startupCase) {
	fmt.Fprintf(w, "Start-up, no cache: N demo servers over stdio at once, %d runs each, the clients taking turns.\n", o.StartupRounds)
	fmt.Fprintln(w, "host: host.Start until it returns, every server connected and listed; bare: N go-sdk sessions")
	fmt.Fprintln(w, "connected in parallel, each listing its tools; ts: Promise.all of N Clients, each listing its tools.")
	fmt.Fprintln(w, "Each run is a fresh client process; RSS is that process's peak (VmHWM), its servers' not counted.")
	fmt.Fprintln(w, "close: host.Close, or every bare session's Close at once, until each server process is gone (ts: not measured).")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "servers\tclient\tready ms\trange\tRSS MB\thost/client\tclose ms\trange\thost/client\t")
	for _, sc := range cases {
		host, hostClose := sc.series("host", startMs), sc.series("host", closeMs)
		for _, name := range sc.contenders {
			lead := fmt.Sprintf("%d\t%s\t", sc.n, name)
			ms := summarize(sc.series(name, startMs))
			if ms.N == 0 {
				fmt.Fprintf(tw, "%s–\t–\t–\t\t–\t–\t\t\n", lead)
				continue
			}
			closed := summarize(sc.series(name, closeMs))
			ratio, closeRatio := "", ""
			if name != "host" {
				ratio = ratioText(summarize(ratios(host, sc.series(name, startMs))))
				if closed.N > 0 {
					closeRatio = ratioText(summarize(ratios(hostClose, sc.series(name, closeMs))))
				}
			}
			fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", lead, num(ms.Median), rangeOf(ms),
				num(summarize(sc.series(name, rssMB)).Median), ratio, num(closed.Median), rangeOf(closed), closeRatio)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func printWarm(w io.Writer, o *Options, cases []*startupCase) {
	fmt.Fprintf(w, "Start-up with a warm tool cache: host.Start on N demo servers whose tools are cached, %d runs each.\n", o.StartupRounds)
	fmt.Fprintln(w, "Start returns when all connected or at the startup gate (250 ms), cached tools standing in.")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "servers\tStart returns ms\trange\tall connected ms\tRSS MB\t")
	for _, sc := range cases {
		ms := summarize(sc.series("host", startMs))
		if ms.N == 0 {
			fmt.Fprintf(tw, "%d\t–\t–\t–\t–\t\n", sc.n)
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t\n", sc.n, num(ms.Median), rangeOf(ms),
			num(summarize(sc.series("host", allMs)).Median), num(summarize(sc.series("host", rssMB)).Median))
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// Figures of a start-up run.
var (
	startMs = func(r startupResult) float64 { return r.StartMs }
	allMs   = func(r startupResult) float64 { return r.AllMs }
	rssMB   = func(r startupResult) float64 { return nanIf(r.RSSKB <= 0, float64(r.RSSKB)/1024) }
	closeMs = func(r startupResult) float64 { return nanIf(r.CloseMs <= 0, r.CloseMs) }
)

// num shows a figure with three significant digits or so.
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func whole(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

func rangeOf(s spread) string {
	if s.N == 0 {
		return "–"
	}
	return num(s.Min) + "–" + num(s.Max)
}

func ratioText(s spread) string {
	if s.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f [%.2f–%.2f]", s.Median, s.Min, s.Max)
}
