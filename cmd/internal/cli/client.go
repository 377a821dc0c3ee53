package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/config/edit"
	"github.com/switchboard-mcp/switchboard/config/source"
)

// clientEntry is the name of the entry 'client connect' writes.
const clientEntry = "switchboard"

type clientOptions struct {
	*Factory
	App string
	// Command is the switchboard binary the entry runs; "" is this one.
	Command string
	JSON    jsonFlag
}

func newClientCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "client",
		Short: "Connect MCP client apps to switchboard (writes their own config)",
		Long: `Connect an MCP client app to switchboard: 'client connect APP' writes the
entry that starts 'switchboard serve' into the app's own config file, so
the app sees every server switchboard serves. Comments and layout of the
file are kept; 'client disconnect APP' removes the entry and gives the
file back as it was. Nothing is started: the app starts switchboard the
next time it starts its servers.

Apps: ` + strings.Join(clientIDs(), ", ") + `.`,
		Example: `  $ switchboard client list
  $ switchboard client connect claude-desktop
  $ switchboard client connect cursor --command ~/bin/switchboard
  $ switchboard client disconnect cursor`,
		Args: noSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newClientListCmd(f), newClientConnectCmd(f), newClientDisconnectCmd(f))
	return cmd
}

func clientIDs() []string {
	var ids []string
	for _, c := range edit.AllClients() {
		ids = append(ids, c.ID)
	}
	return ids
}

// completeClients completes an app's ID.
func completeClients(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return clientIDs(), cobra.ShellCompDirectiveNoFileComp
}

// lookupClient is the app named id, or a usage error listing them.
func lookupClient(id string) (*edit.Client, error) {
	if c := edit.ClientByID(id); c != nil {
		return c, nil
	}
	return nil, usagef("unknown app %q; known apps: %s", termsafe.Line(id), strings.Join(clientIDs(), ", "))
}

// sourceEnv is the environment app files are found in.
func (f *Factory) sourceEnv() source.Env {
	home, _ := f.IO.LookupEnv("HOME")
	return source.Env{Home: home, Lookup: f.IO.LookupEnv}
}

// clientFile is the app's file, or an error when there is no home to
// find it in.
func (f *Factory) clientFile(c *edit.Client) (string, error) {
	if p := c.Path(f.sourceEnv()); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("%s: HOME is not set, so its config file cannot be found", c.Name)
}

// appServers reads the app's file: its own servers, and the names of the
// entries that start switchboard serve.
func appServers(c *edit.Client, path string) (own []source.Entry, links []string, err error) {
	entries, err := c.Entries(path, portableEnv)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if discover.StartsSwitchboardServe(e.Config.Command, e.Config.Args) {
			links = append(links, e.Config.Name)
			continue
		}
		own = append(own, e)
	}
	return own, links, nil
}

func entryNames(entries []source.Entry) []string {
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Config.Name
	}
	return names
}

// clientJSON is one app in 'client list --json', and what connect and
// disconnect did.
type clientJSON struct {
	App  string `json:"app"`
	Name string `json:"name"`
	File string `json:"file"`
	// Exists says whether the file is there.
	Exists bool `json:"exists"`
	// Connected: an entry of the file starts switchboard serve.
	Connected bool `json:"connected"`
	// Servers are the app's own servers, not switchboard.
	Servers []string `json:"servers"`
	// Action is connected, disconnected or unchanged (connect and
	// disconnect only).
	Action string `json:"action,omitempty"`
	// Command is the binary the entry runs (connect only).
	Command string `json:"command,omitempty"`
	// Error is why the file could not be read.
	Error string `json:"error,omitempty"`
}

func newClientListCmd(f *Factory) *cobra.Command {
	o := &clientOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the client apps, their config files and whether they are connected",
		Long: `List every client app switchboard can connect: its config file, whether
the file has an entry that starts 'switchboard serve', and how many
servers of its own it defines (each of those would run twice: in the app
and in switchboard; see 'switchboard import').`,
		Example: `  $ switchboard client list
  $ switchboard client list --json | jq -r '.[] | select(.connected) | .app'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runClientList(cmd.Context(), o) },
	}
	addJSONFlag(cmd, &o.JSON, "print the apps as JSON: [{app, name, file, exists, connected, servers, error}]")
	return cmd
}

func runClientList(_ context.Context, o *clientOptions) error {
	var out []clientJSON
	for _, c := range edit.AllClients() {
		path, err := o.clientFile(c)
		if err != nil {
			return err
		}
		j := clientJSON{App: c.ID, Name: c.Name, File: path, Servers: []string{}}
		j.Exists = fileExists(path)
		own, links, err := appServers(c, path)
		if err != nil {
			j.Error = oneLine(err.Error())
		}
		j.Connected, j.Servers = len(links) > 0, append(j.Servers, entryNames(own)...)
		out = append(out, j)
	}
	if o.JSON {
		if err := writeJSON(o.IO.Out, out); err != nil {
			return err
		}
		if slices.ContainsFunc(out, func(j clientJSON) bool { return j.Error != "" }) {
			return exitError{ExitFailure}
		}
		return nil
	}
	rows := [][]column{{{text: "APP"}, {text: "CONNECTED"}, {text: "SERVERS"}, {text: "FILE"}}}
	for _, j := range out {
		conn, servers := "no", fmt.Sprint(len(j.Servers))
		switch {
		case j.Error != "":
			conn, servers = "error", "-"
		case j.Connected:
			conn = "yes"
		case !j.Exists:
			servers = "-"
		}
		file := j.File
		if !j.Exists {
			file += " (none yet)"
		}
		rows = append(rows, []column{{text: j.App}, {text: conn}, {text: servers}, {text: termsafe.Line(file)}})
	}
	writeTable(o.IO.Out, false, rows)
	failed := false
	for _, j := range out {
		if j.Error != "" {
			fmt.Fprintf(o.IO.Err, "switchboard: %s: %s\n", j.App, termsafe.Line(j.Error))
			failed = true
		}
	}
	if failed {
		// As list does when a config file cannot be read.
		return exitError{ExitFailure}
	}
	return nil
}

func newClientConnectCmd(f *Factory) *cobra.Command {
	o := &clientOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "connect APP",
		Short: "Make a client app start switchboard serve (writes its own config)",
		Long: `Write the entry that starts 'switchboard serve', named "switchboard", into
the app's own config file, keeping its comments and layout. The entry
runs this binary by its absolute path; a binary in go's build cache (go
run) is refused, since go deletes it: install it, or give --command PATH.
A file that does not exist is created (private, in a private folder); one
that does not parse is left alone, and the error names it. Connecting
twice changes nothing; a "switchboard" entry that is not switchboard is
refused, and so is a second entry beside one that starts switchboard under
another name. A file that is a link is edited at its target, and keeps
its mode. Nothing is started.

switchboard reads the app's config too, so each of the app's own servers
would then run twice, once in the app and once in switchboard: connect
names them, and 'switchboard import APP --disable' moves them into
switchboard's config and turns them off in the app where the app can.`,
		Example: `  $ switchboard client connect claude-desktop
  $ switchboard client connect codex --command /usr/local/bin/switchboard
  $ switchboard client connect cursor --json`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeClients,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.App = args[0]
			return runClientConnect(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Command, "command", "", "the switchboard binary (`PATH`) the app runs, instead of this one")
	addJSONFlag(cmd, &o.JSON, "print what changed as JSON: {app, name, file, action, command, servers}")
	return cmd
}

func runClientConnect(_ context.Context, o *clientOptions) error {
	c, err := lookupClient(o.App)
	if err != nil {
		return err
	}
	bin, err := switchboardBinary(o.Command)
	if err != nil {
		return err
	}
	path, err := o.clientFile(c)
	if err != nil {
		return err
	}
	own, links, err := appServers(c, path)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(own, func(e source.Entry) bool { return e.Config.Name == clientEntry }); i >= 0 {
		return fmt.Errorf("%s already has a server named %q that does not start switchboard serve (%s); rename or remove it first", c.Name, clientEntry, own[i].Config.Source)
	}
	if len(links) > 0 && !slices.Contains(links, clientEntry) {
		// Connected by hand under another name: a second entry would
		// start a second switchboard.
		return fmt.Errorf("%s already starts switchboard serve, as the entry %q in %s; nothing changed (remove that entry to let connect write its own)", c.Name, links[0], path)
	}
	changed, err := c.Connect(path, clientEntry, bin, []string{"serve"})
	if err != nil {
		return err
	}
	j := clientJSON{App: c.ID, Name: c.Name, File: path, Exists: true, Connected: true, Servers: entryNames(own), Action: "unchanged", Command: bin}
	if changed {
		j.Action = "connected"
	}
	if o.JSON {
		return writeJSON(o.IO.Out, j)
	}
	if changed {
		fmt.Fprintf(o.IO.Out, "Connected %s: %s now starts %s serve\n", c.Name, termsafe.Line(path), termsafe.Line(bin))
	} else {
		fmt.Fprintf(o.IO.Out, "%s is already connected: %s starts %s serve\n", c.Name, termsafe.Line(path), termsafe.Line(bin))
	}
	if len(own) > 0 {
		fmt.Fprintln(o.IO.Err, termsafe.Line(twiceNote(c, own)))
	}
	return nil
}

// twiceNote says that the app's own servers would run twice, and what to
// do about it.
func twiceNote(c *edit.Client, own []source.Entry) string {
	what := fmt.Sprintf("%d servers", len(own))
	if len(own) == 1 {
		what = "1 server"
	}
	msg := fmt.Sprintf("note: %s's own config defines %s (%s), which switchboard serves too, so each would run twice; ", c.Name, what, strings.Join(entryNames(own), ", "))
	if c.HasSwitch() {
		return msg + fmt.Sprintf("'switchboard import %s --disable' moves them into switchboard's config and turns them off in %s", c.ID, c.Name)
	}
	return msg + fmt.Sprintf("'switchboard import %s' copies them into switchboard's config; %s has no per-server switch in its file, so remove them there by hand", c.ID, c.Name)
}

func newClientDisconnectCmd(f *Factory) *cobra.Command {
	o := &clientOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "disconnect APP",
		Short: "Remove the switchboard entry from a client app's own config",
		Long: `Remove the "switchboard" entry that 'client connect' wrote from the app's
own config file; every other byte of the file stays as it was. An app
that is not connected is left alone.`,
		Example: `  $ switchboard client disconnect cursor
  $ switchboard client disconnect codex --json`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeClients,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.App = args[0]
			return runClientDisconnect(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print what changed as JSON: {app, name, file, action, servers}")
	return cmd
}

func runClientDisconnect(_ context.Context, o *clientOptions) error {
	c, err := lookupClient(o.App)
	if err != nil {
		return err
	}
	path, err := o.clientFile(c)
	if err != nil {
		return err
	}
	own, links, err := appServers(c, path)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(own, func(e source.Entry) bool { return e.Config.Name == clientEntry }) {
		return fmt.Errorf("the %q entry in %s does not start switchboard serve; not removing it", clientEntry, path)
	}
	changed, err := c.Disconnect(path, clientEntry)
	if err != nil {
		return err
	}
	for _, name := range links {
		if name != clientEntry {
			fmt.Fprintf(o.IO.Err, "note: the entry %q in %s starts switchboard serve too; it was not written by connect, so remove it by hand\n", termsafe.Line(name), termsafe.Line(path))
		}
	}
	j := clientJSON{App: c.ID, Name: c.Name, File: path, Exists: fileExists(path), Servers: entryNames(own), Action: "unchanged"}
	if changed {
		j.Action = "disconnected"
	}
	if o.JSON {
		return writeJSON(o.IO.Out, j)
	}
	if changed {
		fmt.Fprintf(o.IO.Out, "Disconnected %s: removed %q from %s\n", c.Name, clientEntry, termsafe.Line(path))
	} else {
		fmt.Fprintf(o.IO.Out, "%s is not connected: %s has no %q entry\n", c.Name, termsafe.Line(path), clientEntry)
	}
	return nil
}

// fileExists reports whether there is anything at path.
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
