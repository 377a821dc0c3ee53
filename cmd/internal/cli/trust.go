package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config/trust"
)

// trustOptions are trust's: the project is the global --project.
type trustOptions struct {
	*Factory
	JSON jsonFlag
}

// trustJSON is what trust prints with --json: the folder it trusted and
// the config files it trusted with it.
type trustJSON struct {
	Project string              `json:"project"`
	Files   []trust.ProjectFile `json:"files"`
}

func newTrustCmd(f *Factory) *cobra.Command {
	o := &trustOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Trust the current project folder, and its config files, to run servers",
		Long: `Trust the current project folder (or --project DIR), with the MCP
config files it has, if any: .switchboard/mcp.json, .mcp.json,
.cursor/mcp.json, .vscode/mcp.json and the other tools' project files.
A folder may hold a repository someone else wrote, so until it is
trusted nothing in it runs: its config's servers are listed as untrusted
and not started, and your own servers start in your home directory, with
the folder given to them as a root.

Trust is remembered per folder and for exactly these files: when one
changes, or one is added or removed, the folder needs trusting again.
It prints what it trusted.`,
		Example: `  $ switchboard sources      # see what the project's files would start
  $ switchboard trust
  $ switchboard trust --project ~/src/app
  $ switchboard trust --json | jq -r '.files[].path'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTrust(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print what was trusted as JSON: {project, files: [{path, provider, servers}]}")
	return cmd
}

func runTrust(_ context.Context, o *trustOptions) error {
	dir, files, err := o.ScanProject()
	if err != nil {
		return err
	}
	if err := o.TrustProject(dir, files); err != nil {
		return fmt.Errorf("trust %s: %w", dir, err)
	}
	if o.JSON {
		return writeJSON(o.IO.Out, trustJSON{Project: dir, Files: orEmpty(files)})
	}
	if len(files) == 0 {
		fmt.Fprintf(o.IO.Out, "Trusted %s: it has no MCP config files; your servers may now start in it.\n", termsafe.Line(dir))
		return nil
	}
	fmt.Fprintf(o.IO.Out, "Trusted %s: the servers in these files may start.\n", termsafe.Line(dir))
	w := 0
	for _, f := range files {
		w = max(w, len(f.Provider))
	}
	for _, f := range files {
		servers := termsafe.Line(strings.Join(f.Servers, ", "))
		if servers == "" {
			servers = "no servers"
		}
		fmt.Fprintf(o.IO.Out, "  %-*s  %s  %s\n", w, f.Provider, termsafe.Line(f.Path), servers)
	}
	return nil
}
