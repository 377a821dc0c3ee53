package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/edit"
)

// scopeFlag is --scope: which of our own files an edit changes.
type scopeFlag struct{ scope string }

func (s *scopeFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&s.scope, "scope", "user", "which config to edit: user ($XDG_CONFIG_HOME/switchboard/mcp.json) or project (.switchboard/mcp.json)")
}

// path is the native file the scope names.
func (s *scopeFlag) path(g *globalOptions) (string, error) {
	switch s.scope {
	case "user":
		p := config.UserConfigPath(config.LookupFunc(g.io.LookupEnv))
		if p == "" {
			return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set: no place for the user config")
		}
		return p, nil
	case "project":
		dir, err := g.project()
		if err != nil {
			return "", err
		}
		return config.ProjectConfigPath(dir), nil
	}
	return "", usagef("--scope must be user or project, not %q", s.scope)
}

type addOptions struct {
	scopeFlag
	url       string
	transport string
	headers   []string
	env       []string
}

func newAddCmd(g *globalOptions) *cobra.Command {
	var o addOptions
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
			name := args[0]
			entry := edit.EntryFields{URL: o.url}
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				if dash != 1 {
					return usagef("give the server's name before --")
				}
				if len(args) < 2 {
					return usagef("no command after --")
				}
				entry.Command, entry.Args = args[1], args[2:]
			} else if len(args) > 1 {
				return usagef("put the server's command after --: switchboard add %s -- %s", name, strings.Join(args[1:], " "))
			}
			if (entry.Command == "") == (o.url == "") {
				return usagef("give either --url URL or -- COMMAND [ARGS...]")
			}
			switch o.transport {
			case "":
			case "http", "sse":
				if o.url == "" {
					return usagef("--transport is for --url servers")
				}
				entry.Type = config.Transport(o.transport)
			default:
				return usagef("--transport must be http or sse, not %q", o.transport)
			}
			var err error
			if entry.Headers, err = pairs("--header", o.headers); err != nil {
				return err
			}
			if entry.Env, err = pairs("--env", o.env); err != nil {
				return err
			}
			path, err := o.path(g)
			if err != nil {
				return err
			}
			if err := edit.AddServer(path, name, entry); err != nil {
				if errors.Is(err, edit.ErrServerExists) {
					return fmt.Errorf("%w (remove it first, or choose another name)", err)
				}
				return err
			}
			fmt.Fprintf(g.io.Out, "Added %q to %s\n", name, path)
			return nil
		},
	}
	o.scopeFlag.register(cmd)
	cmd.Flags().StringVar(&o.url, "url", "", "the server's `url` (streamable HTTP, or SSE with --transport sse)")
	cmd.Flags().StringVar(&o.transport, "transport", "", "http or sse; without it a url tries streamable HTTP, then SSE")
	cmd.Flags().StringArrayVar(&o.headers, "header", nil, "an HTTP header `K=V` (repeatable)")
	cmd.Flags().StringArrayVar(&o.env, "env", nil, "an environment variable `K=V` for the server (repeatable)")
	return cmd
}

func pairs(flag string, kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("%s %q: want K=V", flag, kv)
		}
		m[k] = v
	}
	return m, nil
}

// newEditCmd builds remove, enable and disable: one name, one edit.
func newEditCmd(g *globalOptions, use, short, done string, change func(path, name string) error) *cobra.Command {
	var s scopeFlag
	cmd := &cobra.Command{
		Use:               use + " NAME",
		Short:             short,
		Example:           "  $ switchboard " + use + " github\n  $ switchboard " + use + " github --scope project",
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeServers(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := s.path(g)
			if err != nil {
				return err
			}
			if err := change(path, args[0]); err != nil {
				if errors.Is(err, edit.ErrNoServer) {
					return fmt.Errorf("%w (only switchboard's own config is edited here; see 'switchboard sources')", err)
				}
				return err
			}
			fmt.Fprintf(g.io.Out, "%s %q in %s\n", done, args[0], path)
			return nil
		},
	}
	s.register(cmd)
	return cmd
}

func newEditCmds(g *globalOptions) []*cobra.Command {
	return []*cobra.Command{
		newAddCmd(g),
		newEditCmd(g, "remove", "Remove a server from your switchboard config", "Removed", edit.RemoveServer),
		newEditCmd(g, "enable", "Enable a server in your switchboard config", "Enabled", g.enable),
		newEditCmd(g, "disable", "Disable a server, here or in another tool's config (it stays listed)", "Disabled", g.disable),
	}
}

// disable turns a server off. One defined only in another tool's config is
// turned off by an entry in ours that claims its name (ours comes first),
// so the other tool's file is never touched.
func (g *globalOptions) disable(path, name string) error {
	err := edit.SetDisabled(path, name, true)
	if !errors.Is(err, edit.ErrNoServer) {
		return err
	}
	src, ok := g.definedElsewhere(name)
	if !ok {
		return err
	}
	if err := edit.ClaimDisabled(path, name); err != nil {
		return err
	}
	g.note(fmt.Sprintf("%q is defined in %s (%s); an entry in %s now keeps it off", name, src.Label(), src, path))
	return nil
}

// enable undoes disable: a claim-only entry is removed, so the other
// tool's definition applies again.
func (g *globalOptions) enable(path, name string) error {
	if claim, err := edit.IsClaim(path, name); err == nil && claim {
		return edit.RemoveServer(path, name)
	}
	return edit.SetDisabled(path, name, false)
}

// definedElsewhere finds a server's definition in any source discovery
// reads, winning or shadowed.
func (g *globalOptions) definedElsewhere(name string) (config.Source, bool) {
	d, err := g.discover(namesOnly)
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
