package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// gcContenders are serve with GOGC set in its environment, as a user sets
// it: serve-gogc100 is Go's default, what serve ran with before it set its
// own; beside serve (its own setting, servegc.go in cmd/internal/cli) they
// say what that setting buys and what memory it costs.
var gcContenders = []string{"serve-gogc100", "serve-gogc200", "serve-gogc400", "serve-gogc800"}

func init() {
	for _, name := range gcContenders {
		gogc := name[len("serve-gogc"):]
		contenderLegend[name] = name + ": serve with GOGC=" + gogc
		dialers[name] = func(ctx context.Context, t *target) (caller, error) {
			return dialServeEnv(ctx, t, "GOGC="+gogc)
		}
	}
}

// peakMB is the gateway process's peak resident memory at a round's end.
var peakMB = func(r roundResult) float64 { return nanIf(r.MiddlePeakKB <= 0, float64(r.MiddlePeakKB)/1024) }

// printServeGC compares serve under its own GC setting with serve under
// each GOGC a user may set, for each case where any of them ran: p50
// against bare's, serve's CPU per call and its peak resident memory.
func printServeGC(w io.Writer, cases []*callCase) {
	var shown []*callCase
	for _, cc := range cases {
		if slices.ContainsFunc(gcContenders, func(n string) bool { return slices.Contains(cc.contenders, n) }) {
			shown = append(shown, cc)
		}
	}
	if len(shown) == 0 {
		return
	}
	fmt.Fprintln(w, "serve's garbage collector: serve as it runs (its own setting when GOGC is not set) beside serve")
	fmt.Fprintln(w, "with GOGC set (serve-gogc100: Go's default). p50 medians over the rounds, x/bare taken round by round:")
	fmt.Fprintln(w, "median [lowest–highest round]; CPU is serve's own per call; peak MB its peak resident memory (VmHWM).")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\ttransport\tcallers\tcontender\tp50 µs\t/bare\tCPU µs/call\tpeak MB\t")
	for _, cc := range shown {
		bare := cc.series("bare", p50us)
		for _, name := range append([]string{"serve"}, gcContenders...) {
			p50 := cc.series(name, p50us)
			if p50 == nil {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", cc.server, cc.transport, cc.callers, name,
				medianText(p50), ratioText(summarize(ratios(p50, bare))),
				medianText(cc.series(name, midCPUus)), medianText(cc.series(name, peakMB)))
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
}
