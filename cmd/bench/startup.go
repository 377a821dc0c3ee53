package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// startupCase is one count of servers, with each contender's runs.
type startupCase struct {
	n          int
	contenders []string
	runs       [][]startupResult // [contender][round]; Connected == 0: did not run
}

// startupContenders are compared cold; only the host has a cache to warm.
var startupContenders = []string{"host", "bare", "ts"}

// runStartup starts n demo servers at once in a fresh client process per
// run, the contenders taking turns round by round. With cache set, only
// the host runs, with that tool cache.
func (e *env) runStartup(ctx context.Context, n int, cache string) (*startupCase, error) {
	names := startupContenders
	if cache != "" {
		names = []string{"host"}
	}
	sc := &startupCase{n: n, contenders: names, runs: make([][]startupResult, len(names))}
	for i := range sc.runs {
		sc.runs[i] = make([]startupResult, e.opts.StartupRounds)
	}
	t, err := e.stdioTarget("demo")
	if err != nil {
		return nil, err
	}
	if cache != "" {
		// Fill the cache: a host connects them all once and stores their tools.
		if _, err := e.startupRun(ctx, "host", t, n, cache); err != nil {
			return sc, fmt.Errorf("fill the cache for %d servers: %w", n, err)
		}
	}
	label := "cold"
	if cache != "" {
		label = "warm cache"
	}
	var errs []error
	failed := make([]bool, len(names))
	for r := range e.opts.StartupRounds {
		if ctx.Err() != nil {
			break
		}
		var line strings.Builder
		for _, i := range order(len(names), r) {
			if failed[i] {
				continue
			}
			res, err := e.startupRun(ctx, names[i], t, n, cache)
			if err != nil {
				failed[i] = true
				if !errors.Is(err, errNoPeers) {
					errs = append(errs, fmt.Errorf("start-up of %d servers: %w", n, err))
				}
				continue
			}
			sc.runs[i][r] = res
			fmt.Fprintf(&line, " %s %s", names[i], num(res.StartMs))
			if res.CloseMs > 0 {
				fmt.Fprintf(&line, " (close %s)", num(res.CloseMs))
			}
		}
		fmt.Fprintf(e.log, "start-up, %s, %d servers, round %d/%d, ms:%s\n", label, n, r+1, e.opts.StartupRounds, line.String())
	}
	return sc, errors.Join(errs...)
}

// startupRun is one run in a child process of its own, so its memory is
// its own; stop waits until the child and every server it started are gone.
func (e *env) startupRun(ctx context.Context, name string, t *target, n int, cache string) (startupResult, error) {
	spec, err := json.Marshal(t)
	if err != nil {
		return startupResult{}, err
	}
	var argv, env []string
	if name == "ts" {
		if e.tsClient == "" {
			return startupResult{}, errNoPeers
		}
		argv = []string{e.node, e.tsClient, "startup", string(spec), strconv.Itoa(n)}
	} else {
		args := []string{"-contender", name, "-target", string(spec), "-n", strconv.Itoa(n)}
		if cache != "" {
			args = append(args, "-cache", cache)
		}
		argv, env = e.roleArgv("startup", args...)
	}
	c, err := startChild(name, argv, env)
	if err != nil {
		return startupResult{}, err
	}
	var res startupResult
	err = c.call(ctx, nil, &res, e.opts.Timeout)
	if serr := c.stop(); err == nil {
		err = serr
	}
	if err == nil && res.Connected != n {
		err = fmt.Errorf("%s: %d of %d servers connected", name, res.Connected, n)
	}
	return res, err
}

// series is one figure of contender name in every round; NaN where it did
// not run.
func (sc *startupCase) series(name string, figure func(startupResult) float64) []float64 {
	for i, n := range sc.contenders {
		if n != name {
			continue
		}
		out := make([]float64, len(sc.runs[i]))
		for r, res := range sc.runs[i] {
			out[r] = math.NaN()
			if res.Connected > 0 {
				out[r] = figure(res)
			}
		}
		return out
	}
	return nil
}

// tempCache is a fresh tool cache folder for the warm runs.
func tempCache() (string, func(), error) {
	dir, err := os.MkdirTemp("", "switchboard-bench-cache-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
