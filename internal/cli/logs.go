package cli

import (
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

type logsOptions struct {
	follow bool
	json   bool
}

func newLogsCmd(g *globalOptions) *cobra.Command {
	var o logsOptions
	cmd := &cobra.Command{
		Use:   "logs SERVER",
		Short: "Show what a server wrote to stderr and its log notifications",
		Long: `Start a server and show its log: the lines it wrote to stderr (classified
error, warning or info), its notifications/message entries, and non-JSON
lines it printed on stdout. With -f, stay connected and follow the log until
interrupted, reconnects included.`,
		Example: `  $ switchboard logs github
  $ switchboard logs github -f`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeServers(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			h, servers, err := g.prepare()
			if err != nil {
				return err
			}
			defer h.Close()
			i := slices.IndexFunc(servers, func(c config.ServerConfig) bool { return c.Name == name })
			if i < 0 {
				return usagef("no server named %q", name)
			}
			sub := h.Subscribe()
			defer sub.Close()
			// Only this server: the others' output is not asked for.
			if err := h.Start(cmd.Context(), servers[i:i+1]); err != nil {
				return err
			}
			if err := h.WaitSettled(cmd.Context()); err != nil {
				return err
			}
			// Events up to now are in the log below, or are the start's own
			// state changes: -f shows what comes after.
			cut := time.Now()
			lines, _ := h.Logs(name)
			for _, l := range lines {
				g.printLogLine(l, o.json)
			}
			if !o.follow {
				return nil
			}
			for {
				select {
				case e, ok := <-sub.C:
					if !ok {
						return nil
					}
					// The subscription also holds what was printed above.
					if !e.Time.After(cut) {
						continue
					}
					switch e.Type {
					case host.EventLog:
						g.printLogLine(host.LogLine{Time: e.Time, Level: e.Level, Text: e.Message}, o.json)
					case host.EventState:
						if !o.json {
							fmt.Fprintf(g.io.Err, "%s %s\n", g.dim(e.Time.Format(clockFormat)), g.dim("-- "+string(e.State)+" --"))
						}
					}
				case <-cmd.Context().Done():
					return nil
				}
			}
		},
	}
	cmd.Flags().BoolVarP(&o.follow, "follow", "f", false, "stay connected and print new lines as they come")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object per line")
	return cmd
}

func (g *globalOptions) printLogLine(l host.LogLine, asJSON bool) {
	if asJSON {
		b, _ := jsonLine(l)
		g.io.Out.Write(b)
		return
	}
	colorOn := g.color(g.io.OutTTY)
	text := l.Text
	switch l.Level {
	case host.LevelError:
		text = paint(colorOn, ansiRed, text)
	case host.LevelWarn:
		text = paint(colorOn, ansiYellow, text)
	}
	fmt.Fprintf(g.io.Out, "%s %-5s %s\n", paint(colorOn, ansiDim, l.Time.Format(clockFormat)), l.Level, text)
}

// prepare loads the configs and builds a host without starting it, for
// commands that subscribe to events before the servers start.
func (g *globalOptions) prepare() (*host.Host, []config.ServerConfig, error) {
	l, err := g.load()
	if err != nil {
		return nil, nil, err
	}
	g.report(l)
	h, err := g.newHost()
	return h, l.servers, err
}
