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
	// List lists every trust decision instead of trusting.
	List bool
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
It prints what it trusted. --list lists every folder you trusted;
'switchboard untrust' takes a decision back.`,
		Example: `  $ switchboard sources      # see what the project's files would start
  $ switchboard trust
  $ switchboard trust --project ~/src/app
  $ switchboard trust --json | jq -r '.files[].path'
  $ switchboard trust --list`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTrust(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print what was trusted as JSON: {project, files: [{path, provider, servers}]}; with --list, [{project, files, trustedAt}]")
	cmd.Flags().BoolVar(&o.List, "list", false, "list every folder you trusted, with its files, instead of trusting")
	return cmd
}

func runTrust(_ context.Context, o *trustOptions) error {
	if o.List {
		return listTrust(o)
	}
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

// listTrust prints every trust decision.
func listTrust(o *trustOptions) error {
	decisions, err := o.ListTrust()
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, orEmpty(decisions))
	}
	if len(decisions) == 0 {
		fmt.Fprintln(o.IO.Out, "No folder is trusted.")
		return nil
	}
	for _, d := range decisions {
		files := "no MCP config files"
		if len(d.Files) > 0 {
			files = strings.Join(d.Files, ", ")
		}
		fmt.Fprintf(o.IO.Out, "%s  (since %s; %s)\n", termsafe.Line(d.Project), d.TrustedAt.Local().Format("2006-01-02 15:04"), termsafe.Line(files))
	}
	return nil
}

type untrustOptions struct {
	*Factory
	Dir  string
	JSON jsonFlag
}

func newUntrustCmd(f *Factory) *cobra.Command {
	o := &untrustOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "untrust [DIR]",
		Short: "Take back the trust of a folder (the current project by default)",
		Long: `Forget that you trusted a folder: its config's servers stop being
started, and your own servers start in your home directory again while
you work there. DIR defaults to the current project (or --project).
'switchboard trust --list' lists the folders you trusted.`,
		Example: `  $ switchboard trust --list
  $ switchboard untrust ~/src/cloned-repo`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Dir = args[0]
			}
			return runUntrust(o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print {project, revoked} as JSON")
	return cmd
}

func runUntrust(o *untrustOptions) error {
	dir, revoked, err := o.Untrust(o.Dir)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, struct {
			Project string `json:"project"`
			Revoked bool   `json:"revoked"`
		}{dir, revoked})
	}
	if !revoked {
		fmt.Fprintf(o.IO.Out, "%s was not trusted.\n", termsafe.Line(dir))
		return nil
	}
	fmt.Fprintf(o.IO.Out, "No longer trusted: %s\n", termsafe.Line(dir))
	return nil
}
