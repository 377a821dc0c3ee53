package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// eraCase is one way a server takes server/discover, the request a
// 2026-07-28 client opens with (issue 13): the time a fresh host takes to
// connect one such demo server.
type eraCase struct {
	name  string   // its row in the table
	key   string   // its name in the progress lines
	flags []string // the demo server's
	// warm runs the host with a tool cache that has seen the server, so
	// it knows the server's era; otherwise the host has no cache.
	warm bool
	runs []startupResult // by round; Connected == 0: did not run
}

// eraCases are measured side by side, round by round. The first is the
// baseline the others are divided by.
func eraCases(rounds int) []*eraCase {
	cases := []*eraCase{
		{name: "2026-07-28 (demo)", key: "2026"},
		{name: "2025, refuses server/discover (-32601)", key: "refuses", flags: []string{"--legacy"}},
		{name: "2025, ignores server/discover, no cache", key: "ignores", flags: []string{"--ignore-discover"}},
		{name: "2025, ignores server/discover, warm cache", key: "ignores-warm", flags: []string{"--ignore-discover"}, warm: true},
	}
	for _, c := range cases {
		c.runs = make([]startupResult, rounds)
	}
	return cases
}

// runEras measures connect time by protocol era: each run is a fresh host
// process that starts one demo server, the cases taking turns round by
// round.
func (e *env) runEras(ctx context.Context) ([]*eraCase, error) {
	cases := eraCases(e.opts.EraRounds)
	base, err := e.stdioTarget("demo")
	if err != nil {
		return nil, err
	}
	targets := make([]*target, len(cases))
	for i, c := range cases {
		t := *base
		t.Args = append(slices.Clone(base.Args), c.flags...)
		targets[i] = &t
	}
	cache, remove, err := tempCache()
	if err != nil {
		return nil, err
	}
	defer remove()
	// One host run fills the cache: it probes, and keeps the era.
	for i, c := range cases {
		if c.warm {
			if _, err := e.startupRun(ctx, "host", targets[i], 1, cache); err != nil {
				return nil, fmt.Errorf("eras: fill the cache for %s: %w", c.name, err)
			}
		}
	}
	var errs []error
	failed := make([]bool, len(cases))
	for r := range e.opts.EraRounds {
		if ctx.Err() != nil {
			break
		}
		var line strings.Builder
		for _, i := range order(len(cases), r) {
			if failed[i] {
				continue
			}
			dir := ""
			if cases[i].warm {
				dir = cache
			}
			res, err := e.startupRun(ctx, "host", targets[i], 1, dir)
			if err != nil {
				failed[i] = true
				errs = append(errs, fmt.Errorf("eras: %s: %w", cases[i].name, err))
				continue
			}
			cases[i].runs[r] = res
			fmt.Fprintf(&line, " %s %s", cases[i].key, num(res.AllMs))
		}
		fmt.Fprintf(e.log, "eras, round %d/%d, ms:%s\n", r+1, e.opts.EraRounds, line.String())
	}
	return cases, errors.Join(errs...)
}

func (c *eraCase) series(figure func(startupResult) float64) []float64 {
	out := make([]float64, len(c.runs))
	for r, res := range c.runs {
		out[r] = math.NaN()
		if res.Connected > 0 {
			out[r] = figure(res)
		}
	}
	return out
}

func printEras(w io.Writer, o *Options, cases []*eraCase) {
	fmt.Fprintf(w, "Connect time by protocol era: a fresh host process connects one demo server over stdio, %d runs each,\n", o.EraRounds)
	fmt.Fprintln(w, "the cases taking turns. ms: host.Start until the server is connected and listed (process start included).")
	fmt.Fprintln(w, "A 2025-era server that ignores server/discover costs the host's probe timeout unless the tool cache")
	fmt.Fprintln(w, "knows its era; one that refuses it costs a round trip. ×2026: per-round ratio to the 2026 server.")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\tconnected ms\trange\t×2026\t")
	base := cases[0].series(allMs)
	for i, c := range cases {
		ms := summarize(c.series(allMs))
		ratio := ""
		if i > 0 {
			ratio = ratioText(summarize(ratios(c.series(allMs), base)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", c.name, num(ms.Median), rangeOf(ms), ratio)
	}
	tw.Flush()
	fmt.Fprintln(w)
}
