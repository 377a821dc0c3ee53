package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/daemon"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/watch"
)

type watchOptions struct {
	*Factory
	JSON jsonFlag
}

func newWatchCmd(f *Factory) *cobra.Command {
	o := &watchOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Stay connected and print every event until interrupted",
		Long: `Connect to every server and stay connected, printing each event as it
happens: state changes, tool-set changes and the servers' log lines.
Every server has a line from the start, one that cannot start too: failed
with the reason (an unset variable, say), disabled, blocked or untrusted.
Stop it with Ctrl-C.

While it runs it watches every config file it read, and the places where
new ones would appear: when one changes, exactly the servers whose config
changed restart, and the reload says what it did to each (added,
removed, restarted; started, enabled; stopped, disabled; updated in
place). A file that does not parse is reported (file, line, column) while
the servers keep running on the last good config, and "config fixed"
says when it reads again.

With --json each event is one JSON object on its own line, with at least
time, type and server, and for state events state and pid. Types: state,
tools, log (the host's); reload (with its diff), config-error, and
config-fixed (with file).`,
		Example: `  $ switchboard watch
  $ switchboard watch --json | jq -c 'select(.type=="state")'
  $ switchboard watch --json | jq -r 'select(.type=="config-error" or .type=="config-fixed") | .type + " " + (.error // .file)'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWatch(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print one JSON object per event")
	return cmd
}

// runWatch runs until ctx ends; an interrupt is a clean exit.
func runWatch(ctx context.Context, o *watchOptions) error {
	if c := o.attachable(ctx); c != nil {
		return o.watchDaemon(ctx, c)
	}
	first, err := o.Load(forHost)
	if err != nil {
		return err
	}
	for _, err := range first.SourceErrors() {
		o.printConfigEvent(app.ConfigEvent{Event: watch.Event{Time: time.Now(), Type: watch.EventConfigError, Error: err.Error()}}, false)
	}
	a, err := o.startApp(ctx, first, app.Options{HostEvent: o.printHostEvent, ConfigEvent: o.printReloading}, nil)
	if err != nil {
		return interrupted(ctx, err)
	}
	select {
	case <-ctx.Done():
	case <-a.Done(): // the watcher could not watch
	}
	return a.Close()
}

// watchDaemon prints the events of the daemon that runs the servers
// (DESIGN.md F56): its servers' states, logs and tool changes, from now
// on. The daemon going away ends the watch with an error that says so.
func (o *watchOptions) watchDaemon(ctx context.Context, c *daemon.Client) error {
	defer c.Close()
	events, err := c.Events(ctx)
	if err != nil {
		return err
	}
	if o.IO.ErrTTY {
		fmt.Fprintf(o.IO.Err, "switchboard: watching the daemon on %s\n", termsafe.Line(c.Socket()))
	}
	for e := range events {
		o.printHostEvent(e)
	}
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("the daemon on %s went away", c.Socket())
}

func (o *watchOptions) printHostEvent(e host.Event) {
	if o.JSON {
		writeEventJSON(o.IO, e)
	} else {
		printEvent(o.IO, e)
	}
}

// eventJSON is the --json shape of an event. State events always carry
// state and pid (0 when there is no process); other fields appear when set.
type eventJSON struct {
	Time    string  `json:"time"`
	Type    string  `json:"type"`
	Server  string  `json:"server"`
	State   string  `json:"state,omitempty"`
	PID     *int    `json:"pid,omitempty"`
	Error   string  `json:"error,omitempty"`
	RetryAt string  `json:"retryAt,omitempty"`
	Version *uint64 `json:"version,omitempty"`
	Level   string  `json:"level,omitempty"`
	Message string  `json:"message,omitempty"`
	// On a state event that says connected: who the server is, and what
	// it tells agents.
	ServerInfo      *serverInfoJSON `json:"serverInfo,omitempty"`
	Instructions    string          `json:"instructions,omitempty"`
	ProtocolVersion string          `json:"protocolVersion,omitempty"`
	// Tool and Pin, on a pin event: the server's tool whose definition
	// is not (or again) as approved, and how (DESIGN.md F66).
	Tool string          `json:"tool,omitempty"`
	Pin  *host.PinChange `json:"pin,omitempty"`
}

func writeEventJSON(ios IO, e host.Event) {
	out := eventJSON{
		Time: e.Time.UTC().Format(time.RFC3339Nano), Type: string(e.Type), Server: e.Server,
		State: string(e.State), Error: e.Error, Level: string(e.Level), Message: e.Message,
		RetryAt: timeJSON(e.Retry),
	}
	switch e.Type {
	case host.EventState:
		pid := e.PID
		out.PID = &pid
		out.Instructions, out.ProtocolVersion = e.Instructions, e.Protocol
		if i := e.ServerInfo; i != nil {
			out.ServerInfo = &serverInfoJSON{Name: i.Name, Title: i.Title, Version: i.Version}
		}
	case host.EventTools:
		v := e.Version
		out.Version = &v
	case host.EventPin:
		out.Tool, out.Pin = e.Tool, e.Pin
	}
	_ = writeJSONLine(ios.Out, out)
}

func printEvent(ios IO, e host.Event) {
	colorOn := ios.color(ios.OutTTY)
	ts := paint(colorOn, ansiDim, e.Time.Format(clockFormat))
	switch e.Type {
	case host.EventState:
		line := fmt.Sprintf("%s %-16s %s", ts, termsafe.Line(e.Server), paint(colorOn, stateColor(e.State), string(e.State)))
		if e.PID != 0 {
			line += fmt.Sprintf(" pid %d", e.PID)
		}
		if e.Error != "" {
			line += "  " + oneLine(e.Error) + nextTry(e.Retry, e.Time)
		}
		fmt.Fprintln(ios.Out, line)
	case host.EventTools:
		fmt.Fprintf(ios.Out, "%s %-16s tool set changed (version %d)\n", ts, "*", e.Version)
	case host.EventPin:
		msg := termsafe.Line(e.Message)
		if e.Pin != nil && e.Pin.Withheld {
			msg = paint(colorOn, ansiRed, msg)
		}
		fmt.Fprintf(ios.Out, "%s %-16s %s\n", ts, termsafe.Line(e.Server), msg)
	case host.EventLog:
		msg := termsafe.Line(e.Message)
		if e.Level == host.LevelError {
			msg = paint(colorOn, ansiRed, msg)
		}
		fmt.Fprintf(ios.Out, "%s %-16s %s\n", ts, termsafe.Line(e.Server), msg)
	}
}

func (o *watchOptions) printFixed(t time.Time, path string, gone bool) {
	if o.JSON {
		_ = writeJSONLine(o.IO.Out, watchEventJSON{Time: t.UTC().Format(time.RFC3339Nano), Type: string(app.EventConfigFixed), File: path})
		return
	}
	colorOn := o.IO.color(o.IO.OutTTY)
	msg := "config fixed: " + termsafe.Line(path)
	if gone {
		msg += " (the file is gone)"
	}
	fmt.Fprintf(o.IO.Out, "%s %-16s %s\n", paint(colorOn, ansiDim, t.Format(clockFormat)), "*", paint(colorOn, ansiGreen, msg))
}

// watchEventJSON is the --json shape of a watcher event, beside the host's.
type watchEventJSON struct {
	Time   string       `json:"time"`
	Type   string       `json:"type"`
	Server string       `json:"server"`
	Error  string       `json:"error,omitempty"`
	Diff   *config.Diff `json:"diff,omitempty"`
	// File is the config file a config-fixed event is about.
	File string `json:"file,omitempty"`
}

// printReloading prints what the reloading did while a good config runs.
func (o *watchOptions) printReloading(e app.ConfigEvent) { o.printConfigEvent(e, true) }

// printConfigEvent prints what the reloading did; keeping says a good
// config runs (false for the errors of the first reading, when there was
// none yet).
func (o *watchOptions) printConfigEvent(e app.ConfigEvent, keeping bool) {
	switch e.Type {
	case app.EventConfigFixed:
		o.printFixed(e.Time, e.File, e.Gone)
		return
	case watch.EventReload:
		if !o.JSON {
			o.printReload(e.Event, e.Before, e.After)
			return
		}
	}
	if o.JSON {
		out := watchEventJSON{Time: e.Time.UTC().Format(time.RFC3339Nano), Type: string(e.Type), Error: e.Error}
		if e.Type == watch.EventReload {
			out.Diff = &e.Diff
		}
		_ = writeJSONLine(o.IO.Out, out)
		return
	}
	if e.Type == watch.EventConfigError {
		colorOn := o.IO.color(o.IO.OutTTY)
		msg := "config error: " + oneLine(e.Error)
		if keeping {
			msg += " (still running the last good config)"
		}
		fmt.Fprintf(o.IO.Out, "%s %-16s %s\n", paint(colorOn, ansiDim, e.Time.Format(clockFormat)), "*", paint(colorOn, ansiRed, msg))
	}
}

// printReload says what a reload did, from the configs before and after
// it: a changed server that runs before and after restarted, but one the
// change disabled stopped, and one it enabled started.
func (o *watchOptions) printReload(e watch.Event, before, after []config.ServerConfig) {
	runs := func(configs []config.ServerConfig, name string) (runs, disabled bool) {
		i := slices.IndexFunc(configs, func(c config.ServerConfig) bool { return c.Name == name })
		if i < 0 {
			return false, false
		}
		return configs[i].Admission() == config.Admitted, configs[i].Disabled
	}
	var restarted, started, enabled, stopped, disabled, changed []string
	for _, name := range e.Diff.Changed {
		ranBefore, wasDisabled := runs(before, name)
		runsNow, isDisabled := runs(after, name)
		switch {
		case ranBefore && runsNow:
			restarted = append(restarted, name)
		case runsNow && wasDisabled:
			enabled = append(enabled, name)
		case runsNow:
			started = append(started, name)
		case isDisabled && !wasDisabled:
			disabled = append(disabled, name)
		case ranBefore:
			stopped = append(stopped, name) // blocked, untrusted or failed: its state line says why
		default:
			changed = append(changed, name) // neither runs: nothing started or stopped
		}
	}
	var parts []string
	for _, p := range []struct {
		what  string
		names []string
	}{
		{"added", e.Diff.Added}, {"removed", e.Diff.Removed}, {"restarted", restarted}, {"started", started},
		{"enabled", enabled}, {"disabled", disabled}, {"stopped", stopped}, {"changed", changed}, {"updated", e.Diff.Updated},
	} {
		if len(p.names) > 0 {
			parts = append(parts, p.what+" "+termsafe.Line(strings.Join(p.names, ", ")))
		}
	}
	colorOn := o.IO.color(o.IO.OutTTY)
	fmt.Fprintf(o.IO.Out, "%s %-16s config reloaded: %s\n", paint(colorOn, ansiDim, e.Time.Format(clockFormat)), "*", strings.Join(parts, "; "))
}
