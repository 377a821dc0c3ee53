package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// midCPUus is the gateway process's CPU time per call in a round.
var midCPUus = func(r roundResult) float64 {
	return nanIf(r.MiddleCPUNs <= 0, float64(r.MiddleCPUNs)/1e3/float64(r.Calls))
}

// printMiddle compares, for each case where a gateway process ran, the
// same go-sdk client's call to the server direct (bare) and through each
// gateway: p50 medians, their ratios round by round, and each gateway
// process's own CPU per call.
func printMiddle(w io.Writer, cases []*callCase) {
	var shown []*callCase
	for _, cc := range cases {
		if slices.ContainsFunc(middleContenders, func(n string) bool { return slices.Contains(cc.contenders, n) }) {
			shown = append(shown, cc)
		}
	}
	if len(shown) == 0 {
		return
	}
	fmt.Fprintln(w, "Through a gateway process: the same go-sdk client calls the server direct (bare), through")
	fmt.Fprintln(w, "switchboard serve (a process of its own, streamable HTTP on loopback) and through mcp-hub (its /mcp,")
	fmt.Fprintln(w, "legacy SSE on loopback); each gateway starts a stdio server of its own, or connects to the HTTP one.")
	fmt.Fprintln(w, "p50 is the median over the rounds; ratios are taken round by round: median [lowest–highest round],")
	fmt.Fprintln(w, "above 1 the first is slower. Gateway CPU is the gateway process's CPU time per call, its server's not counted.")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\ttransport\tcallers\tbare p50 µs\tserve p50 µs\tmcphub p50 µs\tserve/bare\tmcphub/bare\tmcphub/serve\tserve CPU µs/call\tmcphub CPU µs/call\t")
	for _, cc := range shown {
		bare, serve, hub := cc.series("bare", p50us), cc.series("serve", p50us), cc.series("mcphub", p50us)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", cc.server, cc.transport, cc.callers,
			medianText(bare), medianText(serve), medianText(hub),
			ratioText(summarize(ratios(serve, bare))), ratioText(summarize(ratios(hub, bare))),
			ratioText(summarize(ratios(hub, serve))),
			medianText(cc.series("serve", midCPUus)), medianText(cc.series("mcphub", midCPUus)))
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// medianText is the median of a series, or a dash.
func medianText(s []float64) string {
	sp := summarize(s)
	if sp.N == 0 {
		return "–"
	}
	return num(sp.Median)
}
