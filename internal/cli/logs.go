package cli

import (
	"fmt"

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
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeServers(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			h, servers, err := g.prepare()
			if err != nil {
				return err
			}
			defer h.Close()
			if !hasConfig(servers, name) {
				return usagef("no server named %q", name)
			}
			sub := h.Subscribe()
			defer sub.Close()
			if err := h.Start(cmd.Context(), servers); err != nil {
				return err
			}
			if err := h.WaitSettled(cmd.Context()); err != nil {
				return err
			}
			lines, _ := h.Logs(name)
			for _, l := range lines {
				g.printLogLine(l, o.json)
			}
			if !o.follow {
				return nil
			}
			// The subscription also holds what was logged before; skip up
			// to the last line already printed.
			skip := len(lines)
			for {
				select {
				case e, ok := <-sub.C:
					if !ok {
						return nil
					}
					if e.Server != name {
						continue
					}
					if e.Type == host.EventLog {
						if skip > 0 {
							skip--
							continue
						}
						g.printLogLine(host.LogLine{Time: e.Time, Level: e.Level, Text: e.Message}, o.json)
					} else if e.Type == host.EventState && !o.json {
						fmt.Fprintf(g.io.Err, "%s %s\n", g.dim(e.Time.Format("15:04:05.000")), g.dim("-- "+string(e.State)+" --"))
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
	fmt.Fprintf(g.io.Out, "%s %-5s %s\n", paint(colorOn, ansiDim, l.Time.Format("15:04:05.000")), l.Level, text)
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

func hasConfig(servers []config.ServerConfig, name string) bool {
	for _, s := range servers {
		if s.Name == name {
			return true
		}
	}
	return false
}
