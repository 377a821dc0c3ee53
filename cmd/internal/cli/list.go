package cli

import (
	"context"
	"slices"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
)

type listOptions struct {
	*Factory
	// Servers, when not empty, lists only these servers.
	Servers []string
	JSON    jsonFlag
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
tools are cached shows as connecting. --wait waits for every server.
--server lists only the servers named, and the exit status is theirs.

` + healthExitCodes,
		Example: `  $ switchboard list
  $ switchboard list --wait || echo "a server is down"
  $ switchboard list --server github --server linear --wait
  $ switchboard list --json | jq -r '.[] | select(.state=="failed") | .name'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := serverArgs(&o.Servers, nil); err != nil {
				return err
			}
			return runList(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print JSON, one object per server")
	addWaitFlag(cmd, &o.Wait, "")
	addServerFlag(cmd, f, &o.Servers, true, "list only server `NAME`")
	return cmd
}

// runList prints the servers' states. Like bare switchboard it is a health
// check (healthExitCodes): exit 1 when a server failed, or when a config
// file could not be read, so a script does not take the listing as whole.
func runList(ctx context.Context, o *listOptions) error {
	// The counts of resources and prompts follow a server's tools: listed.
	s, err := o.openCatalog(ctx, needs{servers: o.Servers, settled: o.Wait, listed: true})
	if err != nil {
		return err
	}
	defer s.Close()
	statuses, err := s.Status(ctx)
	if err != nil {
		return err
	}
	probs, err := problems(ctx, s)
	if err != nil {
		return err
	}
	for _, name := range o.Servers {
		if !slices.ContainsFunc(statuses, func(st host.Status) bool { return st.Name == name }) {
			return noServer(name)
		}
	}
	statuses = onlyServers(statuses, o.Servers, func(st host.Status) string { return st.Name })
	if o.JSON {
		err = writeJSON(o.IO.Out, toStatusJSON(statuses))
	} else {
		o.IO.serverTable(statuses)
		if o.StateDir != nil {
			o.IO.noteServes(o.StateDir())
		}
	}
	if err == nil && (anyFailed(statuses) || len(probs) > 0) {
		err = exitError{ExitFailure}
	}
	return err
}

// healthExitCodes is what bare switchboard and list say of their exit
// codes: they are the health checks (DESIGN.md F48).
const healthExitCodes = `Exit status: 0 when no server failed; 1 when one did (state failed) or a
config file could not be read; 2 for a usage mistake. A disabled, blocked
or untrusted server is not a failure: it is what you or your
administrator decided, and it is listed with its reason.`
