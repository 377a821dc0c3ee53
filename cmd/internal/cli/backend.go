package cli

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// catalog is what the one-shot commands (list, tools, call, resources,
// read, prompts, prompt, logs, bare switchboard) read and call: the
// servers' states, tools, resources, prompts and logs. Today it is a host
// this process starts (localCatalog); its methods are shaped so that a
// client of a host running elsewhere (a daemon's) is one too, with at most
// a thin adapter. openCatalog is the one place that chooses.
type catalog interface {
	// Close ends what opening started; for a local host, its servers.
	Close() error
	// Info is what loading the configs found that the servers' states do
	// not say.
	Info(ctx context.Context) (catalogInfo, error)
	Status(ctx context.Context) ([]host.Status, error)
	// WaitSettled waits until no server is connecting.
	WaitSettled(ctx context.Context) error
	Tools(ctx context.Context, f host.ViewFilter) ([]host.Tool, error)
	// SearchToolHits are the limit tools f shows that best match query,
	// best first, with why each matched.
	SearchToolHits(ctx context.Context, f host.ViewFilter, query string, limit int) ([]host.ToolHit, error)
	Find(ctx context.Context, kind host.Kind, name string) (host.Named, error)
	// CallTool calls a tool by its exposed name; progress comes through
	// host.WithProgress(ctx, fn).
	CallTool(ctx context.Context, exposed string, args any) (*mcp.CallToolResult, error)
	Resources(ctx context.Context) ([]host.Resource, []host.ResourceTemplate, error)
	ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error)
	Prompts(ctx context.Context) ([]host.Prompt, error)
	GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.GetPromptResult, error)
	// Logs are a server's recent log lines, oldest first; none for a
	// server it does not have.
	Logs(ctx context.Context, server string) ([]host.LogLine, error)
	// Events are the host's events from now on (for a local catalog
	// opened with needs.events, from before its servers started), until
	// Close.
	Events(ctx context.Context) (<-chan host.Event, error)
}

// catalogInfo is what loading the configs found besides the servers.
type catalogInfo struct {
	// Problems are the config files that could not be read, one line
	// each: the health checks exit 1 for them.
	Problems []string
	// Demo says no config was found and the bundled demo stands in.
	Demo bool
}

// needs are what a command needs of its catalog: which servers, and how
// far started.
type needs struct {
	// servers, when not nil, are the only servers a local catalog starts
	// (and has: the others are not in its Status); nil starts every one.
	// A name no config defines is left out, for the command's own "no
	// server named" to say.
	servers []string
	// settled waits for every server started to connect or fail, for
	// commands that need final states rather than the startup gate's.
	settled bool
	// listed waits, beyond the gate, until the connected servers'
	// resources and prompts are listed (list's counts).
	listed bool
	// events subscribes before anything starts, so that Events misses
	// nothing of the start (logs -f).
	events bool
	// find, when set, is the name of the one tool or prompt the command
	// is about (call, prompt): a local catalog without servers starts
	// only those of what it names (host.ServersFor: the tool cache, the
	// server a name spells), and every server when the name names nothing
	// among them, so that "did you mean" sees every name.
	find *named
	// quiet shows no progress while servers start: the command's own
	// output is about one server (logs).
	quiet bool
}

// named is a name a person gave for a tool or a prompt.
type named struct {
	kind host.Kind
	name string
}

// openCatalog is what every one-shot command reads and calls through: the
// daemon's host when one runs and the command may attach (attach.go), else
// a host started here from the configs, with only the servers need names.
// The caller closes it.
func (f *Factory) openCatalog(ctx context.Context, need needs) (catalog, error) {
	if c, err := f.openDaemon(ctx, need); c != nil || err != nil {
		return c, err
	}
	return f.startHost(ctx, need)
}

// localCatalog is a host started from the configs (startHost).
type localCatalog struct {
	h      *host.Host
	loaded *app.Loaded
	// sub, with needs.events, was subscribed before the servers started.
	sub *host.Subscription
}

func (s *localCatalog) Close() error {
	if s.sub != nil {
		s.sub.Close()
	}
	return s.h.Close()
}

func (s *localCatalog) Info(context.Context) (catalogInfo, error) {
	info := catalogInfo{Demo: s.loaded.Demo}
	for _, p := range s.loaded.Problems {
		info.Problems = append(info.Problems, oneLine(p.Error()))
	}
	return info, nil
}

// Status is the host's, with what the configs know of a transport that the
// host cannot (fillTransports).
func (s *localCatalog) Status(context.Context) ([]host.Status, error) {
	statuses := s.h.Status()
	fillTransports(s.loaded, statuses)
	return statuses, nil
}

func (s *localCatalog) WaitSettled(ctx context.Context) error { return s.h.WaitSettled(ctx) }

func (s *localCatalog) Tools(_ context.Context, f host.ViewFilter) ([]host.Tool, error) {
	if isZeroFilter(f) {
		return s.h.Tools().Tools, nil
	}
	return s.h.View(f).Tools().Tools, nil
}

func (s *localCatalog) SearchToolHits(_ context.Context, f host.ViewFilter, query string, limit int) ([]host.ToolHit, error) {
	if isZeroFilter(f) {
		return s.h.SearchToolHits(query, limit), nil
	}
	return s.h.View(f).SearchToolHits(query, limit), nil
}

func isZeroFilter(f host.ViewFilter) bool {
	return len(f.Servers) == 0 && len(f.Tools.Allow) == 0 && len(f.Tools.Deny) == 0
}

func (s *localCatalog) Find(_ context.Context, kind host.Kind, name string) (host.Named, error) {
	return s.h.Find(kind, name)
}

func (s *localCatalog) CallTool(ctx context.Context, exposed string, args any) (*mcp.CallToolResult, error) {
	return s.h.CallTool(ctx, exposed, args)
}

func (s *localCatalog) Resources(context.Context) ([]host.Resource, []host.ResourceTemplate, error) {
	rs, ts := s.h.Resources()
	return rs, ts, nil
}

func (s *localCatalog) ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	return s.h.ReadResource(ctx, server, uri)
}

func (s *localCatalog) Prompts(context.Context) ([]host.Prompt, error) { return s.h.Prompts(), nil }

func (s *localCatalog) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	return s.h.GetPrompt(ctx, server, name, args)
}

func (s *localCatalog) Logs(_ context.Context, server string) ([]host.LogLine, error) {
	lines, _ := s.h.Logs(server)
	return lines, nil
}

func (s *localCatalog) Events(context.Context) (<-chan host.Event, error) {
	if s.sub == nil {
		s.sub = s.h.Subscribe()
	}
	return s.sub.C, nil
}

// onlyConfigs keeps the configs of the servers named, in the configs'
// order; nil names keep every config.
func onlyConfigs(configs []config.ServerConfig, names []string) []config.ServerConfig {
	if names == nil {
		return configs
	}
	var out []config.ServerConfig
	for _, c := range configs {
		if slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// exceptConfigs is onlyConfigs' complement: the configs of the servers
// not named.
func exceptConfigs(configs []config.ServerConfig, names []string) []config.ServerConfig {
	var out []config.ServerConfig
	for _, c := range configs {
		if !slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// problems is Info's, for the health checks' exit codes.
func problems(ctx context.Context, c catalog) ([]string, error) {
	info, err := c.Info(ctx)
	return info.Problems, err
}
