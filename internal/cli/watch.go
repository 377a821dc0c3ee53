package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/watch"
)

type watchOptions struct {
	*Factory
	JSON jsonFlag
	// untrusted is what the first load found of the project's trust; the
	// host keeps it until watch restarts.
	untrusted bool
}

func newWatchCmd(f *Factory) *cobra.Command {
	o := &watchOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Stay connected and print every event until interrupted",
		Long: `Connect to every server and stay connected, printing each event as it
happens: state changes, tool-set changes and the servers' log lines.
Stop it with Ctrl-C.

While it runs it watches every config file it read, and the places where
new ones would appear: when one changes, exactly the servers whose config
changed restart, and a file that does not parse is reported (file, line,
column) while the servers keep running on the last good config.

With --json each event is one JSON object on its own line, with at least
time, type and server, and for state events state and pid.`,
		Example: `  $ switchboard watch
  $ switchboard watch --json | jq -c 'select(.type=="state")'`,
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
	first, err := o.watchLoad()
	if err != nil {
		return err
	}
	h, err := o.NewHost(o.untrusted)
	if err != nil {
		return err
	}
	defer h.Close()
	var mu sync.Mutex // host events and watcher events share the output
	emit := func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		f()
	}
	sub := h.Subscribe()
	defer sub.Close()
	printed := make(chan struct{})
	go func() {
		defer close(printed)
		for e := range sub.C {
			emit(func() {
				if o.JSON {
					writeEventJSON(o.IO, e)
				} else {
					printEvent(o.IO, e)
				}
			})
		}
	}()
	stop := func() {
		sub.Close()
		<-printed
	}
	for _, err := range first.Errors {
		emit(func() {
			o.printWatchEvent(watch.Event{Time: time.Now(), Type: watch.EventConfigError, Error: err.Error()}, false)
		})
	}
	if err := h.Start(ctx, first.Servers); err != nil {
		stop()
		if ctx.Err() != nil {
			return nil // interrupted while servers were still starting
		}
		return err
	}
	err = watch.Run(ctx, h, first, o.watchLoad, &watch.Options{
		Logger: o.Logger(),
		Notify: func(e watch.Event) { emit(func() { o.printWatchEvent(e, true) }) },
	})
	stop()
	return err
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
	Version *uint64 `json:"version,omitempty"`
	Level   string  `json:"level,omitempty"`
	Message string  `json:"message,omitempty"`
}

func writeEventJSON(ios IO, e host.Event) {
	out := eventJSON{
		Time: e.Time.UTC().Format(time.RFC3339Nano), Type: string(e.Type), Server: e.Server,
		State: string(e.State), Error: e.Error, Level: string(e.Level), Message: e.Message,
	}
	switch e.Type {
	case host.EventState:
		pid := e.PID
		out.PID = &pid
	case host.EventTools:
		v := e.Version
		out.Version = &v
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
			line += "  " + oneLine(e.Error)
		}
		fmt.Fprintln(ios.Out, line)
	case host.EventTools:
		fmt.Fprintf(ios.Out, "%s %-16s tool set changed (version %d)\n", ts, "*", e.Version)
	case host.EventLog:
		msg := termsafe.Line(e.Message)
		if e.Level == host.LevelError {
			msg = paint(colorOn, ansiRed, msg)
		}
		fmt.Fprintf(ios.Out, "%s %-16s %s\n", ts, termsafe.Line(e.Server), msg)
	}
}

// watchLoad reads the configs for watch: the servers, every file to watch
// (each source looked at, found or not; the policy and the trust store,
// whose changes reload too), and the sources that could not be read. When
// the demo stands in, the files are where a config would appear.
func (o *watchOptions) watchLoad() (*watch.Loaded, error) {
	l, err := o.load(forHost)
	if err != nil {
		return nil, err
	}
	o.untrusted = l.untrustedProject()
	d := l.discovery
	var files []string
	for _, src := range d.Sources {
		files = append(files, src.Path)
	}
	// The policy file is watched whether or not it exists now: one that
	// appears must take effect at once.
	if d.PolicyPath != "" {
		files = append(files, d.PolicyPath)
	}
	if store := o.TrustStore(); store != "" {
		files = append(files, store)
	}
	slices.Sort(files)
	// Only a source's error holds the last good config (a half-written
	// file must not stop its servers). A broken policy or trust store
	// fails closed instead: the configs it blocks or distrusts are
	// applied, and their servers stop.
	var holding []error
	for _, e := range l.problems {
		if !isGlobalDiscoveryError(e) {
			holding = append(holding, e)
		}
	}
	return &watch.Loaded{Servers: l.servers, Files: slices.Compact(files), Errors: holding}, nil
}

// watchEventJSON is the --json shape of a watcher event, beside the host's.
type watchEventJSON struct {
	Time   string       `json:"time"`
	Type   string       `json:"type"`
	Server string       `json:"server"`
	Error  string       `json:"error,omitempty"`
	Diff   *config.Diff `json:"diff,omitempty"`
}

// printWatchEvent prints a watcher event; keeping says a good config runs
// (false for the errors of the first reading, when there was none yet).
func (o *watchOptions) printWatchEvent(e watch.Event, keeping bool) {
	if o.JSON {
		out := watchEventJSON{Time: e.Time.UTC().Format(time.RFC3339Nano), Type: string(e.Type), Error: e.Error}
		if e.Type == watch.EventReload {
			out.Diff = &e.Diff
		}
		_ = writeJSONLine(o.IO.Out, out)
		return
	}
	colorOn := o.IO.color(o.IO.OutTTY)
	ts := paint(colorOn, ansiDim, e.Time.Format(clockFormat))
	switch e.Type {
	case watch.EventConfigError:
		msg := "config error: " + oneLine(e.Error)
		if keeping {
			msg += " (still running the last good config)"
		}
		fmt.Fprintf(o.IO.Out, "%s %-16s %s\n", ts, "*", paint(colorOn, ansiRed, msg))
	case watch.EventReload:
		var parts []string
		for _, p := range []struct {
			what  string
			names []string
		}{{"added", e.Diff.Added}, {"removed", e.Diff.Removed}, {"restarted", e.Diff.Changed}, {"updated", e.Diff.Updated}} {
			if len(p.names) > 0 {
				parts = append(parts, p.what+" "+termsafe.Line(strings.Join(p.names, ", ")))
			}
		}
		fmt.Fprintf(o.IO.Out, "%s %-16s config reloaded: %s\n", ts, "*", strings.Join(parts, "; "))
	}
}
