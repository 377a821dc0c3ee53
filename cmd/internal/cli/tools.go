package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
)

type toolsOptions struct {
	*Factory
	// Servers, when not empty, lists only these servers' tools.
	Servers []string
	JSON    jsonFlag
	// Wait waits for every server instead of answering at the startup gate.
	Wait bool
	// Search, when not empty, prints only the tools that match it, best
	// first (DESIGN.md, "Tool search").
	Search string
	// Limit caps the matches Search prints; 0 prints every match.
	Limit int
}

func newToolsCmd(f *Factory) *cobra.Command {
	o := &toolsOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "tools [--server NAME]... [--search QUERY]",
		Short: "List the tools the servers offer",
		Long: `List the tools of every server, or of those --server names, under the
names an agent sees.

It answers at the startup gate, as an agent's host would: a slow server's
tools come from the cache and are marked deferred (a call to one waits for
its server). --wait waits for every server instead.

For a --server that failed, its error is printed on stderr and the exit
status is 1; for one that is disabled, blocked or untrusted, a line on
stderr says so. A name no config defines is a usage error (exit 2).

--search ranks the tools by how well their names, parameters and
descriptions match the words of QUERY, or words they imply, and prints
the best --limit of them, best first, each with why it matched in
brackets: the tool's words and the query's they met ("tag ← label
(synonym)"; a bare word is the query's own), so that the query can be
refined; with --json, in each tool's "why". A tool that meets no word
of QUERY is not printed.
When none matches, stderr says so and the exit status is 1, as grep's is
(--json prints []).

A tool whose description, schema or annotations changed since it was
first seen or approved is marked "(changed: description)" ("pin" and
"pinChanged" in --json); on a server with "pinTools": true it is withheld
from agents and clients, and listed here marked "(withheld, …)" until
'switchboard tools approve' accepts it.`,
		Example: `  $ switchboard tools
  $ switchboard tools --server github --json
  $ switchboard tools --wait
  $ switchboard tools --server github || echo "github is down"
  $ switchboard tools --search "open a pull request" --limit 3`,
		Args:              usageArgs(cobra.MaximumNArgs(1)),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := serverArgs(&o.Servers, args); err != nil {
				return err
			}
			if cmd.Flags().Changed("limit") && !cmd.Flags().Changed("search") {
				return usagef("--limit needs --search")
			}
			if o.Limit < 0 {
				return usagef("--limit %d: want 0 or more", o.Limit)
			}
			return runTools(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print JSON, one object per tool")
	addWaitFlag(cmd, &o.Wait, "")
	addServerFlag(cmd, f, &o.Servers, true, "list only the tools of server `NAME`")
	cmd.Flags().StringVar(&o.Search, "search", "", "print the tools that best match `QUERY`, best first")
	cmd.Flags().IntVar(&o.Limit, "limit", 10, "with --search, print at most `N` tools (0: every match)")
	cmd.AddCommand(newApproveCmd(f))
	return cmd
}

func runTools(ctx context.Context, o *toolsOptions) error {
	s, err := o.openCatalog(ctx, needs{servers: o.Servers, settled: o.Wait})
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
	if o.Search != "" {
		return searchTools(ctx, o, s)
	}
	tools, err := s.Tools(ctx, host.ViewFilter{})
	tools = onlyServers(tools, o.Servers, func(t host.Tool) string { return t.Server })
	if err != nil {
		return err
	}
	listed := make([]toolJSON, 0, len(tools))
	for _, t := range tools {
		listed = append(listed, toolJSON{Tool: t})
	}
	listed = append(listed, withheldTools(onlyServers(statuses, o.Servers, func(st host.Status) string { return st.Name }))...)
	if o.JSON {
		return writeJSON(o.IO.Out, listed)
	}
	o.IO.printTools(listed)
	return nil
}

// searchTools prints the tools that best match o.Search, best first, and
// why each matched (the query's words and the tool's they met), so that
// a person or a script can refine the query; --json gives each tool's
// object with "why" beside its fields.
func searchTools(ctx context.Context, o *toolsOptions, s catalog) error {
	hits, err := s.SearchToolHits(ctx, host.ViewFilter{Servers: o.Servers}, o.Search, o.Limit)
	if err != nil {
		return err
	}
	if o.JSON {
		err = writeJSON(o.IO.Out, orEmpty(hits))
	} else {
		o.IO.printHits(hits)
	}
	if err == nil && len(hits) == 0 {
		// Said, not only shown as nothing: an empty answer and a search
		// that found nothing look alike. Exit 1, as grep's.
		if len(o.Servers) > 0 {
			return fmt.Errorf("no tool of %s matches %q", strings.Join(o.Servers, ", "), o.Search)
		}
		return fmt.Errorf("no tool matches %q", o.Search)
	}
	return err
}

// printHits prints a hit a line: its name, why it matched (in
// brackets), and its description's first line.
func (ios IO) printHits(hits []host.ToolHit) {
	tw := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
	for _, h := range hits {
		why := make([]string, len(h.Why))
		for i, m := range h.Why {
			why[i] = m.String()
		}
		fmt.Fprintf(tw, "%s\t[%s]\t%s%s\n", cell(h.Tool.Name), cell(strings.Join(why, ", ")), ios.deferredMark(h.Tool.Deferred), firstLine(h.Tool.Description))
	}
	tw.Flush()
}

func (ios IO) printTools(tools []toolJSON) {
	tw := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
	for _, t := range tools {
		fmt.Fprintf(tw, "%s\t%s%s%s\n", cell(t.Name), ios.deferredMark(t.Deferred), ios.pinMark(t), firstLine(t.Description))
	}
	tw.Flush()
}

// toolJSON is a tool as tools prints it: the host's, or one withheld
// from the host's set (DESIGN.md F66), which only tools shows.
type toolJSON struct {
	host.Tool
	// Withheld says the tool is not offered until it is approved.
	Withheld bool `json:"withheld,omitempty"`
}

// withheldTools are the tools the servers' pinTools withhold, under the
// name they would have, for a person to see what waits for approval.
func withheldTools(statuses []host.Status) []toolJSON {
	var out []toolJSON
	for _, st := range statuses {
		for _, c := range st.Pins {
			if !c.Withheld {
				continue
			}
			out = append(out, toolJSON{Withheld: true, Tool: host.Tool{
				Name: c.Name, Server: st.Name, Tool: c.Tool,
				Description: c.Description, Pin: c.Change, PinChanged: c.What,
			}})
		}
	}
	return out
}

// pinMark marks a tool that is not as first seen or approved: what
// changed, and whether it is withheld until 'tools approve'.
func (ios IO) pinMark(t toolJSON) string {
	if t.Pin == "" {
		return ""
	}
	what := t.Pin
	if len(t.PinChanged) > 0 {
		what += ": " + strings.Join(t.PinChanged, ", ")
	}
	if t.Withheld {
		return paint(ios.color(ios.OutTTY), ansiRed, "(withheld, "+what+") ")
	}
	return paint(ios.color(ios.OutTTY), ansiYellow, "("+what+") ")
}

// deferredMark marks what comes from the cache, its server not
// connected yet: a call, a get or a read waits for it.
func (ios IO) deferredMark(deferred bool) string {
	if !deferred {
		return ""
	}
	return paint(ios.color(ios.OutTTY), ansiYellow, "(deferred) ")
}
