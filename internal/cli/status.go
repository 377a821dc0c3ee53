package cli

import (
	"context"
	"fmt"
)

// runStatus is `switchboard` with no command: connect everything, wait for
// every server, print the health table (SPEC F45). Exit 1 when an enabled
// server failed or a config file could not be read.
func runStatus(ctx context.Context, g *globalOptions) error {
	s, err := g.startHost(ctx, true)
	if err != nil {
		return err
	}
	defer s.Close()
	statuses := s.Status()
	if len(statuses) == 0 && len(s.loaded.problems) == 0 {
		fmt.Fprintln(g.io.Out, "No MCP servers configured.")
		return nil
	}
	g.serverTable(g.io.Out, statuses)
	if anyFailed(statuses) || len(s.loaded.problems) > 0 {
		return exitError{ExitFailure}
	}
	return nil
}
