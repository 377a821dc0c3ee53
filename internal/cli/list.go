package cli

import (
	"github.com/spf13/cobra"
)

type listOptions struct {
	json, wait bool
}

func newListCmd(g *globalOptions) *cobra.Command {
	var o listOptions
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List configured servers and their state",
		Long: `List every configured server with its state, transport, source and tool
count. Like any host it answers at the startup gate: a slow server whose
tools are cached shows as connecting. --wait waits for every server.`,
		Example: `  $ switchboard list
  $ switchboard list --json | jq -r '.[] | select(.state=="failed") | .name'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := g.startHost(cmd.Context(), o.wait)
			if err != nil {
				return err
			}
			defer s.Close()
			statuses := s.Status()
			if o.json {
				err = writeJSON(g.io.Out, toStatusJSON(statuses))
			} else {
				g.serverTable(g.io.Out, statuses)
			}
			if err == nil && len(s.loaded.problems) > 0 {
				// The listing is incomplete: a script must not take it as whole.
				err = exitError{ExitFailure}
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON, one object per server")
	cmd.Flags().BoolVar(&o.wait, "wait", false, "wait for every server to connect or fail")
	return cmd
}
