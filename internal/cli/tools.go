package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
)

type toolsOptions struct {
	json, wait bool
}

func newToolsCmd(g *globalOptions) *cobra.Command {
	var o toolsOptions
	cmd := &cobra.Command{
		Use:   "tools [SERVER]",
		Short: "List the tools the servers offer",
		Long: `List the tools of every server, or of one, under the names an agent sees.

It answers at the startup gate, as an agent's host would: a slow server's
tools come from the cache and are marked deferred (a call to one waits for
its server). --wait waits for every server instead.`,
		Example: `  $ switchboard tools
  $ switchboard tools github --json
  $ switchboard tools --wait`,
		Args:              usageArgs(cobra.MaximumNArgs(1)),
		ValidArgsFunction: completeServers(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.startHost(cmd.Context(), o.wait)
			if err != nil {
				return err
			}
			defer s.Close()
			tools := s.Tools().Tools
			if len(args) == 1 {
				if !hasServer(s.Status(), args[0]) {
					return usagef("no server named %q", args[0])
				}
				tools = filterTools(tools, args[0])
			}
			if o.json {
				if tools == nil {
					tools = []host.Tool{}
				}
				return writeJSON(g.io.Out, tools)
			}
			printTools(g, tools)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON, one object per tool")
	cmd.Flags().BoolVar(&o.wait, "wait", false, "wait for every server instead of answering at the startup gate")
	return cmd
}

func hasServer(statuses []host.Status, name string) bool {
	for _, s := range statuses {
		if s.Name == name {
			return true
		}
	}
	return false
}

func filterTools(tools []host.Tool, server string) []host.Tool {
	var out []host.Tool
	for _, t := range tools {
		if t.Server == server {
			out = append(out, t)
		}
	}
	return out
}

func printTools(g *globalOptions, tools []host.Tool) {
	colorOn := g.color(g.io.OutTTY)
	tw := tabwriter.NewWriter(g.io.Out, 0, 4, 2, ' ', 0)
	for _, t := range tools {
		desc := firstLine(t.Description)
		if t.Deferred {
			desc = paint(colorOn, ansiYellow, "(deferred) ") + desc
		}
		fmt.Fprintf(tw, "%s\t%s\n", t.Name, desc)
	}
	tw.Flush()
}

// firstLine shortens a description to its first line, at most 100 runes.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return s
}
