package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
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

With --json each event is one JSON object on its own line, with at least
time, type and server, and for state events state and pid.`,
		Example: `  $ switchboard watch
  $ switchboard watch --json | jq -c 'select(.type=="state")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			l, err := g.load()
			if err != nil {
				return err
			}
			for _, p := range l.problems {
				fmt.Fprintf(g.io.Err, "switchboard: %v\n", oneLine(p.Error()))
			}
			h, err := g.newHost()
			if err != nil {
				return err
			}
			defer h.Close()
			sub := h.Subscribe()
			defer sub.Close()
			printed := make(chan struct{})
			go func() {
				defer close(printed)
				for e := range sub.C {
					if o.json {
						writeEventJSON(g, e)
					} else {
						printEvent(g, e)
					}
				}
			}()
			if err := h.Start(ctx, l.servers); err != nil {
				sub.Close()
				<-printed
				return err
			}
			<-ctx.Done()
			sub.Close()
			<-printed
			return nil
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
	ts := paint(colorOn, ansiDim, e.Time.Format("15:04:05.000"))
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
