package cli

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/host"
)

// parsePairs splits KEY=VALUE pairs: call's and prompt's arguments
// (what is "argument"), add's --env and --header (what is the flag). A
// malformed pair (no "=", or nothing before it) and a key given twice are
// usage errors: a later pair silently winning would hide a typo, or a
// value given two ways. No pairs is a nil map.
func parsePairs(kvs []string, what string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("%s %q: want KEY=VALUE", what, kv)
		}
		if _, dup := m[k]; dup {
			return nil, usagef("%s %q is given twice; give each key once", what, k)
		}
		m[k] = v
	}
	return m, nil
}

// resolveOne finds the one item that a person's name for it matches (a
// tool's own name, a prompt without its server, a resource's URI). No
// match is the error none; several are the error several makes of the
// matches' labels, joined by ", ".
func resolveOne[T any](items []T, match func(T) bool, label func(T) string, none error, several func(labels string) error) (T, error) {
	var matches []T
	for _, it := range items {
		if match(it) {
			matches = append(matches, it)
		}
	}
	var zero T
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return zero, none
	}
	labels := make([]string, len(matches))
	for i, m := range matches {
		labels[i] = label(m)
	}
	return zero, several(strings.Join(labels, ", "))
}

// nameMistake is what a command says of a tool or prompt name the host
// could not find (host.Find): a usage error in the words the listings
// use, with the nearest names; a name of a server that is down is that
// server's failure instead, as host.DownError says.
func nameMistake(err error) error {
	var ne *host.NameError
	if !errors.As(err, &ne) {
		return err
	}
	kind, listing := "tool", "switchboard tools"
	label := func(n host.Named) string { return n.Exposed }
	if ne.Kind == host.KindPrompt {
		kind, listing = "prompt", "switchboard prompts"
		label = func(n host.Named) string { return n.Server + "/" + n.Name }
	}
	labels := make([]string, len(ne.Near))
	for i, n := range ne.Near {
		labels[i] = label(n)
	}
	switch {
	case ne.Ambiguous && ne.Kind == host.KindTool:
		return usagef("tool name %q is ambiguous: %s", ne.Name, strings.Join(labels, ", "))
	case ne.Ambiguous:
		return usagef("%s %q is ambiguous: %s", kind, ne.Name, strings.Join(labels, ", "))
	case len(labels) > 0:
		for i, l := range labels {
			labels[i] = strconv.Quote(l)
		}
		return usagef("no %s named %q; did you mean %s?", kind, ne.Name, strings.Join(labels, " or "))
	}
	return usagef("no %s named %q (see '%s')", kind, ne.Name, listing)
}

// serverArgs takes what names the servers a listing is narrowed to:
// --server's names, and the SERVER argument tools, resources and prompts
// took before --server, which they still take so that scripts giving it
// keep working. An empty name is refused here, since none means every
// server.
func serverArgs(servers *[]string, args []string) error {
	*servers = append(*servers, args...)
	for _, name := range *servers {
		if name == "" {
			return noServer(name)
		}
	}
	return nil
}

// oneServer is the server --server names on a command that works with
// one (call, read, prompt): "" when none is named.
func oneServer(servers []string) (string, error) {
	switch len(servers) {
	case 0:
		return "", nil
	case 1:
		if servers[0] == "" {
			return "", noServer("")
		}
		return servers[0], nil
	}
	return "", usagef("--server: name one server, not %d", len(servers))
}

// qualifiedTool is the name call looks up for a tool of --server: its
// server's tool name, as "server/tool", unless name already names the
// server (an exposed name of that server, or server/tool).
func qualifiedTool(server, name string) string {
	if server == "" || strings.HasPrefix(name, server+"/") || strings.HasPrefix(name, host.DefaultToolPrefix+server+"__") {
		return name
	}
	return server + "/" + name
}

// requireServers is requireServer for each name, in order.
func (ios IO) requireServers(statuses []host.Status, names []string) error {
	for _, name := range names {
		if err := ios.requireServer(statuses, name); err != nil {
			return err
		}
	}
	return nil
}

// requireServer is the check of a command's SERVER argument: a usage error
// unless the host has a server of that name; then, for a server that is
// down, why. A server that should run and does not (failed, needs-auth)
// is an error naming it, its state and its own error, for Run to print
// (exit 1). One someone decided should not run (disabled, blocked,
// untrusted, a duplicate) is no failure: a line on stderr says so, so an
// empty listing does not look like a server without tools, and the
// command goes on.
func (ios IO) requireServer(statuses []host.Status, name string) error {
	i := slices.IndexFunc(statuses, func(s host.Status) bool { return s.Name == name })
	if i < 0 {
		return noServer(name)
	}
	st := statuses[i]
	why := serverWhy(st)
	switch st.State {
	case host.StateFailed, host.StateDisconnected, host.StateNeedsAuth:
		return errors.New(why)
	case host.StateDisabled:
		why += fmt.Sprintf(" ('switchboard enable %s' turns it on)", st.Name)
	case host.StateBlocked, host.StateUntrusted, host.StateDuplicate:
	default:
		return nil // connected, or on its way: connecting, idle
	}
	fmt.Fprintf(ios.Err, "switchboard: %s\n", oneLine(why))
	return nil
}

// serverWhy says what state a server is in, and why.
func serverWhy(st host.Status) string {
	why := fmt.Sprintf("server %q is %s", st.Name, st.State)
	if st.Error != "" {
		why += ": " + st.Error
	}
	return why + loginHint(st)
}

// requireRunning is the check of a server a command needs to talk to
// (call's --server): a usage error unless the host has a server of that
// name, and an error saying why unless it runs or is on its way.
func requireRunning(statuses []host.Status, name string) error {
	i := slices.IndexFunc(statuses, func(s host.Status) bool { return s.Name == name })
	switch {
	case i < 0:
		return noServer(name)
	case running(statuses, name):
		return nil
	}
	return errors.New(oneLine(serverWhy(statuses[i])))
}

// noServer is the usage error for a SERVER argument no config defines.
func noServer(name string) error {
	return usagef("no server named %q (see 'switchboard list')", name)
}

// onlyServers keeps the items of the servers named; none named keeps
// every item.
func onlyServers[T any](items []T, servers []string, of func(T) string) []T {
	if len(servers) == 0 {
		return items
	}
	var out []T
	for _, it := range items {
		if slices.Contains(servers, of(it)) {
			out = append(out, it)
		}
	}
	return out
}

// orEmpty makes a nil list an empty one, which JSON prints as [] not null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
