package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/config/trust"
)

type sourcesOptions struct {
	*Factory
	JSON jsonFlag
}

func newSourcesCmd(f *Factory) *cobra.Command {
	o := &sourcesOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "Show every config file looked at and what each one gave",
		Long: `Show every place switchboard looks for server configs — its own files and
those of Claude Code, Cursor, VS Code and the other tools — in order of
precedence: whether the file exists, the servers it gave, the servers it
lost to an earlier definition of the same name (and why), warnings and
errors. It connects nothing and runs no "!command" values.

A project's config is untrusted until you run 'switchboard trust'; an
untrusted or policy-blocked definition does not take a name from a later
one.`,
		Example: `  $ switchboard sources
  $ switchboard sources --json | jq '.sources[] | select(.found)'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSources(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print JSON: sources, servers, project trust, policy")
	return cmd
}

// runSources reports discovery; it connects nothing and runs no
// "!command" values.
func runSources(ctx context.Context, o *sourcesOptions) error {
	if o.JSON {
		// The daemon's own view, when one runs: what it read last.
		if c := o.attachable(ctx); c != nil {
			defer c.Close()
			raw, err := c.Sources(ctx)
			if err != nil {
				return err
			}
			return writeJSON(o.IO.Out, raw)
		}
	}
	d, err := o.Discover(namesOnly)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, toSourcesJSON(d))
	}
	home, _ := o.IO.LookupEnv("HOME")
	writeSources(o.IO.Out, d, home)
	return nil
}

// sourcesJSON is the --json shape of sources. Like every listing it never
// holds env or header values.
type sourcesJSON struct {
	Project *projectJSON       `json:"project,omitempty"`
	Policy  string             `json:"policy,omitempty"`
	Sources []sourceReportJSON `json:"sources"`
	Servers []discoveredJSON   `json:"servers"`
	Errors  []string           `json:"errors"`
}

type projectJSON struct {
	Dir     string              `json:"dir"`
	Trusted bool                `json:"trusted"`
	Files   []trust.ProjectFile `json:"files"`
}

type sourceReportJSON struct {
	discover.SourceReport
	Servers  []string              `json:"servers"`
	Lost     []discover.LostServer `json:"lost"`
	Warnings []string              `json:"warnings"`
}

// discoveredJSON is one winning definition and its marks.
type discoveredJSON struct {
	Name        string `json:"name"`
	Provider    string `json:"provider"`
	Level       string `json:"level"`
	Source      string `json:"source"`
	Transport   string `json:"transport"`
	Disabled    bool   `json:"disabled"`
	Untrusted   bool   `json:"untrusted"`
	Blocked     string `json:"blocked"`
	DuplicateOf string `json:"duplicateOf"`
	Error       string `json:"error"`
}

func toSourcesJSON(d *discover.Discovery) sourcesJSON {
	out := sourcesJSON{Sources: []sourceReportJSON{}, Servers: []discoveredJSON{}, Errors: []string{}}
	if d.ProjectDir != "" {
		files := d.ProjectFiles
		if files == nil {
			files = []trust.ProjectFile{}
		}
		out.Project = &projectJSON{Dir: d.ProjectDir, Trusted: d.ProjectTrusted, Files: files}
	}
	if d.Policy != nil {
		out.Policy = d.Policy.Path
	}
	for _, s := range d.Sources {
		r := sourceReportJSON{SourceReport: s, Servers: s.Servers, Lost: s.Lost, Warnings: s.Warnings}
		if r.Servers == nil {
			r.Servers = []string{}
		}
		if r.Lost == nil {
			r.Lost = []discover.LostServer{}
		}
		if r.Warnings == nil {
			r.Warnings = []string{}
		}
		out.Sources = append(out.Sources, r)
	}
	for _, c := range d.Servers {
		s := discoveredJSON{
			Name: c.Name, Provider: c.Source.Provider, Level: string(c.Source.Level), Source: c.Source.String(),
			Transport: string(c.TransportKind()), Disabled: c.Disabled, Untrusted: c.Untrusted,
			Blocked: c.Blocked, DuplicateOf: c.DuplicateOf,
		}
		if s.Transport == "" {
			s.Transport = "http"
		}
		if c.Err != nil {
			s.Error = c.Err.Error()
		}
		out.Servers = append(out.Servers, s)
	}
	for _, e := range d.Errors {
		out.Errors = append(out.Errors, e.Error())
	}
	return out
}

// writeSources prints one line per location, with what it lost, its
// warnings and its error indented below, then the project's trust and the
// policy. Names, paths and reasons come from config files and the file
// system, so they are escaped (termsafe) before the columns are measured.
func writeSources(w io.Writer, d *discover.Discovery, home string) {
	marks := map[string]string{}
	for _, c := range d.Servers {
		var m []string
		switch a := c.Admission(); a {
		case config.Admitted:
		case config.AdmitDuplicate:
			m = append(m, "duplicate of "+c.DuplicateOf)
		default:
			m = append(m, a.String())
		}
		if len(m) > 0 {
			marks[c.Source.String()+"\x00"+c.Name] = " (" + strings.Join(m, ", ") + ")"
		}
	}
	byName := map[string]config.ServerConfig{}
	for _, c := range d.Servers {
		byName[c.Name] = c
	}

	type row struct{ provider, level, path, servers string }
	var rows []row
	for _, s := range d.Sources {
		path := tildePath(s.Path, home)
		if s.Key != "" {
			path += " (" + s.Key + " scope)"
		}
		path = termsafe.Line(path)
		servers := "-"
		switch {
		case !s.Found:
			servers = "not found"
		case s.Error != "":
			servers = "error"
		case len(s.Servers) > 0:
			var names []string
			for _, n := range s.Servers {
				c := byName[n]
				names = append(names, n+marks[c.Source.String()+"\x00"+n])
			}
			servers = termsafe.Line(strings.Join(names, ", "))
		}
		rows = append(rows, row{s.Provider, string(s.Level), path, servers})
	}
	wp, wl, wf := len("PROVIDER"), len("LEVEL"), len("FILE")
	for _, r := range rows {
		wp, wl, wf = max(wp, len(r.provider)), max(wl, len(r.level)), max(wf, len(r.path))
	}
	line := func(p, l, f, s string) {
		fmt.Fprintf(w, "%-*s  %-*s  %-*s  %s\n", wp, p, wl, l, wf, f, s)
	}
	line("PROVIDER", "LEVEL", "FILE", "SERVERS")
	for i, r := range rows {
		line(r.provider, r.level, r.path, r.servers)
		s := d.Sources[i]
		for _, l := range s.Lost {
			fmt.Fprintf(w, "    %s: %s\n", termsafe.Line(l.Name), oneLine(l.Reason))
		}
		for _, warn := range s.Warnings {
			fmt.Fprintf(w, "    warning: %s\n", oneLine(warn))
		}
		if s.Error != "" {
			fmt.Fprintf(w, "    error: %s\n", oneLine(s.Error))
		}
	}

	switch {
	case d.ProjectDir == "":
	case d.ProjectTrusted:
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Project %s: trusted.\n", termsafe.Line(d.ProjectDir))
	case len(d.ProjectFiles) > 0:
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Project %s: not trusted; its servers do not start, and yours start in your home directory. Run 'switchboard trust' to allow them.\n", termsafe.Line(d.ProjectDir))
	default:
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Project %s: not trusted; your servers start in your home directory, with the project as a root. Run 'switchboard trust' to start them in it.\n", termsafe.Line(d.ProjectDir))
	}
	if d.Policy != nil {
		fmt.Fprintf(w, "Policy: %s\n", termsafe.Line(d.Policy.Path))
	}
	for _, e := range d.Errors {
		if app.IsSourceError(e) {
			continue // shown with their source
		}
		fmt.Fprintf(w, "error: %s\n", oneLine(e.Error()))
	}
}

// tildePath shortens a path under home to ~/…, as people write it.
func tildePath(path, home string) string {
	if home == "" || home == "/" {
		return path
	}
	if rest, ok := strings.CutPrefix(path, strings.TrimSuffix(home, "/")+"/"); ok {
		return "~/" + rest
	}
	return path
}
