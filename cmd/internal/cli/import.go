package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/edit"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

type importOptions struct {
	*Factory
	App     string
	Disable bool
	Undo    bool
	JSON    jsonFlag
}

func newImportCmd(f *Factory) *cobra.Command {
	o := &importOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "import APP",
		Short: "Copy a client app's own servers into switchboard's config",
		Long: `Copy the servers a client app defines in its own config file into
switchboard's user config, so that they live in one place. A name
switchboard's config has already is skipped, and said so. Variables are
rewritten in switchboard's ${NAME} form; a server that uses what only the
app can resolve (a VS Code input, a file reference) is skipped, and said
so. The app's file is not changed.

With --disable, the servers copied (and those skipped because switchboard
has them) are also turned off in the app, by the app's own switch, so that
an app connected to switchboard does not run each twice: Windsurf's
"disabled": true, Codex's enabled = false, Zed's and opencode's "enabled":
false, Gemini CLI's "mcp": {"excluded": […]} list. Claude Code (user
scope), Claude Desktop, Cursor and VS Code have no such switch in their
files; import says so and leaves them. --undo removes the switch again.`,
		Example: `  $ switchboard import cursor
  $ switchboard import windsurf --disable
  $ switchboard import windsurf --undo`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeClients,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.App = args[0]
			if o.Disable && o.Undo {
				return usagef("give --disable or --undo, not both")
			}
			return runImport(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.Disable, "disable", false, "also turn the servers off in the app, by its own switch")
	cmd.Flags().BoolVar(&o.Undo, "undo", false, "turn the servers switchboard's config has on in the app again (undoes --disable)")
	cmd.Flags().BoolVar(&o.Undo, "enable", false, "the same as --undo")
	addJSONFlag(cmd, &o.JSON, "print what was done as JSON: {app, file, config, imported, skipped, disabled, enabled}")
	return cmd
}

// importJSON is what import did.
type importJSON struct {
	App  string `json:"app"`
	File string `json:"file"`
	// Config is switchboard's user config the servers went to.
	Config   string        `json:"config"`
	Imported []string      `json:"imported"`
	Skipped  []skippedJSON `json:"skipped"`
	// Disabled and Enabled are the servers turned off (--disable) or on
	// (--undo) in the app.
	Disabled []string `json:"disabled"`
	Enabled  []string `json:"enabled"`
}

type skippedJSON struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

func runImport(_ context.Context, o *importOptions) error {
	c, err := lookupClient(o.App)
	if err != nil {
		return err
	}
	path, err := o.clientFile(c)
	if err != nil {
		return err
	}
	if !fileExists(path) {
		return fmt.Errorf("%s has no config file (%s): nothing to import", c.Name, path)
	}
	own, _, err := appServers(c, path)
	if err != nil {
		return err
	}
	ours, err := o.ConfigPath("user")
	if err != nil {
		return err
	}
	have, err := ourNames(ours)
	if err != nil {
		return err
	}
	out := importJSON{App: c.ID, File: path, Config: ours, Imported: []string{}, Skipped: []skippedJSON{}, Disabled: []string{}, Enabled: []string{}}
	if o.Undo {
		for _, e := range own {
			if e.Config.Disabled && slices.Contains(have, e.Config.Name) && c.HasSwitch() {
				if err := c.SetDisabled(path, e.Config.Name, false); err != nil {
					return err
				}
				out.Enabled = append(out.Enabled, e.Config.Name)
			}
		}
		return o.report(c, out)
	}
	var toDisable []string
	for _, e := range own {
		name := e.Config.Name
		if slices.Contains(have, name) {
			out.Skipped = append(out.Skipped, skippedJSON{name, "switchboard's config has a server of that name"})
			toDisable = append(toDisable, name)
			continue
		}
		raw, why := portable(e)
		if why != "" {
			out.Skipped = append(out.Skipped, skippedJSON{name, why})
			continue
		}
		if err := o.Edit.AddServerJSON(ours, name, raw); err != nil {
			return err
		}
		out.Imported = append(out.Imported, name)
		toDisable = append(toDisable, name)
	}
	if o.Disable && c.HasSwitch() {
		for _, name := range toDisable {
			if i := slices.IndexFunc(own, func(e source.Entry) bool { return e.Config.Name == name }); own[i].Config.Disabled {
				continue
			}
			if err := c.SetDisabled(path, name, true); err != nil {
				return err
			}
			out.Disabled = append(out.Disabled, name)
		}
	}
	return o.report(c, out)
}

func (o *importOptions) report(c *edit.Client, out importJSON) error {
	if o.JSON {
		return writeJSON(o.IO.Out, out)
	}
	w := o.IO.Out
	switch {
	case o.Undo && !c.HasSwitch():
		fmt.Fprintf(w, "%s has no setting that turns one server off: nothing to turn on\n", c.Name)
	case o.Undo && len(out.Enabled) == 0:
		fmt.Fprintf(w, "Nothing to turn on in %s\n", c.Name)
	case o.Undo:
		fmt.Fprintf(w, "Turned on in %s: %s\n", c.Name, termsafe.Line(strings.Join(out.Enabled, ", ")))
		return nil
	case len(out.Imported) == 0:
		fmt.Fprintf(w, "Imported nothing from %s into %s\n", c.Name, termsafe.Line(out.Config))
	default:
		fmt.Fprintf(w, "Imported %d from %s into %s: %s\n", len(out.Imported), c.Name, termsafe.Line(out.Config), termsafe.Line(strings.Join(out.Imported, ", ")))
	}
	for _, s := range out.Skipped {
		fmt.Fprintf(w, "Skipped %q: %s\n", termsafe.Line(s.Name), termsafe.Line(s.Reason))
	}
	switch {
	case !o.Disable:
	case !c.HasSwitch():
		fmt.Fprintf(o.IO.Err, "note: %s has no setting that turns one server off; its servers stay on there (remove them from %s by hand to run each once)\n", c.Name, termsafe.Line(out.File))
	case len(out.Disabled) > 0:
		fmt.Fprintf(w, "Turned off in %s: %s ('switchboard import %s --undo' turns them on again)\n", c.Name, termsafe.Line(strings.Join(out.Disabled, ", ")), c.ID)
	}
	return nil
}

// ourNames are the server names switchboard's user config defines.
func ourNames(path string) ([]string, error) {
	data, err := safefile.ReadLimited(path, safefile.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	entries, _, err := source.Native.Parse(source.Location{Path: path, Level: config.LevelUser}, data, source.Env{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Config.Name)
	}
	return names, nil
}

// portableEnv is the environment an app's entries are read in for import:
// the home directory an editor's ${userHome} names is ours, ${HOME}, and
// there is no project (a user-level server that names one cannot move).
var portableEnv = source.Env{Home: "${HOME}", Lookup: func(string) (string, bool) { return "", false }}

// importedEntry is an entry of our own file, fields in the order people
// write them.
type importedEntry struct {
	Type           string             `json:"type,omitempty"`
	Command        string             `json:"command,omitempty"`
	Args           []string           `json:"args,omitempty"`
	Env            map[string]string  `json:"env,omitempty"`
	Cwd            string             `json:"cwd,omitempty"`
	URL            string             `json:"url,omitempty"`
	Headers        map[string]string  `json:"headers,omitempty"`
	Disabled       bool               `json:"disabled,omitempty"`
	StartupTimeout string             `json:"startupTimeout,omitempty"`
	Timeout        string             `json:"timeout,omitempty"`
	AutoApprove    []string           `json:"autoApprove,omitempty"`
	Tools          *config.ToolFilter `json:"tools,omitempty"`
}

// portable is e as an entry of our own file, or why it cannot be one.
// Each reference of the app's own syntax (${env:X}, {env:X}, $X, Codex's
// env_vars) becomes ours, ${X}: the entry is resolved with every variable
// standing for its own reference. A value that starts with "!" is
// literal in the app's file and a command in ours, so it is written "!!".
func portable(e source.Entry) (json.RawMessage, string) {
	if e.Config.Err != nil {
		return nil, "the app's entry is invalid: " + oneLine(e.Config.Err.Error())
	}
	if err := e.Substitute(func(name string) (string, bool) { return "${" + name + "}", true }); err != nil {
		return nil, "it uses what only the app can resolve: " + oneLine(err.Error())
	}
	c := e.Config
	bang := func(m map[string]string) map[string]string {
		for k, v := range m {
			if strings.HasPrefix(v, "!") {
				m[k] = "!" + v
			}
		}
		return m
	}
	out := importedEntry{
		Type: string(c.Type), Command: c.Command, Args: c.Args, Env: bang(c.Env), Cwd: c.Cwd,
		URL: c.URL, Headers: bang(c.Headers), Disabled: c.Disabled, AutoApprove: c.AutoApprove,
	}
	if c.StartupTimeout > 0 {
		out.StartupTimeout = c.StartupTimeout.String()
	}
	if c.Timeout > 0 {
		out.Timeout = c.Timeout.String()
	}
	if len(c.Tools.Allow)+len(c.Tools.Deny) > 0 {
		out.Tools = &c.Tools
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, err.Error()
	}
	return data, ""
}
