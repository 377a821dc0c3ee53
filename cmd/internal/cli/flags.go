package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The flags that mean the same on every command are declared here, each
// one way (--json is json.go's):
//
//   - A list flag is repeatable, one value each time, taken whole:
//     --env A=1 --env B=2. Commas do not separate values, since an env or
//     header value, a path or a glob may hold one (addListFlag).
//   - A server that a command works on (logs, enable, auth login) is its
//     positional argument; a command that lists or looks things up across
//     servers is narrowed to some with --server NAME (addServerFlag).
//   - --wait waits for every server to connect or fail, on every command
//     that connects and then answers (addWaitFlag).

// listHelp is what every list flag's usage ends with.
const listHelp = " (repeatable)"

// addListFlag declares a repeatable flag: each use appends one value.
func addListFlag(fs *pflag.FlagSet, p *[]string, name, usage string) {
	fs.Var(listValue{p}, name, usage+listHelp)
}

// listValue is a list flag's value. Unlike pflag's StringArray, whose
// first use replaces the default, every use appends, so two flags (a
// name and its old spelling) can fill one list.
type listValue struct{ p *[]string }

func (l listValue) Set(v string) error { *l.p = append(*l.p, v); return nil }

// Type says "stringArray", so completion offers the flag again after a
// first use.
func (l listValue) Type() string { return "stringArray" }

func (l listValue) String() string {
	if l.p == nil {
		return ""
	}
	return strings.Join(*l.p, ",")
}

// GetSlice is cobra's sign of a flag that takes several values.
func (l listValue) GetSlice() []string { return *l.p }

// commaListValue is an old spelling that took a comma-separated list
// (serve's --servers a,b): each value is split and appended.
type commaListValue struct{ listValue }

func (l commaListValue) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l.p = append(*l.p, s)
		}
	}
	return nil
}

// addServerFlag declares --server, which narrows a command to the servers
// named: several (repeated) when many, else one (oneServer refuses more).
// The names complete from the configs.
func addServerFlag(cmd *cobra.Command, f *Factory, p *[]string, many bool, usage string) {
	if many {
		addListFlag(cmd.Flags(), p, "server", usage)
	} else {
		cmd.Flags().Var(listValue{p}, "server", usage)
	}
	_ = cmd.RegisterFlagCompletionFunc("server", completeServerNames(f))
}

// addWaitFlag declares --wait. always is empty for a command that
// answers at the startup gate without it (a slow server's cached tools
// standing in); else it says why the command waits anyway, and the flag
// is there so that every command that connects takes it.
func addWaitFlag(cmd *cobra.Command, p *bool, always string) {
	usage := "wait for every server to connect or fail, instead of answering at the startup gate"
	if always != "" {
		usage = "wait for every server to connect or fail (always so here: " + always + ")"
	}
	cmd.Flags().BoolVar(p, "wait", false, usage)
}
