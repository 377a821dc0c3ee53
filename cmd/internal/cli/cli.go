// Package cli is the switchboard command line: one file per command, each
// an options struct and a run(ctx, *Options) function on an injected
// Factory (factory.go), so tests run commands without cobra or a terminal.
// Errors map to exit codes in one place (Run).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/host"
)

// Exit codes (DESIGN.md F48).
const (
	ExitOK      = 0
	ExitFailure = 1 // a tool returned isError, or a server failed
	ExitUsage   = 2
)

// IO is where a command reads and writes.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	// OutTTY and ErrTTY say whether Out and Err are terminals: progress and
	// colour appear only there.
	OutTTY, ErrTTY bool
	// Width is how many columns the terminal Err is has, for the progress
	// line, which must not wrap. Nil, or a result of 0, means 80.
	Width func() int
	// Getenv reads the environment; tests replace it.
	Getenv func(string) string
	// LookupEnv is Getenv that tells unset from empty.
	LookupEnv func(string) (string, bool)
}

// StdIO is the process's own streams.
func StdIO() IO {
	return IO{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		OutTTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr), Width: stderrWidth,
		Getenv: os.Getenv, LookupEnv: os.LookupEnv,
	}
}

// exitError carries an exit code to Main without printing anything more:
// the command has already said what went wrong.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// usageError is a mistake in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// Main runs the command line until it is done or interrupted (SIGINT,
// SIGTERM) and returns the exit code.
func Main(args []string, stdio IO) int {
	if len(args) > 0 && args[0] == demoServerCommand {
		// The bundled demo server speaks MCP on stdout: nothing else may
		// write there, not even cobra.
		return runDemoServer(args[1:])
	}
	ctx, stop := interrupts()
	defer stop()
	return Run(ctx, args, stdio)
}

// Run runs the command line under ctx; cancelling ctx is an interrupt.
func Run(ctx context.Context, args []string, stdio IO) int {
	root, g := newRoot(ctx, stdio, args)
	root.SetArgs(args)
	root.SetIn(stdio.In)
	root.SetOut(stdio.Out)
	root.SetErr(stdio.Err)
	cmd, err := root.ExecuteContextC(ctx)
	var exit exitError
	var usage usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &exit):
		return exit.code
	case errors.As(err, &usage) || isUnknownCommand(err):
		// A usage mistake names the command it was made in and points to
		// that command's help, where the flags and arguments are.
		if cmd == nil {
			cmd = root
		}
		path := cmd.CommandPath()
		if name, ok := unknownCommandName(err); ok {
			err = unknownCommand(cmd, name) // one line, with our suggestions
		}
		fmt.Fprintf(stdio.Err, "%s: %s\n", path, termsafe.Text(g.redactor.String(err.Error())))
		fmt.Fprintf(stdio.Err, "Run '%s --help' for usage.\n", path)
		return ExitUsage
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return 130 // interrupted, as a shell reports SIGINT
	default:
		fmt.Fprintf(stdio.Err, "switchboard: %v\n", g.redactor.String(oneLine(err.Error())))
		return ExitFailure
	}
}

// usageArgs marks cobra's argument-count errors as usage errors (exit 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// isUnknownCommand recognises cobra's one usage error that reaches us as a
// plain error: a command it cannot find.
func isUnknownCommand(err error) bool {
	_, ok := unknownCommandName(err)
	return ok
}

// unknownCommandName is the name in cobra's unknown-command error, which
// it makes when looking the root's subcommands up, before any flag is
// parsed (so a mistyped command is named even when a flag follows it).
func unknownCommandName(err error) (string, bool) {
	rest, ok := strings.CutPrefix(err.Error(), "unknown command ")
	if !ok {
		return "", false
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", false
	}
	name, err := strconv.Unquote(quoted)
	return name, err == nil
}

// unknownCommand is the usage error for a subcommand of cmd that does not
// exist, on one line, with the commands it may have meant (cobra's
// suggestions: a small edit distance, or a prefix).
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if cmd.SuggestionsMinimumDistance <= 0 {
		// Cobra sets its default (2) only for the root's own lookup.
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "; did you mean " + quotedList(s, "or") + "?"
	}
	return usageError{errors.New(msg)}
}

// noSubcommand is the Args of a command that only groups others (auth):
// an argument is a mistyped subcommand.
func noSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	return nil
}

// quotedList quotes each of items and joins them as a sentence does:
// "a", "b" or "c".
func quotedList(items []string, conj string) string {
	q := make([]string, len(items))
	for i, it := range items {
		q[i] = strconv.Quote(it)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + conj + " " + q[len(q)-1]
}

// newRoot is the command tree for the command line args.
func newRoot(ctx context.Context, stdio IO, args []string) (*cobra.Command, *globalOptions) {
	g := &globalOptions{io: stdio, ctx: ctx}
	f := g.factory()
	so := &statusOptions{Factory: f}
	root := &cobra.Command{
		Use:   "switchboard",
		Short: "Connect to every MCP server you have configured",
		Long: `switchboard connects to the MCP servers in your config, all at once, and
shows how each one is doing. Its subcommands list and call their tools.

With no config anywhere it runs a bundled demo server, so there is always
something to look at.

Exit status: 0 when everything worked; 1 when a tool returned an error, a
server a command needs is down, (for switchboard alone and list, the
health checks) a server failed or a config file could not be read, or
tools --search found nothing (as grep finds nothing); 2 for a usage
mistake; 130 when interrupted (watch and logs -f end with 0). A disabled,
blocked or untrusted server is not a failure.

The commands are alike: a command that lists or looks things up across
servers is narrowed with --server NAME (a server a command acts on, as
in 'logs NAME' or 'enable NAME', is its argument); every command that
prints data takes --json; every command that connects takes --wait. A
flag that takes a list is repeated, one value each time (--root a --root
b): commas do not separate values, since a value may hold one.`,
		Example: `  $ switchboard
  $ switchboard --config ./mcp.json tools
  $ switchboard tools --json | jq '.[].name'
  $ switchboard call mcp__demo__echo text="hello"
  $ switchboard --json | jq -r '.[] | .name + " " + .state'
  $ switchboard --root ~/notes --root ./docs tools`,
		// No Args: cobra then checks the first word against the commands
		// before it parses any flag (legacyArgs), so 'switchboard tols
		// --wait' says tols is unknown, not --wait.
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runStatus(cmd.Context(), so)
		},
	}
	// The root's own flags, not its subcommands' (those are g.register's).
	addJSONFlag(root, &so.JSON, "print the servers as JSON, as 'list --json' does")
	addWaitFlag(root, &so.Wait, "the table shows every server's final state")
	root.CompletionOptions.HiddenDefaultCmd = false
	// --version prints the version servers see in initialize: one number
	// for both, set at release with -ldflags -X (host.Version).
	root.Version = host.Version
	root.SetVersionTemplate("switchboard {{.Version}}\n")
	g.register(root)
	f.GlobalArgs = func() []string { return givenFlags(root.PersistentFlags()) }
	root.AddCommand(newListCmd(f), newToolsCmd(f), newCallCmd(f), newWatchCmd(f), newSourcesCmd(f), newTrustCmd(f), newUntrustCmd(f),
		newLogsCmd(f), newResourcesCmd(f), newReadCmd(f), newPromptsCmd(f), newPromptCmd(f), newAuthCmd(f), newServeCmd(f), newDaemonCmd(f), newDemoServerCmd())
	root.AddCommand(newEditCmds(f, func() []string { return args })...)
	root.AddCommand(newAddJSONCmd(f), newGetCmd(f), newClientCmd(f), newImportCmd(f))
	strictCompletion(root)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return root, g
}

// strictCompletion makes `completion` with no shell, or one it does not
// know, a usage error (exit 2) naming the shells. Cobra's own command
// prints its help and exits 0 for both, and a script writing the output to
// a completion file would install that help.
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sub := range c.Commands() {
			if sub.Name() != "help" {
				shells = append(shells, sub.Name())
			}
		}
		supported := strings.Join(shells, ", ")
		c.Example = "  $ switchboard completion bash > ~/.local/share/bash-completion/completions/switchboard\n" +
			"  $ switchboard completion zsh > \"${fpath[1]}/_switchboard\"\n" +
			"  $ switchboard completion fish > ~/.config/fish/completions/switchboard.fish"
		c.Use = "completion SHELL"
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("name a shell: %s", supported)
			}
			return usagef("unknown shell %q; supported: %s", args[0], supported)
		}
	}
}
