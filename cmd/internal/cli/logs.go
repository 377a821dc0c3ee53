package cli

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/host"
)

type logsOptions struct {
	*Factory
	Server string
	// Follow stays connected and prints new lines until ctx ends.
	Follow bool
	JSON   jsonFlag
	// Wait is accepted for likeness: logs waits for its server.
	Wait bool
}

func newLogsCmd(f *Factory) *cobra.Command {
	o := &logsOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "logs SERVER",
		Short: "Show what a server wrote to stderr and its log notifications",
		Long: `Start a server and show its log: the lines it wrote to stderr (classified
error, warning or info), its notifications/message entries, and non-JSON
lines it printed on stdout. With -f, stay connected and follow the log until
interrupted, reconnects included.

For a server that failed, the lines come first (they are usually why),
then its error on stderr, and the exit status is 1; -f does not wait for
it. For one that is disabled, blocked or untrusted, a line on stderr says
so.`,
		Example: `  $ switchboard logs github
  $ switchboard logs github -f
  $ switchboard logs github --json | jq -r 'select(.level=="error") | .text'`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeServers(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Server = args[0]
			return runLogs(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.Follow, "follow", "f", false, "stay connected and print new lines as they come")
	addJSONFlag(cmd, &o.JSON, "print one JSON object per line")
	addWaitFlag(cmd, &o.Wait, "logs starts SERVER alone and waits for it")
	return cmd
}

func runLogs(ctx context.Context, o *logsOptions) error {
	name := o.Server
	// Only this server: the others' output is not asked for. Its events
	// are followed from before it starts.
	s, err := o.openCatalog(ctx, needs{servers: []string{name}, settled: true, events: true, quiet: true})
	if err != nil {
		return err
	}
	defer s.Close()
	statuses, err := s.Status(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(statuses, func(st host.Status) bool { return st.Name == name }) {
		return noServer(name)
	}
	events, err := s.Events(ctx)
	if err != nil {
		return err
	}
	// Events up to now are in the log below, or are the start's own
	// state changes: -f shows what comes after.
	cut := time.Now()
	lines, err := s.Logs(ctx, name)
	if err != nil {
		return err
	}
	for _, l := range lines {
		o.printLogLine(l)
	}
	// The lines above are the why of a server that is down; this is its
	// error. Nothing more will come from it: -f does not wait.
	if statuses, err = s.Status(ctx); err != nil {
		return err
	}
	if err := o.IO.requireServer(statuses, name); err != nil || !running(statuses, name) {
		return err
	}
	if !o.Follow {
		return nil
	}
	for {
		select {
		case e, ok := <-events:
			if !ok {
				return nil
			}
			// The subscription also holds what was printed above.
			if !e.Time.After(cut) {
				continue
			}
			switch e.Type {
			case host.EventLog:
				o.printLogLine(host.LogLine{Time: e.Time, Level: e.Level, Text: e.Message})
			case host.EventState:
				if !o.JSON {
					fmt.Fprintf(o.IO.Err, "%s %s\n", o.IO.dim(e.Time.Format(clockFormat)), o.IO.dim("-- "+string(e.State)+" --"))
				}
			}
		case <-ctx.Done():
			return nil
		}
	}
}

func (o *logsOptions) printLogLine(l host.LogLine) {
	if o.JSON {
		_ = writeJSONLine(o.IO.Out, l)
		return
	}
	colorOn := o.IO.color(o.IO.OutTTY)
	text := termsafe.Line(l.Text)
	switch l.Level {
	case host.LevelError:
		text = paint(colorOn, ansiRed, text)
	case host.LevelWarn:
		text = paint(colorOn, ansiYellow, text)
	}
	fmt.Fprintf(o.IO.Out, "%s %-5s %s\n", paint(colorOn, ansiDim, l.Time.Format(clockFormat)), l.Level, text)
}

// running reports whether the server is connected or on its way: what
// logs -f can follow.
func running(statuses []host.Status, name string) bool {
	i := slices.IndexFunc(statuses, func(s host.Status) bool { return s.Name == name })
	if i < 0 {
		return false
	}
	switch statuses[i].State {
	case host.StateConnected, host.StateConnecting, host.StateIdle:
		return true
	}
	return false
}
