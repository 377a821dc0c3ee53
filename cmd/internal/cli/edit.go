package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/edit"
)

// addScopeFlag declares --scope: which of our own files an edit changes.
func addScopeFlag(cmd *cobra.Command, scope *string) {
	cmd.Flags().StringVar(scope, "scope", "user", "which config to edit: user ($XDG_CONFIG_HOME/switchboard/mcp.json) or project (.switchboard/mcp.json)")
}

type addOptions struct {
	*Factory
	// Scope is "user" or "project" (Factory.ConfigPath).
	Scope string
	Name  string
	// Command and Args are a program to run; URL is a server to reach.
	// Exactly one of Command and URL is set.
	Command string
	Args    []string
	URL     string
	// Transport is "", "http" or "sse", for a URL only.
	Transport string
	// Headers and Env are K=V pairs.
	Headers []string
	Env     []string
}

func newAddCmd(f *Factory) *cobra.Command {
	o := &addOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "add NAME [--url URL | -- COMMAND [ARGS...]]",
		Short: "Add a server to your switchboard config",
		Long: `Add a server to switchboard's own config file: a program to run (after --)
or a url to reach. The file is locked while it changes and replaced in one
step, mode 0600; a name that exists already is refused. A running
'switchboard watch' picks the change up.`,
		Example: `  $ switchboard add memory -- npx -y @modelcontextprotocol/server-memory
  $ switchboard add github --env GITHUB_TOKEN='${GITHUB_TOKEN}' -- npx -y @modelcontextprotocol/server-github
  $ switchboard add docs --url https://example.com/mcp --header 'Authorization=Bearer ${DOCS_TOKEN}'
  $ switchboard add legacy --url http://127.0.0.1:3001/sse --transport sse --scope project`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				if dash != 1 {
					return usagef("give the server's name before --")
				}
				if len(args) < 2 {
					return usagef("no command after --")
				}
				o.Command, o.Args = args[1], args[2:]
			} else if len(args) > 1 {
				return usagef("put the server's command after --: switchboard add %s -- %s", o.Name, strings.Join(args[1:], " "))
			}
			return runAdd(cmd.Context(), o)
		},
	}
	addScopeFlag(cmd, &o.Scope)
	cmd.Flags().StringVar(&o.URL, "url", "", "the server's `url` (streamable HTTP, or SSE with --transport sse)")
	cmd.Flags().StringVar(&o.Transport, "transport", "", "http or sse; without it a url tries streamable HTTP, then SSE")
	cmd.Flags().StringArrayVar(&o.Headers, "header", nil, "an HTTP header `K=V` (repeatable)")
	cmd.Flags().StringArrayVar(&o.Env, "env", nil, "an environment variable `K=V` for the server (repeatable)")
	return cmd
}

func runAdd(_ context.Context, o *addOptions) error {
	entry := edit.EntryFields{URL: o.URL, Command: o.Command, Args: o.Args}
	if (o.Command == "") == (o.URL == "") {
		return usagef("give either --url URL or -- COMMAND [ARGS...]")
	}
	switch o.Transport {
	case "":
	case "http", "sse":
		if o.URL == "" {
			return usagef("--transport is for --url servers")
		}
		entry.Type = config.Transport(o.Transport)
	default:
		return usagef("--transport must be http or sse, not %q", o.Transport)
	}
	var err error
	if entry.Headers, err = parsePairs(o.Headers, badFlagPair("--header")); err != nil {
		return err
	}
	if entry.Env, err = parsePairs(o.Env, badFlagPair("--env")); err != nil {
		return err
	}
	path, err := o.ConfigPath(o.Scope)
	if err != nil {
		return err
	}
	if err := o.Edit.AddServer(path, o.Name, entry); err != nil {
		if errors.Is(err, edit.ErrServerExists) {
			return fmt.Errorf("%w (remove it first, or choose another name)", err)
		}
		return err
	}
	fmt.Fprintf(o.IO.Out, "Added %q to %s\n", o.Name, termsafe.Line(path))
	return nil
}

// badFlagPair is a malformed K=V value of a repeatable flag.
func badFlagPair(flag string) func(kv string) error {
	return func(kv string) error { return usagef("%s %q: want K=V", flag, kv) }
}

// editOptions are remove's, enable's and disable's: one name, one edit.
type editOptions struct {
	*Factory
	// Scope is "user" or "project" (Factory.ConfigPath).
	Scope string
	Name  string
}

// editCommand is one of the one-name edits.
type editCommand struct {
	use, short string
	run        func(context.Context, *editOptions) error
}

func newEditCmd(f *Factory, e editCommand) *cobra.Command {
	o := &editOptions{Factory: f}
	cmd := &cobra.Command{
		Use:               e.use + " NAME",
		Short:             e.short,
		Example:           "  $ switchboard " + e.use + " github\n  $ switchboard " + e.use + " github --scope project",
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeServers(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return e.run(cmd.Context(), o)
		},
	}
	addScopeFlag(cmd, &o.Scope)
	return cmd
}

func newEditCmds(f *Factory) []*cobra.Command {
	return []*cobra.Command{
		newAddCmd(f),
		newEditCmd(f, editCommand{"remove", "Remove a server from your switchboard config", runRemove}),
		newEditCmd(f, editCommand{"enable", "Enable a server in your switchboard config", runEnable}),
		newEditCmd(f, editCommand{"disable", "Disable a server, here or in another tool's config (it stays listed)", runDisable}),
	}
}

func runRemove(_ context.Context, o *editOptions) error {
	return o.edit("Removed", o.Edit.RemoveServer)
}

// runEnable undoes disable: a claim-only entry is removed, so the other
// tool's definition applies again.
func runEnable(_ context.Context, o *editOptions) error {
	return o.edit("Enabled", func(path, name string) error {
		if claim, err := o.Edit.IsClaim(path, name); err == nil && claim {
			return o.Edit.RemoveServer(path, name)
		}
		return o.Edit.SetDisabled(path, name, false)
	})
}

// runDisable turns a server off. One defined only in another tool's config
// is turned off by an entry in ours that claims its name (ours comes
// first), so the other tool's file is never touched.
func runDisable(_ context.Context, o *editOptions) error {
	return o.edit("Disabled", func(path, name string) error {
		err := o.Edit.SetDisabled(path, name, true)
		if !errors.Is(err, edit.ErrNoServer) {
			return err
		}
		src, ok := o.definedElsewhere(name)
		if !ok {
			return err
		}
		if err := o.Edit.ClaimDisabled(path, name); err != nil {
			return err
		}
		o.IO.note(termsafe.Line(fmt.Sprintf("%q is defined in %s (%s); an entry in %s now keeps it off", name, src.Label(), src, path)))
		return nil
	})
}

// edit applies change to the scope's file and says done.
func (o *editOptions) edit(done string, change func(path, name string) error) error {
	path, err := o.ConfigPath(o.Scope)
	if err != nil {
		return err
	}
	if err := change(path, o.Name); err != nil {
		if errors.Is(err, edit.ErrNoServer) {
			return fmt.Errorf("%w (only switchboard's own config is edited here; see 'switchboard sources')", err)
		}
		return err
	}
	fmt.Fprintf(o.IO.Out, "%s %q in %s\n", done, o.Name, termsafe.Line(path))
	return nil
}

// definedElsewhere finds a server's definition in any source discovery
// reads, winning or shadowed.
func (f *Factory) definedElsewhere(name string) (config.Source, bool) {
	d, err := f.Discover(namesOnly)
	if err != nil {
		return config.Source{}, false
	}
	for _, c := range d.Servers {
		if c.Name == name {
			return c.Source, true
		}
	}
	for _, sh := range d.Shadowed {
		if sh.Config.Name == name {
			return sh.Config.Source, true
		}
	}
	return config.Source{}, false
}
