package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/trust"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/watch"
)

type watchOptions struct {
	json bool
}

func newWatchCmd(g *globalOptions) *cobra.Command {
	var o watchOptions
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
			ctx := cmd.Context()
			first, err := g.watchLoad()
			if err != nil {
				return err
			}
			h, err := g.newHost()
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
						if o.json {
							writeEventJSON(g, e)
						} else {
							printEvent(g, e)
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
					g.printWatchEvent(watch.Event{Time: time.Now(), Type: watch.EventConfigError, Error: err.Error()}, o.json, false)
				})
			}
			if err := h.Start(ctx, first.Servers); err != nil {
				stop()
				return err
			}
			err = watch.Run(ctx, h, first, g.watchLoad, &watch.Options{
				Logger: g.logger(),
				Notify: func(e watch.Event) { emit(func() { g.printWatchEvent(e, o.json, true) }) },
			})
			stop()
			return err
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object per event")
	return cmd
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

func writeEventJSON(g *globalOptions, e host.Event) {
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
	b, _ := jsonLine(out)
	g.io.Out.Write(b)
}

func printEvent(g *globalOptions, e host.Event) {
	colorOn := g.color(g.io.OutTTY)
	ts := paint(colorOn, ansiDim, e.Time.Format(clockFormat))
	switch e.Type {
	case host.EventState:
		line := fmt.Sprintf("%s %-16s %s", ts, e.Server, paint(colorOn, stateColor(e.State), string(e.State)))
		if e.PID != 0 {
			line += fmt.Sprintf(" pid %d", e.PID)
		}
		if e.Error != "" {
			line += "  " + oneLine(e.Error)
		}
		fmt.Fprintln(g.io.Out, line)
	case host.EventTools:
		fmt.Fprintf(g.io.Out, "%s %-16s tool set changed (version %d)\n", ts, "*", e.Version)
	case host.EventLog:
		msg := e.Message
		if e.Level == host.LevelError {
			msg = paint(colorOn, ansiRed, msg)
		}
		fmt.Fprintf(g.io.Out, "%s %-16s %s\n", ts, e.Server, msg)
	}
}

// watchLoad reads the configs for watch: the servers, every file to watch
// (each source looked at, found or not; the policy and the trust store,
// whose changes reload too), and the sources that could not be read.
func (g *globalOptions) watchLoad() (*watch.Loaded, error) {
	l, err := g.load()
	if err != nil {
		return nil, err
	}
	d := l.discovery
	if d == nil { // the demo stands in: watch where a config would appear
		if d, err = g.discover(); err != nil {
			return nil, err
		}
	}
	var files []string
	for _, src := range d.Sources {
		files = append(files, src.Path)
	}
	if d.Policy != nil && d.Policy.Path != "" {
		files = append(files, d.Policy.Path)
	}
	if dir := g.stateDirPath(); dir != "" {
		files = append(files, filepath.Join(dir, trust.FileName))
	}
	slices.Sort(files)
	return &watch.Loaded{Servers: l.servers, Files: slices.Compact(files), Errors: l.problems}, nil
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
func (g *globalOptions) printWatchEvent(e watch.Event, asJSON, keeping bool) {
	if asJSON {
		out := watchEventJSON{Time: e.Time.UTC().Format(time.RFC3339Nano), Type: string(e.Type), Error: e.Error}
		if e.Type == watch.EventReload {
			out.Diff = &e.Diff
		}
		b, _ := jsonLine(out)
		g.io.Out.Write(b)
		return
	}
	colorOn := g.color(g.io.OutTTY)
	ts := paint(colorOn, ansiDim, e.Time.Format(clockFormat))
	switch e.Type {
	case watch.EventConfigError:
		msg := "config error: " + oneLine(e.Error)
		if keeping {
			msg += " (still running the last good config)"
		}
		fmt.Fprintf(g.io.Out, "%s %-16s %s\n", ts, "*", paint(colorOn, ansiRed, msg))
	case watch.EventReload:
		var parts []string
		for _, p := range []struct {
			what  string
			names []string
		}{{"added", e.Diff.Added}, {"removed", e.Diff.Removed}, {"restarted", e.Diff.Changed}, {"updated", e.Diff.Updated}} {
			if len(p.names) > 0 {
				parts = append(parts, p.what+" "+strings.Join(p.names, ", "))
			}
		}
		fmt.Fprintf(g.io.Out, "%s %-16s config reloaded: %s\n", ts, "*", strings.Join(parts, "; "))
	}
}
