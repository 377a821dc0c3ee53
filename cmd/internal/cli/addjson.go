package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/source"
)

type addJSONOptions struct {
	*Factory
	Scope string
	Name  string
	Entry string
	JSON  jsonFlag
}

func newAddJSONCmd(f *Factory) *cobra.Command {
	o := &addJSONOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "add-json NAME JSON",
		Short: "Add a server given as a JSON entry to your switchboard config",
		Long: `Add a server to switchboard's own config file from its entry as JSON, as
an MCP client's config or a server's README shows it: {"command": …,
"args": […], "env": {…}} or {"url": …, "headers": {…}}, with any field
switchboard's config takes (type, cwd, disabled, autoApprove, tools,
timeout, …). The entry is checked as switchboard will read it, and one
with a mistake is refused with the field and the reason; a name that
exists already is refused.`,
		Example: `  $ switchboard add-json memory '{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}'
  $ switchboard add-json docs '{"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}'
  $ switchboard add-json memory "$(cat entry.json)" --scope project`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name, o.Entry = args[0], args[1]
			return runAddJSON(cmd.Context(), o)
		},
	}
	addScopeFlag(cmd, &o.Scope)
	addJSONFlag(cmd, &o.JSON, "print what changed as JSON: {action, server, file, scope}")
	return cmd
}

func runAddJSON(_ context.Context, o *addJSONOptions) error {
	raw, err := checkEntryJSON(o.Name, []byte(o.Entry))
	if err != nil {
		return err
	}
	return o.addEntry(o.Scope, o.Name, o.JSON, func(path string) error { return o.Edit.AddServerJSON(path, o.Name, raw) })
}

// checkEntryJSON reads data as our own config reads an entry, and
// validates it with its variables filled in: a usage error naming the
// field when it is not a server switchboard could start.
func checkEntryJSON(name string, data []byte) (json.RawMessage, error) {
	data = bytes.TrimSpace(data)
	if !json.Valid(data) || len(data) == 0 || data[0] != '{' {
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			err = errors.New("want an object, {\"command\": …} or {\"url\": …}")
		}
		return nil, usagef("the entry is not a JSON object: %v", err)
	}
	key, _ := json.Marshal(name)
	doc := []byte(`{"mcpServers": {` + string(key) + `: ` + string(data) + `}}`)
	entries, _, err := source.Native.Parse(source.Location{Path: "JSON", Level: config.LevelUser}, doc, source.Env{})
	if err == nil && len(entries) != 1 {
		err = errors.New("want exactly one entry")
	}
	if err != nil {
		return nil, usagef("%v", err)
	}
	e := entries[0]
	if e.Config.Err != nil {
		return nil, usagef("%v", entryError(e.Config.Err))
	}
	// Variables stand for a value (0, which a port takes too): what is
	// checked is the entry's shape, not this machine's environment.
	if err := e.Substitute(func(string) (string, bool) { return "0", true }); err != nil {
		return nil, usagef("%v", entryError(err))
	}
	if err := config.Validate(&e.Config); err != nil {
		return nil, usagef("%v", entryError(e.Locate(err)))
	}
	return json.RawMessage(data), nil
}

// entryError is a diagnostic without the made-up file around the entry.
func entryError(err error) error {
	var d *config.Diagnostic
	if errors.As(err, &d) {
		if d.Field != "" {
			return fmt.Errorf("%s: %s", d.Field, d.Message)
		}
		return errors.New(d.Message)
	}
	return err
}
