package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// oneShotCase is `switchboard call` of one server's tool, a fresh process
// per run, with a warm tool cache: wall milliseconds [contender][round],
// NaN where a contender did not run.
type oneShotCase struct {
	servers    []string // the servers configured for all and before
	contenders []string
	ms         [][]float64
}

// oneShotTool is what every run calls: the first demo server's echo.
const oneShotTool = "mcp__a__echo"

// runOneShot measures a one-shot call (issue 24: without a daemon, call
// starts only the tool's server) with several stdio servers configured:
// after is this tree's command line (the harness plays it), alone the same
// with only the tool's server configured (the floor), and before, with
// -oneshot-baseline, another build of switchboard on the same config (the
// one before the change). They take turns round by round, each run a
// fresh process in a home of its own that shares one warm tool cache.
func (e *env) runOneShot(ctx context.Context) (*oneShotCase, error) {
	dir, err := os.MkdirTemp("", "bench-oneshot-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	servers := map[string]any{}
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		// --name gives each its own identity: same-command servers would
		// be one server under two names (a duplicate, never started).
		servers[name] = map[string]any{"command": e.self, "args": []string{"--name", name},
			"env": map[string]string{EnvRole: "demo-server"}}
	}
	if e.everything != "" {
		servers["everything"] = map[string]any{"command": e.node, "args": []string{e.everything, "stdio"}}
	}
	all := filepath.Join(dir, "all.json")
	alone := filepath.Join(dir, "alone.json")
	if err := writeServers(all, servers); err != nil {
		return nil, err
	}
	if err := writeServers(alone, map[string]any{"a": servers["a"]}); err != nil {
		return nil, err
	}
	sc := &oneShotCase{contenders: []string{"after", "alone"}}
	for name := range servers {
		sc.servers = append(sc.servers, name)
	}
	self := []string{e.self}
	runs := map[string]func() (float64, error){
		"after": func() (float64, error) { return e.oneShotRun(ctx, dir, self, all) },
		"alone": func() (float64, error) { return e.oneShotRun(ctx, dir, self, alone) },
	}
	if b := e.opts.OneShotBaseline; b != "" {
		sc.contenders = append(sc.contenders, "before")
		runs["before"] = func() (float64, error) { return e.oneShotRun(ctx, dir, []string{b}, all) }
	}
	// Warm the cache: every server connects once and stores its tools.
	if _, err := e.oneShotCommand(ctx, dir, self, all, "tools", "--wait"); err != nil {
		return nil, fmt.Errorf("one-shot call: fill the cache: %w", err)
	}
	sc.ms = make([][]float64, len(sc.contenders))
	var errs []error
	for r := range e.opts.OneShotRounds {
		if ctx.Err() != nil {
			break
		}
		var line strings.Builder
		for _, i := range order(len(sc.contenders), r) {
			name := sc.contenders[i]
			ms, err := runs[name]()
			if err != nil {
				errs = append(errs, fmt.Errorf("one-shot call, %s: %w", name, err))
			}
			sc.ms[i] = append(sc.ms[i], ms)
			fmt.Fprintf(&line, " %s %s", name, num(ms))
		}
		fmt.Fprintf(e.log, "one-shot call, round %d/%d, ms:%s\n", r+1, e.opts.OneShotRounds, line.String())
	}
	return sc, errors.Join(errs...)
}

func writeServers(path string, servers map[string]any) error {
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// oneShotRun is one timed call; NaN with the error when it did not answer
// hello.
func (e *env) oneShotRun(ctx context.Context, dir string, argv []string, config string) (float64, error) {
	began := time.Now()
	out, err := e.oneShotCommand(ctx, dir, argv, config, "call", oneShotTool, "text=hello")
	ms := float64(time.Since(began).Microseconds()) / 1000
	if err == nil && strings.TrimSpace(out) != "hello" {
		err = fmt.Errorf("call answered %q, want hello", out)
	}
	if err != nil {
		return math.NaN(), err
	}
	return ms, nil
}

// oneShotCommand runs switchboard (argv; the harness itself plays it when
// argv is this binary) with only config, in a home under dir with the
// shared cache, and returns its stdout. Whatever it started has ended when
// it returns: the command line reaps its servers before it exits.
func (e *env) oneShotCommand(ctx context.Context, dir string, argv []string, config string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], append(append(argv[1:len(argv):len(argv)], "--no-discover", "--config", config), args...)...)
	home := filepath.Join(dir, "home")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "XDG_STATE_HOME="+filepath.Join(home, ".state"))
	if argv[0] == e.self {
		cmd.Env = append(cmd.Env, EnvRole+"=switchboard")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

func printOneShot(w io.Writer, o *Options, sc *oneShotCase) {
	fmt.Fprintf(w, "One-shot `switchboard call %s` with a warm tool cache, %d runs each, taking turns: a fresh\n", oneShotTool, o.OneShotRounds)
	fmt.Fprintf(w, "process per run, wall time until it exits (its servers gone). Configured: %d stdio servers (%s);\n", len(sc.servers), strings.Join(slices.Sorted(slices.Values(sc.servers)), ", "))
	fmt.Fprintln(w, "after: this build, which starts only the tool's server; alone: this build with only that server")
	fmt.Fprintln(w, "configured; before: -oneshot-baseline's build on the same config. Ratios are taken round by round.")
	fmt.Fprintln(w)
	after := sc.series("after")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "contender\twall ms\trange\tafter/contender\t")
	for i, name := range sc.contenders {
		ms := summarize(sc.ms[i])
		ratio := ""
		if name != "after" {
			ratio = ratioText(summarize(ratios(after, sc.ms[i])))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", name, num(ms.Median), rangeOf(ms), ratio)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func (sc *oneShotCase) series(name string) []float64 {
	for i, c := range sc.contenders {
		if c == name {
			return sc.ms[i]
		}
	}
	return nil
}
