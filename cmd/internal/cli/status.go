package cli

import (
	"context"
	"fmt"
)

// statusOptions are `switchboard` with no command's: it has no flags of
// its own.
type statusOptions struct {
	*Factory
}

// runStatus is `switchboard` with no command: connect everything, wait for
// every server, print the health table (DESIGN.md F45). Exit 1 when an enabled
// server failed or a config file could not be read.
func runStatus(ctx context.Context, o *statusOptions) error {
	s, err := o.startHost(ctx, true)
	if err != nil {
		return err
	}
	defer s.Close()
	statuses := s.Status()
	if len(statuses) == 0 && len(s.loaded.Problems) == 0 {
		fmt.Fprintln(o.IO.Out, "No MCP servers configured.")
		return nil
	}
	o.IO.serverTable(statuses)
	if anyFailed(statuses) || len(s.loaded.Problems) > 0 {
		return exitError{ExitFailure}
	}
	return nil
}
