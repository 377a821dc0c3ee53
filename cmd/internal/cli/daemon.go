package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/daemon"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// defaultIdle is how long a daemon nobody uses stays (DESIGN.md F56):
// long enough to outlast a pause between commands, short enough that a
// daemon does not hold a day's worth of servers for nothing.
const defaultIdle = time.Hour

// daemonLog is the daemon's log file in the state directory, when
// `daemon start` started it.
const daemonLog = "daemon.log"

type daemonOptions struct {
	*Factory
	Socket string
	Idle   time.Duration
	JSON   jsonFlag
	// readyFD is the inherited descriptor on which `daemon run` says it is
	// ready (`daemon start` gives it); 0 says nothing.
	readyFD int
}

func newDaemonCmd(f *Factory) *cobra.Command {
	o := &daemonOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run one switchboard for all your clients and commands (start, stop, status)",
		Long: `A daemon is one long-lived switchboard per user: it runs your servers once,
and clients and commands attach to it on a unix socket instead of each
starting their own copy. The socket is $XDG_RUNTIME_DIR/switchboard/daemon.sock,
or run/daemon.sock in the state directory where there is no runtime
directory; its folder is 0700, the socket 0600, and a connection from
another user is refused.

The daemon reads your configs as 'serve' does, follows their changes as
'watch' does, and stops after an hour with no client attached and no
request (--idle; 0 never). 'daemon stop' lets calls in flight finish,
then closes the servers.`,
		Example: `  $ switchboard daemon start
  $ switchboard daemon status --json | jq .servers
  $ switchboard daemon stop`,
		Args: noSubcommand,
		RunE: func(*cobra.Command, []string) error {
			return usagef("name a subcommand: start, stop, status or run")
		},
	}
	socketFlag := func(c *cobra.Command) {
		c.Flags().StringVar(&o.Socket, "socket", "", "the daemon's socket `path` (default $XDG_RUNTIME_DIR/switchboard/daemon.sock)")
	}
	idleFlag := func(c *cobra.Command) {
		c.Flags().DurationVar(&o.Idle, "idle", defaultIdle, "stop after this long with no client attached and no request; 0: never")
	}
	start := &cobra.Command{
		Use:   "start",
		Short: "Start the daemon in the background, unless one runs",
		Long: `Start the daemon in the background, detached from the terminal, and wait
until it is ready: it prints the socket and the daemon's pid. If a daemon
already runs, it says so and exits 0. The daemon logs to daemon.log in the
state directory.`,
		Example: `  $ switchboard daemon start
  $ switchboard --config ./mcp.json daemon start --idle 0`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runDaemonStart(cmd.Context(), o) },
	}
	socketFlag(start)
	idleFlag(start)
	run := &cobra.Command{
		Use:   "run",
		Short: "Run the daemon in the foreground",
		Long: `Run the daemon in this process until SIGTERM or SIGINT, 'daemon stop', or
--idle passes with no client: what 'daemon start' runs in the
background. It logs to stderr. SIGTERM lets calls in flight finish, then
exits 0.`,
		Example: `  $ switchboard daemon run --idle 0`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			// One daemon serves every client and command, wherever they
			// run: it reads the user's configs, no project's (DESIGN.md
			// F56), unless told which project.
			if fl := cmd.Flags(); !fl.Changed("project") && !fl.Changed("no-project") {
				if err := fl.Set("no-project", "true"); err != nil {
					return err
				}
			}
			return runDaemonRun(cmd.Context(), o)
		},
	}
	socketFlag(run)
	idleFlag(run)
	run.Flags().IntVar(&o.readyFD, "ready-fd", 0, "")
	_ = run.Flags().MarkHidden("ready-fd")
	status := &cobra.Command{
		Use:   "status",
		Short: "Say whether the daemon runs, and how its servers are",
		Long: `Say whether the daemon runs: its pid, socket, uptime, servers by state,
clients attached, idle timeout and config files it could not read. Exit
status 0 when it runs, 1 when it does not (as 'systemctl is-active').`,
		Example: `  $ switchboard daemon status
  $ switchboard daemon status --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runDaemonStatus(cmd.Context(), o) },
	}
	socketFlag(status)
	addJSONFlag(status, &o.JSON, "print the status as JSON")
	stop := &cobra.Command{
		Use:   "stop",
		Short: "Stop the daemon: calls in flight finish, then its servers close",
		Long: `Stop the daemon and wait until it has closed its servers. Calls in
flight finish first (up to 10 s). If no daemon runs, it says so and
exits 0.`,
		Example: `  $ switchboard daemon stop`,
		Args:    usageArgs(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runDaemonStop(cmd.Context(), o) },
	}
	socketFlag(stop)
	cmd.AddCommand(start, run, status, stop)
	return cmd
}

// socketPath is --socket, else the per-user socket.
func (f *Factory) socketPath(flag string) string {
	if flag != "" {
		return flag
	}
	path := daemon.SocketPathIn(f.IO.Getenv("XDG_RUNTIME_DIR"), f.StateDir())
	return filepath.Join(filepath.Dir(path), daemonSocketName(f.daemonArgs()))
}

// dialDaemon is a client of the daemon that runs, or an error that
// errors.Is ErrNoDaemon when none does or --no-daemon says not to use
// one.
func (f *Factory) dialDaemon(ctx context.Context) (*daemon.Client, error) {
	if f.NoDaemon != nil && f.NoDaemon() {
		return nil, fmt.Errorf("%w (--no-daemon)", daemon.ErrNoDaemon)
	}
	return daemon.Dial(ctx, f.socketPath(""))
}

// ensureDaemon is dialDaemon, starting the daemon first when none runs.
func (f *Factory) ensureDaemon(ctx context.Context) (*daemon.Client, error) {
	c, err := f.dialDaemon(ctx)
	if err == nil || !errors.Is(err, daemon.ErrNoDaemon) || (f.NoDaemon != nil && f.NoDaemon()) {
		return c, err
	}
	o := &daemonOptions{Factory: f, Idle: defaultIdle}
	c, _, err = o.startDaemon(ctx)
	return c, err
}

func runDaemonStart(ctx context.Context, o *daemonOptions) error {
	c, started, err := o.startDaemon(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	in, err := c.Info(ctx)
	if err != nil {
		return err
	}
	if !started {
		fmt.Fprintf(o.IO.Out, "a daemon already runs (pid %d) on %s\n", in.PID, in.Socket)
		return nil
	}
	fmt.Fprintf(o.IO.Out, "daemon started (pid %d) on %s\n", in.PID, in.Socket)
	return nil
}

// startDaemon starts `daemon run` detached and waits until it says it is
// ready (a line on an inherited pipe: an event, not a poll); a daemon
// that already runs is dialled instead (started false).
func (o *daemonOptions) startDaemon(ctx context.Context) (c *daemon.Client, started bool, err error) {
	socket := o.socketPath(o.Socket)
	if c, err := daemon.Dial(ctx, socket); err == nil {
		return c, false, nil
	} else if !errors.Is(err, daemon.ErrNoDaemon) {
		return nil, false, err
	}
	stateDir := o.StateDir()
	if stateDir == "" {
		return nil, false, errors.New("daemon: there is no state directory for its log (set $XDG_STATE_HOME or --state-dir)")
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, false, fmt.Errorf("daemon: %w", err)
	}
	logPath := filepath.Join(stateDir, daemonLog)
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("daemon: its log: %w", err)
	}
	defer logFile.Close()
	logStart, _ := logFile.Seek(0, io.SeekEnd)
	exe, err := os.Executable()
	if err != nil {
		return nil, false, fmt.Errorf("daemon: %w", err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return nil, false, fmt.Errorf("daemon: %w", err)
	}
	defer readyR.Close()
	var globals []string
	if o.GlobalArgs != nil {
		globals = absArgs(o.GlobalArgs())
	}
	args := append(globals, "daemon", "run", "--socket", socket, "--idle", o.Idle.String(), "--ready-fd", "3")
	cmd := exec.Command(exe, args...)
	// Not the folder of whoever started it: a project there is not the
	// daemon's, and the folder may go.
	cmd.Dir = "/"
	if home, ok := o.IO.LookupEnv("HOME"); ok && filepath.IsAbs(home) {
		cmd.Dir = home
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.ExtraFiles = []*os.File{readyW}
	detach(cmd)
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return nil, false, fmt.Errorf("daemon: starting %s: %w", exe, err)
	}
	stop := context.AfterFunc(ctx, func() { readyR.Close() })
	line, _ := bufio.NewReader(readyR).ReadString('\n')
	stop()
	if line != "ready\n" {
		cmd.Wait() // it exited, or ctx ended: it will not be ready
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		// Another start may have won the race for the socket.
		if c, err := daemon.Dial(ctx, socket); err == nil {
			return c, false, nil
		}
		return nil, false, fmt.Errorf("daemon did not start: %s (log: %s)", lastLogLine(logPath, logStart), logPath)
	}
	cmd.Process.Release()
	c, err = daemon.Dial(ctx, socket)
	return c, true, err
}

// lastLogLine is the last line written to the log from offset on: what
// the daemon said as it failed.
func lastLogLine(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return "no log"
	}
	defer f.Close()
	f.Seek(offset, io.SeekStart)
	data, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if last := lines[len(lines)-1]; last != "" {
		return oneLine(last)
	}
	return "it exited without a word"
}

// givenFlags are the flags of fs that were given, as arguments again.
func givenFlags(fs *pflag.FlagSet) []string {
	var args []string
	fs.VisitAll(func(fl *pflag.Flag) {
		if !fl.Changed {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+fl.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	})
	return args
}

func runDaemonRun(ctx context.Context, o *daemonOptions) error {
	logger := slog.New(slog.NewTextHandler(o.IO.Err, nil))
	socket := o.socketPath(o.Socket)
	ln, err := daemon.Listen(socket)
	if err != nil {
		return err
	}
	// Every reading, the first and each reload, sets the problems Info
	// reports: a file fixed since start is no longer one.
	var problems lockedLines
	loader := *o.Factory
	loader.Load = func(mode discoverMode) (*app.Loaded, error) {
		l, err := o.Load(mode)
		if err == nil {
			var lines []string
			for _, p := range l.Problems {
				lines = append(lines, oneLine(p.Error()))
			}
			problems.set(lines)
		}
		return l, err
	}
	first, err := loader.Load(forHost)
	if err != nil {
		ln.Close()
		return err
	}
	for _, p := range problems.get() {
		fmt.Fprintf(o.IO.Err, "switchboard: %s\n", p)
	}
	quiet := *o.Factory
	quiet.IO.Out, quiet.IO.OutTTY = o.IO.Err, false
	events := &watchOptions{Factory: &quiet}
	// The daemon's host is the one serve's gateway would run: its
	// clients see the names serve gives (DESIGN.md F56).
	a, err := loader.startApp(ctx, first, app.Options{
		ConfigEvent: events.printReloading,
		Gateway:     &gateway.Options{},
	}, func(opts *host.Options) { opts.ToolPrefix = host.NoToolPrefix })
	if err != nil {
		ln.Close()
		return interrupted(ctx, err)
	}
	if err := o.sayReady(); err != nil {
		ln.Close()
		a.Close()
		return err
	}
	logger.Info("daemon: serving", "socket", socket, "pid", os.Getpid(), "idle", o.Idle)
	err = daemon.Serve(ctx, a, ln, &daemon.Options{
		Idle:     o.Idle,
		Logger:   logger,
		Socket:   socket,
		Demo:     first.Demo,
		Problems: problems.get,
		Sources: func(context.Context) (json.RawMessage, error) {
			d, err := o.Discover(namesOnly)
			if err != nil {
				return nil, err
			}
			return json.Marshal(toSourcesJSON(d))
		},
	})
	logger.Info("daemon: stopped", "socket", socket)
	return err
}

// sayReady tells `daemon start` the daemon listens and its servers
// started, on the descriptor it handed down.
func (o *daemonOptions) sayReady() error {
	if o.readyFD == 0 {
		return nil
	}
	f := os.NewFile(uintptr(o.readyFD), "ready")
	if f == nil {
		return fmt.Errorf("daemon: --ready-fd %d is not open", o.readyFD)
	}
	defer f.Close()
	_, err := io.WriteString(f, "ready\n")
	return err
}

// daemonStatusJSON is `daemon status --json`.
type daemonStatusJSON struct {
	Running bool           `json:"running"`
	Socket  string         `json:"socket"`
	PID     int            `json:"pid,omitempty"`
	Started *time.Time     `json:"started,omitempty"`
	Uptime  string         `json:"uptime,omitempty"`
	Clients int            `json:"clients"`
	Idle    string         `json:"idle,omitempty"`
	States  map[string]int `json:"states,omitempty"`
	Servers []host.Status  `json:"servers,omitempty"`
	// Problems are the config files the daemon could not read.
	Problems []string `json:"problems,omitempty"`
	Demo     bool     `json:"demo,omitempty"`
}

func runDaemonStatus(ctx context.Context, o *daemonOptions) error {
	socket := o.socketPath(o.Socket)
	c, err := daemon.Dial(ctx, socket)
	if errors.Is(err, daemon.ErrNoDaemon) {
		if o.JSON {
			if err := writeJSON(o.IO.Out, daemonStatusJSON{Socket: socket}); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(o.IO.Out, "not running (no daemon on %s)\n", socket)
		}
		return exitError{ExitFailure}
	}
	if err != nil {
		return err
	}
	defer c.Close()
	in, err := c.Info(ctx)
	if err != nil {
		return err
	}
	sts, err := c.Status(ctx)
	if err != nil {
		return err
	}
	s := daemonStatusJSON{Running: true, Socket: in.Socket, PID: in.PID, Started: &in.Started,
		Uptime: time.Since(in.Started).Round(time.Second).String(), Clients: in.Clients,
		Idle: idleText(in.Idle), States: map[string]int{}, Servers: sts, Problems: in.Problems, Demo: in.Demo}
	for _, st := range sts {
		s.States[string(st.State)]++
	}
	if o.JSON {
		return writeJSON(o.IO.Out, s)
	}
	w := o.IO.Out
	fmt.Fprintf(w, "running (pid %d) on %s, up %s\n", s.PID, s.Socket, s.Uptime)
	var states []string
	for _, k := range slices.Sorted(maps.Keys(s.States)) {
		states = append(states, strconv.Itoa(s.States[k])+" "+k)
	}
	fmt.Fprintf(w, "servers: %d (%s)\n", len(sts), strings.Join(states, ", "))
	fmt.Fprintf(w, "clients attached: %d\n", s.Clients)
	fmt.Fprintf(w, "idle timeout: %s\n", s.Idle)
	if s.Demo {
		fmt.Fprintln(w, "no config found: it serves the bundled demo")
	}
	for _, p := range s.Problems {
		fmt.Fprintf(w, "problem: %s\n", oneLine(p))
	}
	return nil
}

func idleText(d time.Duration) string {
	if d <= 0 {
		return "none"
	}
	return d.String()
}

func runDaemonStop(ctx context.Context, o *daemonOptions) error {
	socket := o.socketPath(o.Socket)
	c, err := daemon.Dial(ctx, socket)
	if errors.Is(err, daemon.ErrNoDaemon) {
		fmt.Fprintf(o.IO.Out, "not running (no daemon on %s)\n", socket)
		return nil
	}
	if err != nil {
		return err
	}
	defer c.Close()
	in, err := c.Info(ctx)
	if err != nil {
		return err
	}
	if err := c.Stop(ctx); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "daemon stopped (pid %d)\n", in.PID)
	return nil
}

// lockedLines are lines one goroutine sets and others read.
type lockedLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *lockedLines) set(lines []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = lines
}

func (l *lockedLines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}
