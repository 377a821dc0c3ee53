package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/daemon"
	"github.com/switchboard-mcp/switchboard/host"
)

// The one-shot commands attach to the daemon when one runs (DESIGN.md
// F56): the servers are already connected there, so nothing starts. The
// daemon they look for is the one of their global flags (daemonkey.go).
// They run their own host instead when told to (--no-daemon), and in a
// project that has config files of its own, whose servers a daemon,
// which reads no project unless --project names one, does not run.

// attachable is a client of the daemon the command may attach to, or nil
// when it runs its own host. A daemon that cannot be reached for another
// reason than its absence is said on stderr, once, and not used.
func (f *Factory) attachable(ctx context.Context) *daemon.Client {
	if f.NoDaemon == nil || f.NoDaemon() {
		return nil
	}
	c, err := f.dialDaemon(ctx)
	if err != nil {
		if !errors.Is(err, daemon.ErrNoDaemon) {
			fmt.Fprintf(f.IO.Err, "switchboard: not using the daemon: %s\n", oneLine(err.Error()))
		}
		return nil
	}
	// Only with a daemon there is the project worth reading: without one,
	// the command's own discovery reads it anyway.
	if f.ownServers() {
		c.Close()
		return nil
	}
	return c
}

// ownServers says the command's servers are not a daemon's: it runs in a
// project with config files of its own, and no flag says which project.
func (f *Factory) ownServers() bool {
	if f.GlobalArgs != nil {
		for _, arg := range f.GlobalArgs() {
			name, _, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
			if name == "project" || name == "no-project" || name == "config" {
				return false // the daemon of these flags reads the same
			}
		}
	}
	if f.ScanProject == nil {
		return false
	}
	dir, files, err := f.ScanProject()
	if err != nil {
		return false // no project here
	}
	if home, ok := f.IO.LookupEnv("HOME"); ok && home != "" && dir == filepath.Clean(home) {
		// Home is no project: its files (~/.cursor/mcp.json, …) are the
		// user's own, which the daemon reads.
		return false
	}
	return len(files) > 0
}

// openDaemon is the daemon's catalog for need, or nil when the command
// runs its own host.
func (f *Factory) openDaemon(ctx context.Context, need needs) (catalog, error) {
	c := f.attachable(ctx)
	if c == nil {
		return nil, nil
	}
	d := &daemonCatalog{c: c}
	info, err := c.Info(ctx)
	if err == nil && need.settled {
		err = c.WaitSettled(ctx)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	for _, p := range info.Problems {
		fmt.Fprintf(f.IO.Err, "switchboard: %s\n", oneLine(p)) // the daemon's text: escaped
	}
	return d, nil
}

// daemonCatalog is the daemon's host, through its client. The daemon's
// host names tools as serve does (SERVER__TOOL, host.NoToolPrefix); the
// command line's own host prefixes them (mcp__SERVER__TOOL), and so do
// the tools the commands print from here, so that a listing and a script
// read the same with a daemon and without one. Find takes either.
type daemonCatalog struct{ c *daemon.Client }

func (d *daemonCatalog) Close() error { return d.c.Close() }

func (d *daemonCatalog) Info(ctx context.Context) (catalogInfo, error) {
	in, err := d.c.Info(ctx)
	return catalogInfo{Problems: in.Problems, Demo: in.Demo}, err
}

func (d *daemonCatalog) Status(ctx context.Context) ([]host.Status, error) { return d.c.Status(ctx) }

func (d *daemonCatalog) WaitSettled(ctx context.Context) error { return d.c.WaitSettled(ctx) }

func (d *daemonCatalog) Tools(ctx context.Context, f host.ViewFilter) ([]host.Tool, error) {
	tools, err := d.c.Tools(ctx, f)
	return prefixed(tools), err
}

func (d *daemonCatalog) SearchToolHits(ctx context.Context, f host.ViewFilter, query string, limit int) ([]host.ToolHit, error) {
	hits, err := d.c.SearchToolHits(ctx, f, query, limit)
	for i := range hits {
		hits[i].Tool = prefixed([]host.Tool{hits[i].Tool})[0]
	}
	return hits, err
}

// prefixed names tools as the command line's own host does: a name of
// the form SERVER__TOOL gets host.DefaultToolPrefix; one the host had to
// make up (a collision, a name too long) is left as the daemon has it.
func prefixed(tools []host.Tool) []host.Tool {
	for i := range tools {
		if t := &tools[i]; t.Name == t.Server+"__"+t.Tool {
			t.Name = host.DefaultToolPrefix + t.Name
		}
	}
	return tools
}

func (d *daemonCatalog) Find(ctx context.Context, kind host.Kind, name string) (host.Named, error) {
	return d.c.Find(ctx, kind, name)
}

func (d *daemonCatalog) CallTool(ctx context.Context, exposed string, args any) (*mcp.CallToolResult, error) {
	return d.c.CallTool(ctx, exposed, args)
}

func (d *daemonCatalog) Resources(ctx context.Context) ([]host.Resource, []host.ResourceTemplate, error) {
	return d.c.Resources(ctx)
}

func (d *daemonCatalog) ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	return d.c.ReadResource(ctx, server, uri)
}

func (d *daemonCatalog) Prompts(ctx context.Context) ([]host.Prompt, error) { return d.c.Prompts(ctx) }

func (d *daemonCatalog) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	return d.c.GetPrompt(ctx, server, name, args)
}

func (d *daemonCatalog) Logs(ctx context.Context, server string) ([]host.LogLine, error) {
	return d.c.Logs(ctx, server)
}

func (d *daemonCatalog) Events(ctx context.Context) (<-chan host.Event, error) {
	return d.c.Events(ctx)
}
