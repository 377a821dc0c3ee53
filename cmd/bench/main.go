// Command bench measures switchboard's tool calls and start-up side by side
// with a bare go-sdk client, the TypeScript SDK client and a raw client
// that sends pre-encoded lines (and its calls through the gateway of
// `switchboard serve` beside the host's own), against a floor server, the demo server and
// server-everything, over stdio and streamable HTTP. Contenders take turns
// round by round (A B C, B C A, …); a ratio is taken within a round, and
// its median and range over the rounds are printed.
//
//	$ make bench
//	$ go run ./cmd/bench -rounds 20 -calls 2000
//	$ go run ./cmd/bench -servers floor -transports stdio -startup '' -warm ''
//	$ go run ./cmd/bench -eras
//	$ go run ./cmd/bench -daemon
//	$ go run ./cmd/bench -servers '' -startup '' -warm '' -era-rounds 0 -oneshot-rounds 10 -oneshot-baseline /tmp/switchboard-main
//	$ go run ./cmd/bench -servers demo -contenders host,gateway -startup '' -warm '' -era-rounds 0
//	$ go run ./cmd/bench -servers floor -transports stdio -contenders ops-off,ops-on -startup '' -warm '' -era-rounds 0
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if code, ok := runRole(); ok {
		os.Exit(code)
	}
	opts, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, opts, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		stop()
		os.Exit(1)
	}
}

// runRole runs the role $SWITCHBOARD_BENCH_ROLE names, if any.
func runRole() (code int, ok bool) {
	name := os.Getenv(EnvRole)
	if name == "" {
		return 0, false
	}
	role, ok := roles[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "bench: no role %q\n", name)
		return 2, true
	}
	return role(os.Args[1:]), true
}

// Options are the harness's settings; the defaults run in about four
// minutes on a 2-core machine.
type Options struct {
	Rounds     int      // rounds of calls per case
	Calls      int      // calls per contender per round
	Warmup     int      // calls each contender makes once connected, unmeasured
	Callers    []int    // concurrent callers, a case each
	Servers    []string // floor, demo, everything
	Transports []string // stdio, http
	Contenders []string // host, gateway, bare, ts, raw; serve, mcphub; ops-off, ops-on
	// Startup are the counts of servers started at once, cold; WarmStartup
	// the counts for the host with a warm tool cache. Empty skips them.
	Startup, WarmStartup []int
	StartupRounds        int
	// EraRounds are the rounds of connect time by protocol era (one
	// demo server per run, each way it can take server/discover); zero
	// skips them.
	EraRounds int
	// DaemonRounds are the rounds of the daemon's figures (-daemon: that
	// alone); zero skips them.
	DaemonRounds int
	// OneShotRounds are the rounds of a one-shot `switchboard call` with
	// several servers configured (runOneShot); zero skips it.
	OneShotRounds int
	// OneShotBaseline is another build of switchboard to compare the
	// one-shot call with, side by side; empty leaves it out.
	OneShotBaseline string
	// Timeout bounds every answer the harness waits for from a child: a
	// round, a connect, a start-up.
	Timeout time.Duration
}

var (
	allServers    = []string{"floor", "demo", "everything"}
	allTransports = []string{"stdio", "http"}
	allContenders = []string{"host", "gateway", "bare", "ts", "raw"}
	// middleContenders call through a gateway process: asked for by name
	// (make bench-gateways), not run by default.
	middleContenders = []string{"serve", "mcphub"}
)

func parseFlags(args []string, stderr io.Writer) (*Options, error) {
	o := &Options{}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.Rounds, "rounds", 15, "rounds of calls per case; contenders take turns in each")
	fs.IntVar(&o.Calls, "calls", 300, "calls per contender per round")
	fs.IntVar(&o.Warmup, "warmup", 300, "unmeasured calls each contender makes once connected")
	callers := fs.String("callers", "1,16", "concurrent callers, comma-separated: a case each")
	servers := fs.String("servers", strings.Join(allServers, ","), "servers to call: floor, demo, everything")
	transports := fs.String("transports", strings.Join(allTransports, ","), "transports: stdio, http")
	contenders := fs.String("contenders", strings.Join(allContenders, ","), "contenders: host, gateway, bare, ts, raw, serve, mcphub, ops-off, ops-on (host is always one)")
	startup := fs.String("startup", "1,10,50,100", "server counts for cold start-up; empty skips it")
	warm := fs.String("warm", "1,50,100", "server counts for the host's start-up with a warm tool cache; empty skips it")
	fs.IntVar(&o.StartupRounds, "startup-rounds", 3, "rounds of each start-up count")
	fs.IntVar(&o.EraRounds, "era-rounds", 5, "rounds of connect time by protocol era; 0 skips it")
	fs.IntVar(&o.OneShotRounds, "oneshot-rounds", 0, "rounds of a one-shot `switchboard call` with six servers configured; 0 skips it")
	fs.StringVar(&o.OneShotBaseline, "oneshot-baseline", "", "another switchboard `binary` (say, main's) to run the one-shot call beside this build")
	erasOnly := fs.Bool("eras", false, "measure only connect time by protocol era: no calls, no start-up")
	fs.IntVar(&o.DaemonRounds, "daemon-rounds", 0, "rounds of the daemon's figures (call, tools, a bridge's first list, memory); 0 skips them")
	daemonOnly := fs.Bool("daemon", false, "measure only the daemon's figures (-daemon-rounds, default 10)")
	fs.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "longest wait for any child's answer")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: bench [flags]

Measures tool calls and start-up of the switchboard host beside a bare
go-sdk client, the TypeScript SDK client and a raw client, interleaved
round by round, and prints tables of medians and per-round ratios; then
the host's connect time by protocol era (-eras: that alone).
Without the npm peers (make peers) the TypeScript client and
server-everything are left out.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bench: unexpected arguments %q\n", fs.Args())
		return nil, fmt.Errorf("unexpected arguments")
	}
	var err error
	bad := func(name string, e error) error {
		fmt.Fprintf(stderr, "bench: -%s: %v\n", name, e)
		return e
	}
	if o.Callers, err = ints(*callers); err != nil || len(o.Callers) == 0 {
		return nil, bad("callers", orEmpty(err))
	}
	if o.Startup, err = ints(*startup); err != nil {
		return nil, bad("startup", err)
	}
	if o.WarmStartup, err = ints(*warm); err != nil {
		return nil, bad("warm", err)
	}
	if o.Servers, err = names(*servers, allServers); err != nil {
		return nil, bad("servers", err)
	}
	if o.Transports, err = names(*transports, allTransports); err != nil {
		return nil, bad("transports", err)
	}
	if o.Contenders, err = names(*contenders, slices.Concat(allContenders, middleContenders, opsContenders, gcContenders)); err != nil {
		return nil, bad("contenders", err)
	}
	if !slices.Contains(o.Contenders, "host") {
		o.Contenders = append([]string{"host"}, o.Contenders...)
	}
	if o.Rounds < 1 || o.Calls < 1 || o.StartupRounds < 1 || o.Warmup < 0 {
		return nil, bad("rounds, -calls, -startup-rounds", fmt.Errorf("must be positive"))
	}
	if o.OneShotRounds < 0 {
		return nil, bad("oneshot-rounds", fmt.Errorf("must not be negative"))
	}
	if o.EraRounds < 0 || *erasOnly && o.EraRounds == 0 {
		return nil, bad("era-rounds", fmt.Errorf("must be positive with -eras, and not negative"))
	}
	if *erasOnly {
		o.Servers, o.Startup, o.WarmStartup, o.OneShotRounds = nil, nil, nil, 0
	}
	if o.DaemonRounds < 0 {
		return nil, bad("daemon-rounds", fmt.Errorf("must not be negative"))
	}
	if *daemonOnly {
		o.Servers, o.Startup, o.WarmStartup, o.EraRounds, o.OneShotRounds = nil, nil, nil, 0, 0
		if o.DaemonRounds == 0 {
			o.DaemonRounds = 10
		}
	}
	return o, nil
}

func orEmpty(err error) error {
	if err == nil {
		return fmt.Errorf("empty")
	}
	return err
}

// ints parses "1,16"; the empty string is no numbers.
func ints(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// names parses "a,b", each one of known, keeping known's order.
func names(s string, known []string) ([]string, error) {
	want := map[string]bool{}
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !slices.Contains(known, f) {
			return nil, fmt.Errorf("%q: want some of %s", f, strings.Join(known, ", "))
		}
		want[f] = true
	}
	var out []string
	for _, k := range known {
		if want[k] {
			out = append(out, k)
		}
	}
	return out, nil
}
