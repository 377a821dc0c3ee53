package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/edit"
)

// addScopeFlag declares --scope: which of our own files an edit changes.
func addScopeFlag(cmd *cobra.Command, scope *string) {
	cmd.Flags().StringVar(scope, "scope", "user", "which config to edit: user ($XDG_CONFIG_HOME/switchboard/mcp.json) or project (.switchboard/mcp.json)")
}

// editOptions are remove's, enable's and disable's: one name, one edit.
type editOptions struct {
	*Factory
	// Scope is "user" or "project" (Factory.ConfigPath).
	Scope string
	Name  string
	JSON  jsonFlag
}

// editJSON is what an edit command prints with --json: what it changed.
// Values the entry holds (env, headers) are not echoed: they may be
// secrets.
type editJSON struct {
	// Action is added, removed, enabled or disabled.
	Action string `json:"action"`
	Server string `json:"server"`
	// File is our own config file that changed, Scope which one it is.
	File  string `json:"file"`
	Scope string `json:"scope"`
	// Claim says the entry changed only claims the name of a server
	// another tool's file defines: disable added it, enable removed it.
	Claim bool `json:"claim,omitempty"`
	// DefinedIn is that other definition, when disable found it.
	DefinedIn *config.Source `json:"definedIn,omitempty"`
}

// editCommand is one of the one-name edits.
type editCommand struct {
	use, short string
	run        func(context.Context, *editOptions) error
}

func newEditCmd(f *Factory, e editCommand) *cobra.Command {
	o := &editOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   e.use + " NAME",
		Short: e.short,
		Example: "  $ switchboard " + e.use + " github\n  $ switchboard " + e.use + " github --scope project\n" +
			"  $ switchboard " + e.use + " github --json | jq -r .file",
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeServers(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return e.run(cmd.Context(), o)
		},
	}
	addScopeFlag(cmd, &o.Scope)
	addJSONFlag(cmd, &o.JSON, "print what changed as JSON: {action, server, file, scope, claim, definedIn}")
	return cmd
}

// newEditCmds are add, remove, enable and disable; argv is the command
// line as given (newAddCmd).
func newEditCmds(f *Factory, argv func() []string) []*cobra.Command {
	return []*cobra.Command{
		newAddCmd(f, argv),
		newEditCmd(f, editCommand{"remove", "Remove a server from your switchboard config", runRemove}),
		newEditCmd(f, editCommand{"enable", "Enable a server in your switchboard config", runEnable}),
		newEditCmd(f, editCommand{"disable", "Disable a server, here or in another tool's config (it stays listed)", runDisable}),
	}
}

func runRemove(_ context.Context, o *editOptions) error {
	return o.edit("Removed", "removed", func(path, name string, _ *editJSON) error {
		return o.Edit.RemoveServer(path, name)
	})
}

// runEnable undoes disable: a claim-only entry is removed, so the other
// tool's definition applies again.
func runEnable(_ context.Context, o *editOptions) error {
	return o.edit("Enabled", "enabled", func(path, name string, out *editJSON) error {
		if claim, err := o.Edit.IsClaim(path, name); err == nil && claim {
			out.Claim = true
			return o.Edit.RemoveServer(path, name)
		}
		return o.Edit.SetDisabled(path, name, false)
	})
}

// runDisable turns a server off. One defined only in another tool's config
// is turned off by an entry in ours that claims its name (ours comes
// first), so the other tool's file is never touched.
func runDisable(_ context.Context, o *editOptions) error {
	return o.edit("Disabled", "disabled", func(path, name string, out *editJSON) error {
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
		out.Claim, out.DefinedIn = true, &src
		o.IO.note(termsafe.Line(fmt.Sprintf("%q is defined in %s (%s); an entry in %s now keeps it off", name, src.Label(), src, path)))
		return nil
	})
}

// edit applies change to the scope's file and says what it did: done
// (Removed) to a person, action (removed) in JSON. change may fill in
// what the JSON says of a claim.
func (o *editOptions) edit(done, action string, change func(path, name string, out *editJSON) error) error {
	path, err := o.ConfigPath(o.Scope)
	if err != nil {
		return err
	}
	out := editJSON{Action: action, Server: o.Name, File: path, Scope: o.Scope}
	if err := change(path, o.Name, &out); err != nil {
		if errors.Is(err, edit.ErrNoServer) {
			return fmt.Errorf("%w (only switchboard's own config is edited here; see 'switchboard sources')", err)
		}
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, out)
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
