package cli

import (
	"context"
	"fmt"
)

// statusOptions are `switchboard` with no command's.
type statusOptions struct {
	*Factory
	JSON jsonFlag
	// Wait is accepted for likeness with the other commands that connect:
	// the health table always waits for every server.
	Wait bool
}

// runStatus is `switchboard` with no command: connect everything, wait for
// every server, print the health table (DESIGN.md F45), or with --json
// what list --json prints. Exit 1 when an enabled server failed or a
// config file could not be read.
func runStatus(ctx context.Context, o *statusOptions) error {
	s, err := o.openCatalog(ctx, needs{settled: true})
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
	switch {
	case bool(o.JSON):
		if err := writeJSON(o.IO.Out, toStatusJSON(statuses)); err != nil {
			return err
		}
	case len(statuses) == 0 && len(probs) == 0:
		fmt.Fprintln(o.IO.Out, "No MCP servers configured.")
		return nil
	default:
		o.IO.serverTable(statuses)
	}
	if anyFailed(statuses) || len(probs) > 0 {
		return exitError{ExitFailure}
	}
	return nil
}
