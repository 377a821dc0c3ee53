package cli

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
)

type getOptions struct {
	*Factory
	Name string
	JSON jsonFlag
}

func newGetCmd(f *Factory) *cobra.Command {
	o := &getOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "get SERVER",
		Short: "Show one server's resolved definition: command or url, source, trust, policy",
		Long: `Show how switchboard reads one server, as 'claude mcp get' does: its
command and arguments or url, working directory, the names of its
environment variables and headers (never their values), the file and line
that define it, whether it is trusted, what the policy says, and its
state. A definition it shadows is listed too.

get starts nothing: the state is the daemon's when one runs the server
(connected, failed, …, with its error), else what the config decides
(disabled, blocked, untrusted, invalid, a duplicate) or "not started";
'switchboard list' connects the servers and shows how each is doing.`,
		Example: `  $ switchboard get github
  $ switchboard get github --json | jq -r .source.path`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeServers(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return runGet(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print the server as JSON: {name, source, type, command, args, cwd, url, env, headers, trusted, policy, state, error, shadowed}")
	return cmd
}

// getJSON is one server as get shows it. Env and headers are names only:
// their values may be secrets.
type getJSON struct {
	Name    string        `json:"name"`
	Source  config.Source `json:"source"`
	Type    string        `json:"type"`
	Command string        `json:"command,omitempty"`
	Args    []string      `json:"args,omitempty"`
	Cwd     string        `json:"cwd,omitempty"`
	URL     string        `json:"url,omitempty"`
	Env     []string      `json:"env"`
	Headers []string      `json:"headers"`
	Trusted bool          `json:"trusted"`
	// Policy is "allowed" or "blocked: REASON".
	Policy string `json:"policy"`
	// State is what the config decides: not started, disabled, blocked,
	// untrusted, invalid or duplicate.
	State       string         `json:"state"`
	Error       string         `json:"error,omitempty"`
	DuplicateOf string         `json:"duplicateOf,omitempty"`
	Shadowed    []shadowedJSON `json:"shadowed"`
	// InDaemon says State is the running daemon's.
	InDaemon bool `json:"inDaemon,omitempty"`
}

type shadowedJSON struct {
	Source config.Source `json:"source"`
	Reason string        `json:"reason"`
}

func runGet(ctx context.Context, o *getOptions) error {
	d, err := o.Discover(namesOnly)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(d.Servers, func(c config.ServerConfig) bool { return c.Name == o.Name })
	if i < 0 {
		var names []string
		for _, c := range d.Servers {
			names = append(names, c.Name)
		}
		if near := nearNames(o.Name, names); len(near) > 0 {
			return usagef("no server named %q; did you mean %s?", o.Name, quotedList(near, "or"))
		}
		return noServer(o.Name)
	}
	j := o.describe(d, &d.Servers[i])
	if j.State == "not started" {
		o.daemonState(ctx, &j)
	}
	if o.JSON {
		return writeJSON(o.IO.Out, j)
	}
	o.printServer(j)
	return nil
}

// describe is c as get shows it, masked.
func (o *getOptions) describe(d *discover.Discovery, c *config.ServerConfig) getJSON {
	j := getJSON{
		Name: c.Name, Source: c.Source, Type: getType(c),
		Command: o.Mask(c.Command), Cwd: o.Mask(c.Cwd), URL: o.Mask(maskQuery(c.URL)),
		Env: sortedKeys(c.Env), Headers: sortedKeys(c.Headers),
		Trusted: !c.Untrusted, Policy: "allowed", State: "not started", DuplicateOf: c.DuplicateOf,
		Shadowed: []shadowedJSON{},
	}
	for _, a := range c.Args {
		j.Args = append(j.Args, o.Mask(a))
	}
	if c.Blocked != "" {
		j.Policy = "blocked: " + c.Blocked
	}
	switch {
	case c.Err != nil:
		j.State, j.Error = "invalid", oneLine(c.Err.Error())
	case c.Disabled:
		j.State = "disabled"
	case c.Blocked != "":
		j.State = "blocked"
	case c.Untrusted:
		j.State = "untrusted"
	case c.DuplicateOf != "":
		j.State = "duplicate"
	}
	for _, sh := range d.Shadowed {
		if sh.Config.Name == c.Name {
			j.Shadowed = append(j.Shadowed, shadowedJSON{Source: sh.Config.Source, Reason: sh.Reason})
		}
	}
	return j
}

func (o *getOptions) printServer(j getJSON) {
	w := o.IO.Out
	line := func(label, value string) {
		if value != "" {
			fmt.Fprintf(w, "  %-9s %s\n", label+":", termsafe.Line(value))
		}
	}
	fmt.Fprintf(w, "%s:\n", termsafe.Line(j.Name))
	line("Source", fmt.Sprintf("%s (%s)", j.Source, j.Source.Label()))
	line("Type", j.Type)
	line("Command", j.Command)
	if len(j.Args) > 0 {
		line("Args", shellJoin(j.Args))
	}
	line("Cwd", j.Cwd)
	line("URL", j.URL)
	if len(j.Env) > 0 {
		line("Env", strings.Join(j.Env, ", ")+" (values hidden)")
	}
	if len(j.Headers) > 0 {
		line("Headers", strings.Join(j.Headers, ", ")+" (values hidden)")
	}
	trust := "trusted"
	if !j.Trusted {
		trust = "untrusted: the project is not trusted ('switchboard trust' trusts it)"
	}
	line("Trust", trust)
	line("Policy", j.Policy)
	state := j.State
	if j.InDaemon {
		state += " (in the daemon)"
	}
	switch {
	case j.Error != "":
		state += ": " + j.Error
	case j.DuplicateOf != "":
		state += fmt.Sprintf(" of %q, which runs in its place", j.DuplicateOf)
	case j.State == "not started":
		state += " (get starts nothing; 'switchboard list' connects it)"
	}
	line("State", state)
	for _, sh := range j.Shadowed {
		line("Shadows", fmt.Sprintf("%s: %s", sh.Source, sh.Reason))
	}
}

// getType is the transport: a url with no type tries streamable HTTP,
// then SSE.
func getType(c *config.ServerConfig) string {
	if t := c.TransportKind(); t != config.TransportAuto {
		return string(t)
	}
	return "http, else sse"
}

// maskQuery hides a url's query values and password, which may be
// tokens; the host and path stay.
func maskQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" && u.User == nil {
		return raw
	}
	var keys []string
	for k := range u.Query() {
		keys = append(keys, url.QueryEscape(k)+"=***")
	}
	slices.Sort(keys)
	u.RawQuery = strings.Join(keys, "&")
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// nearNames are the names a mistyped name may have meant: at most two
// edits away, or starting with it.
func nearNames(name string, names []string) []string {
	var near []string
	for _, n := range names {
		if distance(strings.ToLower(name), strings.ToLower(n)) <= 2 || name != "" && strings.HasPrefix(n, name) {
			near = append(near, n)
		}
	}
	return near
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// daemonState is the server's state and error in the daemon that runs
// it, when one does: get itself starts nothing.
func (o *getOptions) daemonState(ctx context.Context, j *getJSON) {
	c := o.attachable(ctx)
	if c == nil {
		return
	}
	defer c.Close()
	statuses, err := c.Status(ctx)
	if err != nil {
		return
	}
	for _, st := range statuses {
		if st.Name == j.Name {
			j.State, j.Error, j.InDaemon = string(st.State), oneLine(st.Error), true
		}
	}
}
