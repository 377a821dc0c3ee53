package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// callCase is one server, transport and number of callers, with every
// contender's figures round by round.
type callCase struct {
	server, transport string
	callers           int
	contenders        []string
	// rounds[i][r] is contender i's round r; Calls == 0 where it did not
	// run (it failed: the error is reported on its own).
	rounds [][]roundResult
}

// runCalls measures every case of one server over one transport: it starts
// each contender once, then for each number of callers runs the rounds,
// the contenders taking turns in each.
func (e *env) runCalls(ctx context.Context, server, transport string) ([]*callCase, error) {
	var t *target
	var err error
	stopServer := func() error { return nil }
	if transport == "http" {
		t, stopServer, err = e.httpTarget(ctx, server)
	} else {
		t, err = e.stdioTarget(server)
	}
	if err != nil {
		return nil, fmt.Errorf("%s over %s: %w", server, transport, err)
	}
	var errs []error
	var names []string
	var children []*child
	var spans *spanSink
	if slices.Contains(e.opts.Contenders, "ops-on") {
		if spans, err = startSpanSink(); err != nil {
			return nil, err
		}
	}
	for _, name := range e.opts.Contenders {
		var extra []string
		if name == "ops-on" {
			extra = append(extra, envOTLP+"="+spans.url)
		}
		c, err := e.contender(ctx, name, t, extra...)
		if err != nil {
			if !errors.Is(err, errNoPeers) { // the notes say what is not installed
				errs = append(errs, fmt.Errorf("%s over %s: %w", server, transport, err))
			}
			continue
		}
		names, children = append(names, name), append(children, c)
	}
	var cases []*callCase
	for _, callers := range e.opts.Callers {
		cc := &callCase{server: server, transport: transport, callers: callers, contenders: names,
			rounds: make([][]roundResult, len(names))}
		for i := range cc.rounds {
			cc.rounds[i] = make([]roundResult, e.opts.Rounds)
		}
		cases = append(cases, cc)
		failed := make([]bool, len(names))
		for r := range e.opts.Rounds {
			if ctx.Err() != nil {
				break
			}
			var line strings.Builder
			for _, i := range order(len(names), r) {
				if failed[i] {
					continue
				}
				req := roundRequest{Calls: e.opts.Calls, Callers: callers}
				if err := children[i].call(ctx, req, &cc.rounds[i][r], e.opts.Timeout); err != nil {
					errs = append(errs, fmt.Errorf("%s over %s, %d callers, round %d: %w", server, transport, callers, r+1, err))
					fmt.Fprintf(&line, " %s failed", names[i])
					cc.rounds[i][r] = roundResult{}
					var said *saidError
					failed[i] = !errors.As(err, &said) // it is gone: ask it nothing more
					continue
				}
				fmt.Fprintf(&line, " %s %s", names[i], num(p50us(cc.rounds[i][r])))
			}
			// Each round's figures, in the order run, so a reader can see
			// a noisy round for what it is.
			fmt.Fprintf(e.log, "calls: %s %s, %d caller(s), round %d/%d, p50 µs:%s\n",
				server, transport, callers, r+1, e.opts.Rounds, line.String())
		}
	}
	// Every contender ends its session and its servers before the next
	// case starts.
	for _, c := range children {
		if err := c.stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := stopServer(); err != nil {
		errs = append(errs, err)
	}
	if spans != nil {
		errs = append(errs, spans.stop(cases, e.opts.Warmup))
	}
	return cases, errors.Join(errs...)
}

// series is one figure of contender name in every round; NaN where it did
// not run.
func (cc *callCase) series(name string, figure func(roundResult) float64) []float64 {
	out := make([]float64, 0, 8)
	for i, n := range cc.contenders {
		if n != name {
			continue
		}
		for _, r := range cc.rounds[i] {
			if r.Calls == 0 {
				out = append(out, math.NaN())
				continue
			}
			out = append(out, figure(r))
		}
		return out
	}
	return nil
}

// Figures of a round.
var (
	p50us  = func(r roundResult) float64 { return float64(r.P50Ns) / 1e3 }
	perSec = func(r roundResult) float64 { return float64(r.Calls) / (float64(r.WallNs) / 1e9) }
	cpuUs  = func(r roundResult) float64 { return nanIf(r.CPUNs <= 0, float64(r.CPUNs)/1e3/float64(r.Calls)) }
	allocs = func(r roundResult) float64 { return nanIf(r.Allocs < 0, float64(r.Allocs)/float64(r.Calls)) }
	kbytes = func(r roundResult) float64 { return nanIf(r.Bytes < 0, float64(r.Bytes)/1e3/float64(r.Calls)) }
	p99us  = func(r roundResult) float64 { return float64(r.P99Ns) / 1e3 }
)

func nanIf(cond bool, v float64) float64 {
	if cond {
		return math.NaN()
	}
	return v
}
