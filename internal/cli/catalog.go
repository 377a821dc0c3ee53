package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
)

func newResourcesCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "resources [SERVER]",
		Short: "List the resources and resource templates the servers offer",
		Example: `  $ switchboard resources
  $ switchboard resources --json | jq -r '.resources[].uri'`,
		Args:              usageArgs(cobra.MaximumNArgs(1)),
		ValidArgsFunction: completeServers(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.startHost(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer s.Close()
			rs, ts := s.Resources()
			if len(args) == 1 {
				if !hasServer(s.Status(), args[0]) {
					return usagef("no server named %q", args[0])
				}
				rs, ts = onlyServer(rs, args[0], func(r host.Resource) string { return r.Server }),
					onlyServer(ts, args[0], func(t host.ResourceTemplate) string { return t.Server })
			}
			if asJSON {
				return writeJSON(g.io.Out, struct {
					Resources []host.Resource         `json:"resources"`
					Templates []host.ResourceTemplate `json:"templates"`
				}{orEmpty(rs), orEmpty(ts)})
			}
			tw := tabwriter.NewWriter(g.io.Out, 0, 4, 2, ' ', 0)
			for _, r := range rs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Server, r.URI, r.MIMEType, firstLine(orName(r.Description, r.Name)))
			}
			for _, t := range ts {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Server, t.URITemplate, t.MIMEType, firstLine(orName(t.Description, t.Name)))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {resources: [...], templates: [...]}")
	return cmd
}

func newReadCmd(g *globalOptions) *cobra.Command {
	var (
		server string
		asJSON bool
		out    string
	)
	cmd := &cobra.Command{
		Use:   "read URI",
		Short: "Read a resource",
		Long: `Read a resource by URI and print its text; binary contents are
summarised, or written to files with --out. The server is found from the
resource lists; name it with --server when the URI is not listed (a
template) or more than one server lists it.`,
		Example: `  $ switchboard read demo://readme
  $ switchboard read file:///tmp/notes.txt --server filesystem`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			uri := args[0]
			s, err := g.startHost(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer s.Close()
			if server == "" {
				if server, err = serverForURI(s.Host, uri); err != nil {
					return err
				}
			}
			res, err := s.ReadResource(cmd.Context(), server, uri)
			if err != nil {
				return fmt.Errorf("server %q: read %s: %w", server, uri, err)
			}
			if asJSON {
				return writeJSON(g.io.Out, res)
			}
			for i, c := range res.Contents {
				if c.Text != "" {
					fmt.Fprintln(g.io.Out, strings.TrimRight(c.Text, "\n"))
					continue
				}
				fmt.Fprintln(g.io.Out, binaryLine(out, "resource", i, c.MIMEType, c.Blob))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "the `server` to read from")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole result as JSON")
	cmd.Flags().StringVar(&out, "out", "", "write binary contents to files in `dir`")
	return cmd
}

// serverForURI finds the one server that lists a resource.
func serverForURI(h *host.Host, uri string) (string, error) {
	rs, _ := h.Resources()
	var found []string
	for _, r := range rs {
		if r.URI == uri {
			found = append(found, r.Server)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", usagef("no server lists %s; name one with --server", uri)
	}
	return "", usagef("%s is listed by %s; choose one with --server", uri, strings.Join(found, ", "))
}

func newPromptsCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "prompts [SERVER]",
		Short:   "List the prompts the servers offer",
		Example: `  $ switchboard prompts`,
		Args:    usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.startHost(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer s.Close()
			ps := s.Prompts()
			if len(args) == 1 {
				if !hasServer(s.Status(), args[0]) {
					return usagef("no server named %q", args[0])
				}
				ps = onlyServer(ps, args[0], func(p host.Prompt) string { return p.Server })
			}
			if asJSON {
				return writeJSON(g.io.Out, orEmpty(ps))
			}
			tw := tabwriter.NewWriter(g.io.Out, 0, 4, 2, ' ', 0)
			for _, p := range ps {
				var argNames []string
				for _, a := range p.Arguments {
					n := a.Name
					if !a.Required {
						n = "[" + n + "]"
					}
					argNames = append(argNames, n)
				}
				fmt.Fprintf(tw, "%s/%s\t%s\t%s\n", p.Server, p.Name, strings.Join(argNames, " "), firstLine(p.Description))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON, one object per prompt")
	return cmd
}

func newPromptCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "prompt [SERVER/]NAME [KEY=VALUE...]",
		Short: "Get a prompt with arguments and print its messages",
		Example: `  $ switchboard prompt greet name=Ada
  $ switchboard prompt demo/greet name=Ada --json`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			promptArgs := map[string]string{}
			for _, p := range args[1:] {
				k, v, ok := strings.Cut(p, "=")
				if !ok || k == "" {
					return usagef("argument %q: want KEY=VALUE", p)
				}
				promptArgs[k] = v
			}
			s, err := g.startHost(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer s.Close()
			server, name, err := resolvePrompt(s.Prompts(), args[0])
			if err != nil {
				return err
			}
			res, err := s.GetPrompt(cmd.Context(), server, name, promptArgs)
			if err != nil {
				return fmt.Errorf("server %q: prompt %q: %w", server, name, err)
			}
			if asJSON {
				return writeJSON(g.io.Out, res)
			}
			for _, m := range res.Messages {
				fmt.Fprintf(g.io.Out, "%s: %s\n", m.Role, contentText(m.Content))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole result as JSON")
	return cmd
}

// resolvePrompt accepts server/name, or a name only one server has.
func resolvePrompt(ps []host.Prompt, arg string) (server, name string, err error) {
	var matches []host.Prompt
	for _, p := range ps {
		if p.Server+"/"+p.Name == arg || p.Name == arg {
			matches = append(matches, p)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0].Server, matches[0].Name, nil
	case 0:
		return "", "", usagef("no prompt named %q (see 'switchboard prompts')", arg)
	}
	var names []string
	for _, p := range matches {
		names = append(names, p.Server+"/"+p.Name)
	}
	return "", "", usagef("prompt %q is ambiguous: %s", arg, strings.Join(names, ", "))
}

func contentText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data))
	case *mcp.EmbeddedResource:
		if c.Resource != nil {
			return fmt.Sprintf("[resource %s]\n%s", c.Resource.URI, c.Resource.Text)
		}
	case *mcp.ResourceLink:
		return "[resource link " + c.URI + "]"
	}
	return ""
}

func onlyServer[T any](items []T, server string, of func(T) string) []T {
	var out []T
	for _, it := range items {
		if of(it) == server {
			out = append(out, it)
		}
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func orName(desc, name string) string {
	if desc != "" {
		return desc
	}
	return name
}
