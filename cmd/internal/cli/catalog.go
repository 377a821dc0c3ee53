package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/host"
)

type resourcesOptions struct {
	*Factory
	// Servers, when not empty, lists only these servers' resources.
	Servers []string
	JSON    jsonFlag
	// Wait is accepted for likeness: resources wait for every server.
	Wait bool
}

func newResourcesCmd(f *Factory) *cobra.Command {
	o := &resourcesOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "resources [--server NAME]...",
		Short: "List the resources and resource templates the servers offer",
		Long: `List the resources and resource templates of every server, or of those
--server names, once every server has connected or failed.`,
		Example: `  $ switchboard resources
  $ switchboard resources --server demo
  $ switchboard resources --json | jq -r '.resources[].uri'`,
		Args:              usageArgs(cobra.MaximumNArgs(1)),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := serverArgs(&o.Servers, args); err != nil {
				return err
			}
			return runResources(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print JSON: {resources: [...], templates: [...]}")
	addWaitFlag(cmd, &o.Wait, "resources are not cached")
	addServerFlag(cmd, f, &o.Servers, true, "list only the resources of server `NAME`")
	return cmd
}

func runResources(ctx context.Context, o *resourcesOptions) error {
	s, err := o.openCatalog(ctx, needs{servers: o.Servers, settled: true})
	if err != nil {
		return err
	}
	defer s.Close()
	rs, ts, err := s.Resources(ctx)
	if err != nil {
		return err
	}
	statuses, err := s.Status(ctx)
	if err != nil {
		return err
	}
	if err := o.IO.requireServers(statuses, o.Servers); err != nil {
		return err
	}
	rs, ts = onlyServers(rs, o.Servers, func(r host.Resource) string { return r.Server }),
		onlyServers(ts, o.Servers, func(t host.ResourceTemplate) string { return t.Server })
	if o.JSON {
		return writeJSON(o.IO.Out, struct {
			Resources []host.Resource         `json:"resources"`
			Templates []host.ResourceTemplate `json:"templates"`
		}{orEmpty(rs), orEmpty(ts)})
	}
	tw := tabwriter.NewWriter(o.IO.Out, 0, 4, 2, ' ', 0)
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\n", cell(r.Server), cell(r.URI), cell(r.MIMEType), o.IO.deferredMark(r.Deferred), firstLine(orName(r.Description, r.Name)))
	}
	for _, t := range ts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\n", cell(t.Server), cell(t.URITemplate), cell(t.MIMEType), o.IO.deferredMark(t.Deferred), firstLine(orName(t.Description, t.Name)))
	}
	return tw.Flush()
}

type readOptions struct {
	*Factory
	URI string
	// Server is the server to read from; empty means the one server that
	// lists URI.
	Server string
	JSON   jsonFlag
	// Wait is accepted for likeness: read waits for every server.
	Wait bool
	// OutDir, when set, receives binary contents.
	OutDir string
	// Raw prints text contents as the server sent them, control
	// characters included, instead of escaped.
	Raw bool
}

func newReadCmd(f *Factory) *cobra.Command {
	o := &readOptions{Factory: f}
	var servers []string
	cmd := &cobra.Command{
		Use:   "read URI",
		Short: "Read a resource",
		Long: `Read a resource by URI and print its text; binary contents are
summarised, or written to files with --out. The server is found from the
resource lists; name it with --server when the URI is not listed (a
template) or more than one server lists it.

Control characters in the text (escape sequences, carriage returns) are
shown escaped, as \x1b, so a resource cannot drive your terminal; --raw
prints the text exactly as the server sent it, and --json the whole
result with every value exact.

` + outHelp,
		Example: `  $ switchboard read demo://readme
  $ switchboard read file:///tmp/notes.txt --server filesystem`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.URI = args[0]
			var err error
			if o.Server, err = oneServer(servers); err != nil {
				return err
			}
			return runRead(cmd.Context(), o)
		},
	}
	addServerFlag(cmd, f, &servers, false, "read from server `NAME`: needed when URI is a template's, or several servers list it")
	addWaitFlag(cmd, &o.Wait, "the resource lists say which server has URI")
	addJSONFlag(cmd, &o.JSON, "print the whole result as JSON")
	cmd.Flags().StringVar(&o.OutDir, "out", "", "write binary contents to new files in `dir` (never overwriting)")
	cmd.Flags().BoolVar(&o.Raw, "raw", false, "print text exactly as the server sent it, control characters included")
	return cmd
}

func runRead(ctx context.Context, o *readOptions) error {
	need := needs{settled: true}
	if o.Server != "" {
		need.servers = []string{o.Server}
	}
	s, err := o.openCatalog(ctx, need)
	if err != nil {
		return err
	}
	defer s.Close()
	server := o.Server
	if server == "" {
		rs, _, err := s.Resources(ctx)
		if err != nil {
			return err
		}
		if server, err = serverForURI(rs, o.URI); err != nil {
			return err
		}
	}
	res, err := s.ReadResource(ctx, server, o.URI)
	if err != nil {
		return fmt.Errorf("server %q: read %s: %w", server, o.URI, err)
	}
	if o.JSON {
		return writeJSON(o.IO.Out, res)
	}
	for i, c := range res.Contents {
		if c.Text != "" {
			fmt.Fprintln(o.IO.Out, payload(strings.TrimRight(c.Text, "\n"), o.Raw))
			continue
		}
		fmt.Fprintln(o.IO.Out, binaryLine(o.OutDir, "resource", i, c.MIMEType, c.Blob))
	}
	return nil
}

// serverForURI finds the one server that lists a resource.
func serverForURI(rs []host.Resource, uri string) (string, error) {
	r, err := resolveOne(rs,
		func(r host.Resource) bool { return r.URI == uri },
		func(r host.Resource) string { return r.Server },
		usagef("no server lists %s; name one with --server", uri),
		func(servers string) error {
			return usagef("%s is listed by %s; choose one with --server", uri, servers)
		})
	return r.Server, err
}

type promptsOptions struct {
	*Factory
	// Servers, when not empty, lists only these servers' prompts.
	Servers []string
	JSON    jsonFlag
	// Wait is accepted for likeness: prompts wait for every server.
	Wait bool
}

func newPromptsCmd(f *Factory) *cobra.Command {
	o := &promptsOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "prompts [--server NAME]...",
		Short: "List the prompts the servers offer",
		Long: `List the prompts of every server, or of those --server names, with their
arguments ([optional] ones in brackets), once every server has connected
or failed.`,
		Example: `  $ switchboard prompts
  $ switchboard prompts --server demo --json`,
		Args:              usageArgs(cobra.MaximumNArgs(1)),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := serverArgs(&o.Servers, args); err != nil {
				return err
			}
			return runPrompts(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print JSON, one object per prompt")
	addWaitFlag(cmd, &o.Wait, "prompts are not cached")
	addServerFlag(cmd, f, &o.Servers, true, "list only the prompts of server `NAME`")
	return cmd
}

func runPrompts(ctx context.Context, o *promptsOptions) error {
	s, err := o.openCatalog(ctx, needs{servers: o.Servers, settled: true})
	if err != nil {
		return err
	}
	defer s.Close()
	statuses, err := s.Status(ctx)
	if err != nil {
		return err
	}
	if err := o.IO.requireServers(statuses, o.Servers); err != nil {
		return err
	}
	ps, err := s.Prompts(ctx)
	if err != nil {
		return err
	}
	ps = onlyServers(ps, o.Servers, func(p host.Prompt) string { return p.Server })
	if o.JSON {
		return writeJSON(o.IO.Out, orEmpty(ps))
	}
	tw := tabwriter.NewWriter(o.IO.Out, 0, 4, 2, ' ', 0)
	for _, p := range ps {
		var argNames []string
		for _, a := range p.Arguments {
			n := a.Name
			if !a.Required {
				n = "[" + n + "]"
			}
			argNames = append(argNames, n)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\n", cell(p.Server), cell(p.Name), cell(strings.Join(argNames, " ")), o.IO.deferredMark(p.Deferred), firstLine(p.Description))
	}
	return tw.Flush()
}

type promptOptions struct {
	*Factory
	// Name is any name the prompt is shown under (host.Find), or a name
	// only one server has.
	Name string
	// Server, when set, is the server whose prompt Name is: needed when
	// more than one server has a prompt of that name.
	Server string
	// Wait is accepted for likeness: prompt waits for every server.
	Wait bool
	// Pairs are the prompt's KEY=VALUE arguments.
	Pairs []string
	JSON  jsonFlag
}

func newPromptCmd(f *Factory) *cobra.Command {
	o := &promptOptions{Factory: f}
	var servers []string
	cmd := &cobra.Command{
		Use:   "prompt NAME [KEY=VALUE...] [--server SERVER]",
		Short: "Get a prompt with arguments and print its messages",
		Long: `Get a prompt by any name it is shown under: demo/greet (as 'switchboard
prompts' lists it), mcp__demo__greet or demo__greet (as 'switchboard
serve' does); or by its own name when no other server has a prompt of
that name, else with --server. Its arguments come as KEY=VALUE pairs (a
key given twice is refused); its messages are printed.

Only the prompt's server is started when its name or --server says which
it is; a prompt's own name alone starts every server, to find it.`,
		Example: `  $ switchboard prompt greet name=Ada
  $ switchboard prompt greet name=Ada --server demo --json`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name, o.Pairs = args[0], args[1:]
			var err error
			if o.Server, err = oneServer(servers); err != nil {
				return err
			}
			return runPrompt(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print the whole result as JSON")
	addServerFlag(cmd, f, &servers, false, "get the prompt of server `SERVER`: needed when several servers have a prompt called NAME")
	addWaitFlag(cmd, &o.Wait, "the prompt lists say which server has NAME")
	return cmd
}

func runPrompt(ctx context.Context, o *promptOptions) error {
	promptArgs, err := parsePairs(o.Pairs, "argument")
	if err != nil {
		return err
	}
	name := o.Name
	need := needs{settled: true}
	if o.Server != "" {
		need.servers = []string{o.Server}
		if !strings.Contains(name, "/") && !strings.Contains(name, "__") {
			name = o.Server + "/" + name
		}
	}
	// Only the prompt's server starts, when its name or --server says
	// which it is.
	need.find = &named{host.KindPrompt, name}
	s, err := o.openCatalog(ctx, need)
	if err != nil {
		return err
	}
	defer s.Close()
	if o.Server != "" {
		statuses, err := s.Status(ctx)
		if err != nil {
			return err
		}
		if err := o.IO.requireServer(statuses, o.Server); err != nil {
			return err
		}
	}
	p, err := s.Find(ctx, host.KindPrompt, name)
	if err != nil {
		return nameMistake(err)
	}
	res, err := s.GetPrompt(ctx, p.Server, p.Name, promptArgs)
	if err != nil {
		return fmt.Errorf("server %q: prompt %q: %w", p.Server, p.Name, err)
	}
	if o.JSON {
		return writeJSON(o.IO.Out, res)
	}
	for _, m := range res.Messages {
		fmt.Fprintf(o.IO.Out, "%s: %s\n", termsafe.Line(string(m.Role)), contentText(m.Content))
	}
	return nil
}

// contentText is a prompt message's content for a person, escaped.
func contentText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return termsafe.Text(c.Text)
	case *mcp.ImageContent:
		return fmt.Sprintf("[image %s, %d bytes]", termsafe.Line(c.MIMEType), len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes]", termsafe.Line(c.MIMEType), len(c.Data))
	case *mcp.EmbeddedResource:
		if c.Resource != nil {
			return fmt.Sprintf("[resource %s]\n%s", termsafe.Line(c.Resource.URI), termsafe.Text(c.Resource.Text))
		}
	case *mcp.ResourceLink:
		return "[resource link " + termsafe.Line(c.URI) + "]"
	}
	return ""
}

func orName(desc, name string) string {
	if desc != "" {
		return desc
	}
	return name
}
