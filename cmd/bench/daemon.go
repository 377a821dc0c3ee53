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
	"strings"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/procgroup"
)

// envSpawnLog names a file every demo server the harness starts appends
// its pid to: how the daemon case counts the servers a command started,
// which a process listing taken after a short command would miss.
const envSpawnLog = "SWITCHBOARD_BENCH_SPAWNLOG"

// spawnLogged is role, noting its start in $SWITCHBOARD_BENCH_SPAWNLOG.
func spawnLogged(role func([]string) int) func([]string) int {
	return func(args []string) int {
		if path := os.Getenv(envSpawnLog); path != "" {
			if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
				fmt.Fprintln(f, os.Getpid())
				f.Close()
			}
		}
		return role(args)
	}
}

// bridgeClients is how many clients attach at once for the memory figure:
// the four (Claude Desktop, Cursor, VS Code, a terminal).
const bridgeClients = 4

// daemonCase is the daemon's figures beside the same work without it,
// round by round: wall milliseconds per contender, and memory.
type daemonCase struct {
	rounds int
	// ms[what][contender][round]; NaN where a run failed.
	ms map[string]map[string][]float64
	// spawned is how many server processes one call started, by contender.
	spawned map[string][]float64
	// rssKiB and anonKiB are each client's resident memory with
	// bridgeClients attached, all of it and its anonymous part: a bridge
	// alone, or a standalone serve with its servers.
	rssKiB, anonKiB map[string][]float64
	// daemonKiB is the daemon's with its servers, bridgeClients attached.
	daemonKiB []float64
	servers   []string
}

// daemonEnv is a folder of its own with a config of the demo server and,
// with the npm peers, server-everything: what `switchboard` in it reads.
type daemonEnv struct {
	e        *env
	dir, cfg string
	spawnLog string
}

func (e *env) newDaemonEnv() (*daemonEnv, []string, error) {
	dir, err := os.MkdirTemp("", "switchboard-bench-daemon-")
	if err != nil {
		return nil, nil, err
	}
	for _, sub := range []string{"state", "cache", "project", "config", "home", "run"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
	}
	d := &daemonEnv{e: e, dir: dir, cfg: filepath.Join(dir, "config", "mcp.json"), spawnLog: filepath.Join(dir, "spawned")}
	servers := map[string]any{}
	names := []string{"demo"}
	demo, _ := e.stdioTarget("demo")
	entry := demo.serverEntry()
	entry["env"] = map[string]string{EnvRole: "demo-server", envSpawnLog: d.spawnLog}
	servers["demo"] = entry
	if t, err := e.stdioTarget("everything"); err == nil {
		servers["everything"] = t.serverEntry()
		names = append(names, "everything")
	}
	if err := writeJSON(d.cfg, map[string]any{"mcpServers": servers}); err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return d, names, nil
}

// command is `switchboard ARGS` in the folder, as a person's terminal runs it.
func (d *daemonEnv) command(ctx context.Context, args ...string) *exec.Cmd {
	global := []string{"--config", d.cfg, "--no-discover",
		"--state-dir", filepath.Join(d.dir, "state"), "--cache-dir", filepath.Join(d.dir, "cache"),
		"--project", filepath.Join(d.dir, "project")}
	cmd := exec.CommandContext(ctx, d.e.self, append(global, args...)...)
	cmd.Env = append(os.Environ(),
		EnvRole+"=switchboard",
		"HOME="+filepath.Join(d.dir, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(d.dir, "home", ".config"),
		"XDG_STATE_HOME="+filepath.Join(d.dir, "state"),
		"XDG_CACHE_HOME="+filepath.Join(d.dir, "cache"),
		"XDG_RUNTIME_DIR="+filepath.Join(d.dir, "run"),
		"NO_COLOR=1")
	cmd.WaitDelay = exitWait
	return cmd
}

// wall runs `switchboard ARGS` to its end and times it.
func (d *daemonEnv) wall(ctx context.Context, args ...string) (float64, error) {
	cmd := d.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err := cmd.Run()
	took := ms(time.Since(start))
	if err != nil {
		return math.NaN(), fmt.Errorf("switchboard %s: %w: %s", strings.Join(args, " "), err, lastLine(stderr.String()))
	}
	return took, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// spawned counts the demo servers started so far.
func (d *daemonEnv) spawned() int {
	b, _ := os.ReadFile(d.spawnLog)
	return strings.Count(string(b), "\n")
}

// client is a go-sdk client that launched `switchboard ARGS` as a client
// app does, over stdio.
type benchClient struct {
	cmd  *exec.Cmd
	sess *mcp.ClientSession
}

// launch starts `switchboard serve ARGS` and times its first tools/list
// from the launch.
func (d *daemonEnv) launch(ctx context.Context, args ...string) (*benchClient, float64, error) {
	cmd := d.command(ctx, append([]string{"serve"}, args...)...)
	cmd.Stderr = io.Discard
	procgroup.Set(cmd)
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil)
	start := time.Now()
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, math.NaN(), fmt.Errorf("serve %s: connect: %w", strings.Join(args, " "), err)
	}
	res, err := sess.ListTools(ctx, nil)
	took := ms(time.Since(start))
	c := &benchClient{cmd: cmd, sess: sess}
	if err != nil || len(res.Tools) == 0 {
		c.close()
		return nil, math.NaN(), fmt.Errorf("serve %s: first tools/list: %v (%d tools)", strings.Join(args, " "), err, toolCount(res))
	}
	return c, took, nil
}

func toolCount(res *mcp.ListToolsResult) int {
	if res == nil {
		return 0
	}
	return len(res.Tools)
}

func (c *benchClient) close() {
	c.sess.Close()
	// A serve that outlived its stdin still ends, with what it started.
	_ = procgroup.Kill(c.cmd.Process.Pid)
}

// runDaemon measures the daemon's figures (issue 24): a call and a tool
// listing from the command line with a warm daemon against the same
// command without one; a client's first tools/list through a freshly
// launched bridge against a standalone serve; and the memory each of
// bridgeClients clients costs either way.
func (e *env) runDaemon(ctx context.Context) (*daemonCase, error) {
	d, servers, err := e.newDaemonEnv()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(d.dir)
	rounds := e.opts.DaemonRounds
	dc := &daemonCase{rounds: rounds, servers: servers,
		ms: map[string]map[string][]float64{}, spawned: map[string][]float64{},
		rssKiB: map[string][]float64{}, anonKiB: map[string][]float64{}}
	add := func(m map[string][]float64, key string, v float64) { m[key] = append(m[key], v) }
	for _, what := range []string{"call", "tools", "first-list"} {
		dc.ms[what] = map[string][]float64{}
	}
	// Warm the tool cache once, as a person's second day would find it.
	if _, err := d.wall(ctx, "--no-daemon", "tools", "--wait"); err != nil {
		return dc, err
	}
	var errs []error
	for r := range rounds {
		if ctx.Err() != nil {
			break
		}
		for _, i := range order(2, r) {
			daemon := i == 1
			name := map[bool]string{false: "no daemon", true: "daemon"}[daemon]
			if daemon {
				if _, err := d.wall(ctx, "daemon", "start"); err != nil {
					errs = append(errs, err)
					continue
				}
				// The daemon connects its servers before a figure is taken: warm.
				if _, err := d.wall(ctx, "list", "--wait"); err != nil {
					errs = append(errs, err)
				}
			}
			flags := []string{}
			if !daemon {
				flags = []string{"--no-daemon"}
			}
			before := d.spawned()
			took, err := d.wall(ctx, append(flags, "call", "demo__echo", "text=hello")...)
			errs = append(errs, err)
			add(dc.ms["call"], name, took)
			add(dc.spawned, name, float64(d.spawned()-before))
			took, err = d.wall(ctx, append(flags, "tools", "--json")...)
			errs = append(errs, err)
			add(dc.ms["tools"], name, took)
			serveArgs := []string{"--standalone"}
			if daemon {
				serveArgs = nil
			}
			first, rss, anon, err := d.attachClients(ctx, serveArgs)
			errs = append(errs, err)
			add(dc.ms["first-list"], name, first)
			add(dc.rssKiB, name, rss)
			add(dc.anonKiB, name, anon)
			if daemon {
				dc.daemonKiB = append(dc.daemonKiB, d.daemonKiB())
				_, err := d.wall(ctx, "daemon", "stop")
				errs = append(errs, err)
			}
		}
		fmt.Fprintf(e.log, "daemon, round %d/%d: call ms %s / %s\n", r+1, rounds,
			num(last(dc.ms["call"]["no daemon"])), num(last(dc.ms["call"]["daemon"])))
	}
	return dc, errors.Join(errs...)
}

func last(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return xs[len(xs)-1]
}

// attachClients launches bridgeClients clients one after the other and
// returns the first one's first tools/list time and the median client's
// resident memory, all and anonymous (its process tree's: a standalone
// serve's servers are its own cost, a bridge has none).
func (d *daemonEnv) attachClients(ctx context.Context, serveArgs []string) (firstMs, rssKiB, anonKiB float64, err error) {
	var clients []*benchClient
	defer func() {
		for _, c := range clients {
			c.close()
		}
	}()
	firstMs = math.NaN()
	for i := range bridgeClients {
		c, took, err := d.launch(ctx, serveArgs...)
		if err != nil {
			return firstMs, math.NaN(), math.NaN(), err
		}
		clients = append(clients, c)
		if i == 0 {
			firstMs = took
		}
	}
	var rss, anon []float64
	for _, c := range clients {
		r, a := treeRSS(c.cmd.Process.Pid)
		rss, anon = append(rss, float64(r)), append(anon, float64(a))
	}
	return firstMs, summarize(rss).Median, summarize(anon).Median, nil
}

// daemonKiB is the running daemon's memory with its servers: the pid
// `daemon status --json` names.
func (d *daemonEnv) daemonKiB() float64 {
	out, err := d.command(context.Background(), "daemon", "status", "--json").Output()
	var st struct{ PID int }
	if err != nil || json.Unmarshal(out, &st) != nil || st.PID == 0 {
		return math.NaN()
	}
	rss, _ := treeRSS(st.PID)
	return float64(rss)
}

func printDaemon(w io.Writer, dc *daemonCase) {
	fmt.Fprintf(w, "Daemon: %d rounds, servers %s over stdio, warm tool cache; wall time of each command from its launch to its exit.\n",
		dc.rounds, strings.Join(dc.servers, ", "))
	fmt.Fprintln(w, "no daemon: the command runs its own host (--no-daemon; serve --standalone); daemon: it attaches to a warm daemon.")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "what\tno daemon\trange\tdaemon\trange\tdaemon/no daemon\tgoal\t")
	rows := []struct{ key, label, goal string }{
		{"call", "switchboard call, ms", "≤ 50"},
		{"tools", "switchboard tools --json, ms", "≤ 30"},
		{"first-list", "serve: first tools/list, ms", "≤ 100"},
	}
	for _, row := range rows {
		a, b := summarize(dc.ms[row.key]["no daemon"]), summarize(dc.ms[row.key]["daemon"])
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", row.label, num(a.Median), rangeOf(a), num(b.Median), rangeOf(b),
			ratioText(summarize(ratios(dc.ms[row.key]["daemon"], dc.ms[row.key]["no daemon"]))), row.goal)
	}
	a, b := summarize(dc.spawned["no daemon"]), summarize(dc.spawned["daemon"])
	fmt.Fprintf(tw, "servers started by one call\t%s\t\t%s\t\t\t0\t\n", whole(a.Median), whole(b.Median))
	a, b = summarize(dc.rssKiB["no daemon"]), summarize(dc.rssKiB["daemon"])
	fmt.Fprintf(tw, "MiB resident per client, %d attached\t%s\t%s\t%s\t%s\t\t≤ 10\t\n", bridgeClients,
		num(a.Median/1024), rangeOf(scaled(a, 1024)), num(b.Median/1024), rangeOf(scaled(b, 1024)))
	a, b = summarize(dc.anonKiB["no daemon"]), summarize(dc.anonKiB["daemon"])
	fmt.Fprintf(tw, "  of it anonymous (not shared)\t%s\t%s\t%s\t%s\t\t\t\n",
		num(a.Median/1024), rangeOf(scaled(a, 1024)), num(b.Median/1024), rangeOf(scaled(b, 1024)))
	dk := summarize(dc.daemonKiB)
	fmt.Fprintf(tw, "MiB of the daemon and its servers\t\t\t%s\t%s\t\t\t\n", num(dk.Median/1024), rangeOf(scaled(dk, 1024)))
	tw.Flush()
	fmt.Fprintln(w)
}

func scaled(s spread, by float64) spread {
	return spread{Median: s.Median / by, Min: s.Min / by, Max: s.Max / by, N: s.N}
}
