// Package demo is the MCP server bundled in the switchboard binary: what a fresh user
// connects to when there is no config, and the tests' server that misbehaves on request.
package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultName is the server's implementation name when Options.Name is empty.
const DefaultName = "demo"

// EnvServerMode is the environment variable that, set to "1", tells a test
// binary's TestMain to run Main instead of the tests. It is inherited by the
// grandchild, which is how a re-executed test binary finds its way back here.
const EnvServerMode = "SWITCHBOARD_DEMO_SERVER"

// FailStartMessage is what --fail-start writes to stderr before exiting 1.
const FailStartMessage = "error: demo server configured to fail at start"

// Exit codes of Run.
const (
	ExitOK        = 0
	ExitFailStart = 1 // --fail-start, or the session ended with an error
	ExitUsage     = 2 // bad flags
	ExitAfter     = 3 // --exit-after fired
)

// Options configures the demo server. The zero value is the well-behaved
// server named "demo". Each field mirrors the flag named in its comment.
type Options struct {
	// Name is the implementation name in the initialize response (--name).
	// Empty means DefaultName.
	Name string
	// InitDelay is slept before serving, so a client's initialize waits
	// (--init-delay). Zero means serve at once.
	InitDelay time.Duration
	// SlowWhen limits InitDelay to runs where this file exists
	// (--slow-when), so a test can have one server config connect fast
	// once (to fill a cache) and slowly the next time.
	SlowWhen string
	// FailStart makes Run write FailStartMessage to stderr and return 1 at
	// once (--fail-start).
	FailStart bool
	// DumpEnv makes Run write its environment to stderr and exit 1 at
	// once, as a server that reports its settings when it cannot start
	// does (--dump-env): each variable on an info line, then all of them
	// on one error line. It is the tests' way to see that a host masks
	// the secrets a server prints.
	DumpEnv bool
	// Hang makes Run read stdin without ever answering, and keep running after
	// stdin closes until a signal ends it (--hang).
	Hang bool
	// Garbage writes non-JSON lines to stdout before serving and one before
	// every protocol line (--garbage).
	Garbage bool
	// IgnoreSigterm ignores SIGTERM and keeps the process running after the
	// session ends, so only SIGKILL stops it (--ignore-sigterm).
	IgnoreSigterm bool
	// Grandchild spawns a child that sleeps forever, sharing stderr but not
	// stdin or stdout, and reports "grandchild pid N" on stderr (--grandchild).
	Grandchild bool
	// GrandchildLeaves makes the grandchild leave the server's process
	// group as it starts, by "setsid" or "setpgid", as a daemonizing
	// helper does; it implies Grandchild (--grandchild-leaves, Unix).
	// Empty keeps it in the group.
	GrandchildLeaves string
	// SleepForever makes Run block until a signal ends it, serving nothing
	// (--sleep-forever); this is what the grandchild runs.
	SleepForever bool
	// StderrLines writes an info, a warning and an error line to stderr at
	// start (--stderr-lines).
	StderrLines bool
	// WeirdNames adds the tools in WeirdToolNames (--weird-names).
	WeirdNames bool
	// OddSchemas adds a tool, odd_schemas, whose schemas are valid JSON
	// Schema that strict clients refuse: boolean property schemas, a
	// required entry that is no name, an output schema that is no object
	// (--odd-schemas).
	OddSchemas bool
	// ToolsCount adds that many echo tools named extra_0, extra_1, …
	// (--tools-count). Zero adds none.
	ToolsCount int
	// Roots adds a tool, roots, that asks the client for its roots
	// (roots/list) and answers with one "URI name" line each (--roots).
	Roots bool
	// Sampling adds a tool, sample, that asks the client to sample a
	// reply to its text (sampling/createMessage) and answers with it
	// (--sampling).
	Sampling bool
	// SamplingTools adds a tool, sample_tools, that asks the client to
	// sample a reply to its text with a tool the model may use,
	// get_weather (sampling/createMessage with tools), and answers with
	// what the model chose (--sampling-tools).
	SamplingTools bool
	// Elicitation adds a tool, ask, that asks the client for a name
	// (elicitation/create) and greets it (--elicitation).
	Elicitation bool
	// TestTools adds tools that drive the host's notification handling:
	// add_tool (a new tool, announced with tools/list_changed), log (a log
	// notification) and progress (progress notifications) (--test-tools).
	TestTools bool
	// DescribeFrom, when set, is a file holding echo's description
	// (RemoveEcho: no echo), read at start and again by a tool,
	// redescribe: a server that changes a tool behind its client's back
	// (--describe-from, DESIGN.md F66).
	DescribeFrom string
	// Instructions, when set, replace the demo's own in the initialize
	// response (--instructions): a server's text a host passes to a model.
	Instructions string
	// Escapes puts EscapePayload in everything a host may show a person:
	// EscapeStderrLine on stderr at start (before --fail-start's message,
	// so a failed server's error carries it too), and a tool, a tool whose
	// calls fail with a protocol error, a resource and a prompt that carry
	// it in their descriptions and results (--escapes).
	Escapes bool
	// ReplyTools adds tools whose replies are as large or as deep as the
	// caller asks: big_reply (a text result of n bytes), big_log (a log
	// notification of n bytes before a small result) and deep_reply
	// (structured content n arrays deep, written by the demo itself since
	// go-sdk cannot encode it) (--reply-tools).
	ReplyTools bool
	// LogFlood writes that many notifications/message lines to stdout
	// before serving, so a client reads them all before the initialize
	// response (--log-flood). Zero writes none.
	LogFlood int
	// FreezeAfter makes the server stop reading its input this long after
	// Run starts, while staying alive: it no longer answers anything, pings
	// included (--freeze-after). Zero means never.
	FreezeAfter time.Duration
	// ExitAfter makes the process exit with code 3 this long after Run
	// starts (--exit-after). Zero means never.
	ExitAfter time.Duration
	// SlowLists holds every answer to resources/list,
	// resources/templates/list and prompts/list back this long
	// (--slow-lists), while tools/list and calls are answered at once: a
	// server whose catalog is slow to list. Zero means no wait.
	SlowLists time.Duration
	// HoldLists holds the same lists back until this file exists
	// (--hold-lists), so a test can let them go when it wants. Empty means
	// no file to wait for.
	HoldLists string
	// Legacy makes the server one of the 2025 era, which predates
	// server/discover: it refuses that request with -32601 (method not
	// found) and serves everything else, initialize included (--legacy).
	// False answers server/discover (the 2026-07-28 era) as go-sdk does.
	Legacy bool
	// IgnoreDiscover makes the server read every server/discover and never
	// answer it, while it serves everything else: a 2025-era server a
	// probing client must time out on (--ignore-discover). Run applies it,
	// below go-sdk; NewServer ignores it.
	IgnoreDiscover bool
	// Stderr receives DiscoverLine for every server/discover the server
	// reads, InitializeLine for every initialize and RootsChangedLine for
	// every notifications/roots/list_changed, in every mode. Nil
	// discards them; Run sets os.Stderr.
	Stderr io.Writer

	// ReexecArgs are the arguments that must precede demo flags for
	// os.Executable() to enter demo mode again, such as ["demo-server"]; the
	// grandchild is started with them. Main fills it in from os.Args; nil
	// means none (a test binary that is steered by EnvServerMode instead).
	ReexecArgs []string
	// Logger receives the SDK's log of server activity. Nil discards it.
	Logger *slog.Logger
}

// Main parses args (without the program name) as demo-server flags and runs
// the server over stdin and stdout until the session ends. It returns the
// process exit code. Everything but the protocol goes to stderr.
//
// When args is a suffix of os.Args, whatever precedes it (after the program
// name) becomes Options.ReexecArgs, so `switchboard demo-server --grandchild`
// re-executes itself as `switchboard demo-server --sleep-forever`.
func Main(args []string) int {
	opts, err := parseFlags(args, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		return ExitUsage
	}
	if n := len(os.Args) - len(args); n >= 1 && slices.Equal(os.Args[n:], args) {
		opts.ReexecArgs = slices.Clone(os.Args[1:n])
	}
	opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return Run(opts)
}

func parseFlags(args []string, stderr io.Writer) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("demo-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Name, "name", DefaultName, "server implementation `name` reported at initialize")
	fs.DurationVar(&o.InitDelay, "init-delay", 0, "wait this `duration` before serving (a slow server)")
	fs.StringVar(&o.SlowWhen, "slow-when", "", "apply --init-delay only while this `file` exists")
	fs.BoolVar(&o.FailStart, "fail-start", false, "print an error to stderr and exit 1 at once")
	fs.BoolVar(&o.DumpEnv, "dump-env", false, "print the environment to stderr (a line per variable, then one error line with all) and exit 1")
	fs.BoolVar(&o.Hang, "hang", false, "read stdin but never answer, and keep running after it closes")
	fs.BoolVar(&o.Garbage, "garbage", false, "write non-JSON lines to stdout, before serving and before every message")
	fs.BoolVar(&o.IgnoreSigterm, "ignore-sigterm", false, "ignore SIGTERM and keep running after the session ends (only SIGKILL stops it)")
	fs.BoolVar(&o.Grandchild, "grandchild", false, "spawn a grandchild that sleeps forever and print \"grandchild pid N\" to stderr")
	fs.StringVar(&o.GrandchildLeaves, "grandchild-leaves", "", "spawn the grandchild in a process group of its own, by `setsid or setpgid` (implies --grandchild)")
	fs.BoolVar(&o.SleepForever, "sleep-forever", false, "serve nothing and block until killed (what the grandchild runs)")
	fs.BoolVar(&o.StderrLines, "stderr-lines", false, "write an info, a warning and an error line to stderr at start")
	fs.BoolVar(&o.WeirdNames, "weird-names", false, "add tools with unusual names (dots, spaces, slashes, 80 characters)")
	fs.BoolVar(&o.OddSchemas, "odd-schemas", false, "add a tool, odd_schemas, with schemas strict clients refuse (boolean properties, an array output schema)")
	fs.IntVar(&o.ToolsCount, "tools-count", 0, "add `n` extra echo tools named extra_0 … extra_{n-1}")
	fs.DurationVar(&o.ExitAfter, "exit-after", 0, "exit with code 3 after this `duration` (a crash)")
	fs.DurationVar(&o.FreezeAfter, "freeze-after", 0, "stop answering anything, pings included, after this `duration`")
	fs.BoolVar(&o.TestTools, "test-tools", false, "add tools that send notifications: add_tool, log, progress")
	fs.StringVar(&o.DescribeFrom, "describe-from", "", "take echo's description from this `file` (\"-\": no echo), read again by a tool, redescribe")
	fs.StringVar(&o.Instructions, "instructions", "", "send these `instructions` at initialize instead of the demo's own")
	fs.BoolVar(&o.Roots, "roots", false, "add a tool, roots, that lists the roots the client offers")
	fs.BoolVar(&o.Sampling, "sampling", false, "add a tool, sample, that asks the client to sample a reply to its text")
	fs.BoolVar(&o.SamplingTools, "sampling-tools", false, "add a tool, sample_tools, that asks the client to sample with a tool the model may use, get_weather")
	fs.BoolVar(&o.Elicitation, "elicitation", false, "add a tool, ask, that asks the client for a name and greets it")
	fs.BoolVar(&o.ReplyTools, "reply-tools", false, "add tools with replies as large or deep as asked: big_reply, big_log, deep_reply")
	fs.IntVar(&o.LogFlood, "log-flood", 0, "write `n` log notifications to stdout before serving")
	fs.DurationVar(&o.SlowLists, "slow-lists", 0, "answer resources/list, resources/templates/list and prompts/list only after this `duration`")
	fs.StringVar(&o.HoldLists, "hold-lists", "", "answer those lists only once this `file` exists")
	fs.BoolVar(&o.Legacy, "legacy", false, "be a 2025-era server: refuse server/discover with -32601 (method not found), serve the rest")
	fs.BoolVar(&o.IgnoreDiscover, "ignore-discover", false, "never answer server/discover (read and dropped), serve the rest")
	fs.BoolVar(&o.Escapes, "escapes", false, "put terminal escape sequences in stderr, tool and resource descriptions, results and errors")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: switchboard demo-server [flags]

Runs switchboard's bundled demo MCP server over stdin and stdout. Without flags
it is a well-behaved server with a few small tools; the flags make it misbehave
on purpose, for testing hosts.

Examples:
  $ switchboard demo-server
  $ switchboard demo-server --name slow --init-delay 5s
  $ switchboard demo-server --garbage --stderr-lines
  $ switchboard demo-server --legacy

Every server/discover it reads, in every mode, puts the line
"demo: got server/discover" on stderr, and every initialize
"demo: got initialize".

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "error: unexpected arguments: %q\n", fs.Args())
		return Options{}, errors.New("unexpected arguments")
	}
	switch o.GrandchildLeaves {
	case "":
	case "setsid", "setpgid":
		o.Grandchild = true
	default:
		fmt.Fprintf(stderr, "error: --grandchild-leaves must be setsid or setpgid (got %q)\n", o.GrandchildLeaves)
		return Options{}, errors.New("bad --grandchild-leaves")
	}
	if o.ToolsCount < 0 {
		fmt.Fprintf(stderr, "error: --tools-count must not be negative (got %d)\n", o.ToolsCount)
		return Options{}, errors.New("negative --tools-count")
	}
	if o.LogFlood < 0 {
		fmt.Fprintf(stderr, "error: --log-flood must not be negative (got %d)\n", o.LogFlood)
		return Options{}, errors.New("negative --log-flood")
	}
	return o, nil
}

// Run runs the demo server configured by opts over os.Stdin and os.Stdout and
// returns the process exit code. Unlike NewServer it applies the
// process-level behaviour: it may ignore signals, spawn a process, block
// forever or exit the process.
func Run(opts Options) int {
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.Escapes {
		fmt.Fprintln(os.Stderr, EscapeStderrLine)
	}
	if opts.FailStart {
		fmt.Fprintln(os.Stderr, FailStartMessage)
		return ExitFailStart
	}
	if opts.DumpEnv {
		dumpEnv(os.Stderr)
		return ExitFailStart
	}
	if opts.IgnoreSigterm {
		signal.Ignore(syscall.SIGTERM)
	}
	if opts.SleepForever {
		blockForever()
	}
	if opts.StderrLines {
		fmt.Fprintln(os.Stderr, "info: demo starting")
		fmt.Fprintln(os.Stderr, "warning: something mildly odd")
		fmt.Fprintln(os.Stderr, "error: something went wrong (demo)")
	}
	if opts.ExitAfter > 0 {
		d := opts.ExitAfter
		time.AfterFunc(d, func() {
			fmt.Fprintf(os.Stderr, "error: demo server exiting with code %d after %v (--exit-after)\n", ExitAfter, d)
			os.Exit(ExitAfter)
		})
	}
	if opts.Grandchild {
		if err := startGrandchild(opts, os.Stderr); err != nil {
			fmt.Fprintf(os.Stderr, "error: %v\n", err)
			return ExitFailStart
		}
	}
	if opts.InitDelay > 0 && (opts.SlowWhen == "" || exists(opts.SlowWhen)) {
		time.Sleep(opts.InitDelay)
	}
	if opts.Hang {
		// Drain stdin so the client's writes never block, and answer nothing.
		_, _ = io.Copy(io.Discard, os.Stdin)
		fmt.Fprintln(os.Stderr, "info: stdin closed; --hang: waiting to be killed")
		blockForever()
	}

	var stdout io.WriteCloser = os.Stdout
	if opts.Garbage {
		if _, err := io.WriteString(os.Stdout, garbagePreamble); err != nil {
			fmt.Fprintf(os.Stderr, "error: writing garbage: %v\n", err)
			return ExitFailStart
		}
		stdout = &garbageWriter{w: os.Stdout}
	}
	if opts.LogFlood > 0 {
		if err := floodLogs(stdout, opts.LogFlood); err != nil {
			fmt.Fprintf(os.Stderr, "error: writing the log flood: %v\n", err)
			return ExitFailStart
		}
	}
	var stdin io.ReadCloser = os.Stdin
	if opts.FreezeAfter > 0 {
		stdin = &freezingReader{r: os.Stdin, at: time.Now().Add(opts.FreezeAfter)}
	}
	if opts.ReplyTools {
		lw := &lockedWriter{w: stdout}
		stdin, stdout = newRawReplies(stdin, lw), lw
	}
	if opts.IgnoreDiscover {
		stdin = dropDiscover(stdin, &probeLog{w: opts.Stderr})
	}
	t := &mcp.IOTransport{Reader: stdin, Writer: stdout}
	err := NewServer(opts).Run(context.Background(), t)
	code := ExitOK
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(os.Stderr, "error: demo server: %v\n", err)
		code = ExitFailStart
	}
	if opts.IgnoreSigterm {
		fmt.Fprintln(os.Stderr, "info: session ended; --ignore-sigterm: waiting for SIGKILL")
		blockForever()
	}
	return code
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
