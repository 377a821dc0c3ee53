package cli

import (
	"context"

	"github.com/spf13/cobra"
)

type listOptions struct {
	*Factory
	JSON jsonFlag
	// Wait waits for every server to settle instead of answering at the
	// startup gate.
	Wait bool
}

func newListCmd(f *Factory) *cobra.Command {
	o := &listOptions{Factory: f}
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
			return runList(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print JSON, one object per server")
	cmd.Flags().BoolVar(&o.Wait, "wait", false, "wait for every server to connect or fail")
	return cmd
}

// runList prints the servers' states; exit 1 when a config file could not
// be read, so a script does not take the listing as whole.
func runList(ctx context.Context, o *listOptions) error {
	s, err := o.startHost(ctx, o.Wait)
	if err != nil {
		return err
	}
	defer s.Close()
	statuses := s.Status()
	if o.JSON {
		err = writeJSON(o.IO.Out, toStatusJSON(statuses))
	} else {
		o.IO.serverTable(statuses)
	}
	if err == nil && len(s.loaded.problems) > 0 {
		err = exitError{ExitFailure}
	}
	return err
}
