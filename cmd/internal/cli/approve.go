package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

type approveOptions struct {
	*Factory
	Server string
	Tools  []string
	// All approves every changed, re-added or removed tool of Server, or
	// of every server when Server is empty.
	All  bool
	JSON jsonFlag
	// Store is the replicas' shared store to approve in (approvestore.go).
	Store string
}

func newApproveCmd(f *Factory) *cobra.Command {
	o := &approveOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "approve SERVER TOOL... | [SERVER] --all",
		Short: "Accept the current definitions of changed tools",
		Long: `Accept the definitions switchboard last saw of a server's tools, so that a
tool whose description, schema or annotations changed since it was first
seen (or last approved) is no longer marked changed, and on a server with
"pinTools": true is offered again (DESIGN.md, "Tool pinning").

A tool the server removed is forgotten: if it comes back, it is new. 'tools'
shows what is changed or withheld, with what changed.

It needs no running server: what was last seen is in the pin file in the
state directory. A running daemon or gateway reads the file again at once
and offers the approved tools to its clients (with tools/list_changed).

Replicas of serve --http that share a store (--store) keep their pins in it:
approve there with --store URL or $SWITCHBOARD_STORE, once for every replica.`,
		Example: `  $ switchboard tools approve github create_issue
  $ switchboard tools approve github --all
  $ switchboard tools approve --all --json`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.Server, o.Tools = args[0], args[1:]
			}
			switch {
			case o.All && len(o.Tools) > 0:
				return usagef("--all approves every changed tool: name no tool with it")
			case !o.All && o.Server == "":
				return usagef("name a server and its tools, or use --all")
			case !o.All && len(o.Tools) == 0:
				return usagef("name the tools of %q to approve, or use --all", o.Server)
			}
			return runApprove(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.All, "all", false, "approve every changed, re-added or removed tool (of SERVER, or of every server)")
	addJSONFlag(cmd, &o.JSON, "print JSON, one object per server")
	cmd.Flags().StringVar(&o.Store, "store", "", "approve in the store the replicas of serve --http share (their --store `url`; or $SWITCHBOARD_STORE), not in this machine's pin file")
	return cmd
}

func runApprove(_ context.Context, o *approveOptions) error {
	opts, l, err := o.prepareOptions()
	if err != nil {
		return err
	}
	closeStore, err := o.approveStore(opts)
	if err != nil {
		return err
	}
	if closeStore != nil {
		defer closeStore()
	}
	var servers []config.ServerConfig
	if o.Server == "" {
		servers = l.Servers
	} else {
		i := slices.IndexFunc(l.Servers, func(c config.ServerConfig) bool { return c.Name == o.Server })
		if i < 0 {
			var names []string
			for _, c := range l.Servers {
				names = append(names, c.Name)
			}
			if near := nearNames(o.Server, names); len(near) > 0 {
				return usagef("no server named %q; did you mean %s?", o.Server, quotedList(near, "or"))
			}
			return noServer(o.Server)
		}
		servers = l.Servers[i : i+1]
	}
	out := []host.PinApproval{}
	for _, cfg := range servers {
		a, err := host.ApproveTools(opts, cfg, o.Tools)
		var pe *host.PinToolError
		if errors.As(err, &pe) {
			return usageError{err}
		}
		if err != nil {
			return err
		}
		if o.Server != "" || len(a.Approved) > 0 {
			out = append(out, a)
		}
	}
	if o.JSON {
		return writeJSON(o.IO.Out, out)
	}
	if len(out) == 0 {
		fmt.Fprintln(o.IO.Out, "nothing to approve")
	}
	for _, a := range out {
		if len(a.Approved) > 0 {
			fmt.Fprintf(o.IO.Out, "%s: approved %s\n", cell(a.Server), cell(strings.Join(a.Approved, ", ")))
		}
		if len(a.Unchanged) > 0 {
			fmt.Fprintf(o.IO.Out, "%s: not changed, nothing to approve: %s\n", cell(a.Server), cell(strings.Join(a.Unchanged, ", ")))
		}
		if len(a.Approved) == 0 && len(a.Unchanged) == 0 {
			fmt.Fprintf(o.IO.Out, "%s: nothing to approve\n", cell(a.Server))
		}
	}
	return nil
}
