package cli

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/edit"
)

type addOptions struct {
	*Factory
	// Scope is "user" or "project" (Factory.ConfigPath).
	Scope string
	Name  string
	// Command and Args are a program to run; URL is a server to reach.
	// Exactly one of Command and URL is set.
	Command string
	Args    []string
	URL     string
	// Transport is "", "http" or "sse", for a URL only.
	Transport string
	// Headers and Env are K=V pairs; a key given twice is a usage error.
	Headers []string
	Env     []string
	JSON    jsonFlag
}

// newAddCmd is add; argv is the whole command line as given, from which
// a mistake's message rebuilds the line that was meant.
func newAddCmd(f *Factory, argv func() []string) *cobra.Command {
	o := &addOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "add NAME [--url URL | -- COMMAND [ARGS...]]",
		Short: "Add a server to your switchboard config",
		Long: `Add a server to switchboard's own config file: a program to run (after --)
or a url to reach. The file is locked while it changes and replaced in one
step, mode 0600; a name that exists already is refused. A running
'switchboard watch' picks the change up.

Everything after -- is the server's command line, its own flags included;
switchboard reads no flag there. --env and --header are repeatable, one
K=V each; a key given twice is refused.`,
		Example: `  $ switchboard add memory -- npx -y @modelcontextprotocol/server-memory
  $ switchboard add github --env GITHUB_TOKEN='${GITHUB_TOKEN}' -- npx -y @modelcontextprotocol/server-github
  $ switchboard add docs --url https://example.com/mcp --header 'Authorization=Bearer ${DOCS_TOKEN}'
  $ switchboard add legacy --url http://127.0.0.1:3001/sse --transport sse --scope project
  $ switchboard add memory --json -- npx -y @modelcontextprotocol/server-memory`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				if dash != 1 {
					return usagef("give the server's name before --")
				}
				if len(args) < 2 {
					return usagef("no command after --")
				}
				o.Command, o.Args = args[1], args[2:]
			} else if len(args) > 1 {
				if o.URL != "" || looksLikePairs(args[1:]) {
					return usagef("give KEY=VALUE pairs as --env K=V (the server's environment) or --header K=V (a url's headers); a command goes after --")
				}
				return usagef("put the server's command after --: %s", dashedLine(argv(), cmd.Flags(), args[:2]))
			}
			return runAdd(cmd.Context(), o)
		},
	}
	// A flag of the server's command, given without --, is taken for
	// one of add's: say where it goes, with the line that was meant.
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if pos := c.Flags().Args(); len(pos) >= 2 && c.ArgsLenAtDash() < 0 {
			return usagef("%v; put the server's command after --: %s", err, dashedLine(argv(), c.Flags(), pos[:2]))
		}
		return usageError{err}
	})
	addScopeFlag(cmd, &o.Scope)
	cmd.Flags().StringVar(&o.URL, "url", "", "the server's `url` (streamable HTTP, or SSE with --transport sse)")
	cmd.Flags().StringVar(&o.Transport, "transport", "", "http or sse; without it a url tries streamable HTTP, then SSE")
	addListFlag(cmd.Flags(), &o.Headers, "header", "an HTTP header `K=V`")
	addListFlag(cmd.Flags(), &o.Env, "env", "an environment variable `K=V` for the server")
	addJSONFlag(cmd, &o.JSON, "print what changed as JSON: {action, server, file, scope}")
	return cmd
}

func runAdd(_ context.Context, o *addOptions) error {
	entry := edit.EntryFields{URL: o.URL, Command: o.Command, Args: o.Args}
	if (o.Command == "") == (o.URL == "") {
		return usagef("give either --url URL or -- COMMAND [ARGS...]")
	}
	switch o.Transport {
	case "":
	case "http", "sse":
		if o.URL == "" {
			return usagef("--transport is for --url servers")
		}
		entry.Type = config.Transport(o.Transport)
	default:
		return usagef("--transport must be http or sse, not %q", o.Transport)
	}
	if o.URL != "" {
		if err := checkAddURL(o.URL); err != nil {
			return err
		}
	}
	var err error
	if entry.Headers, err = parsePairs(o.Headers, "--header"); err != nil {
		return err
	}
	if entry.Env, err = parsePairs(o.Env, "--env"); err != nil {
		return err
	}
	return o.addEntry(o.Scope, o.Name, o.JSON, func(path string) error { return o.Edit.AddServer(path, o.Name, entry) })
}

// addEntry adds server name to the config file of scope (write writes it
// there) and says so: what add and add-json share.
func (f *Factory) addEntry(scope, name string, asJSON jsonFlag, write func(path string) error) error {
	path, err := f.ConfigPath(scope)
	if err != nil {
		return err
	}
	if err := write(path); err != nil {
		if errors.Is(err, edit.ErrServerExists) {
			return fmt.Errorf("%w (remove it first, or choose another name)", err)
		}
		return err
	}
	if asJSON {
		return writeJSON(f.IO.Out, editJSON{Action: "added", Server: name, File: path, Scope: scope})
	}
	fmt.Fprintf(f.IO.Out, "Added %q to %s\n", name, termsafe.Line(path))
	return nil
}

// checkAddURL refuses a url that is not absolute http(s) with a host,
// which would only fail when the server is first reached. Variables in
// it (${HOST}) count as filled in.
func checkAddURL(raw string) error {
	filled, err := config.Expand(raw, func(string) (string, bool) { return "0", true })
	if err != nil {
		return usagef("--url: %v", err)
	}
	if err := config.Validate(&config.ServerConfig{Name: "url", URL: filled}); err != nil {
		var d *config.Diagnostic
		if errors.As(err, &d) {
			return usagef("--url %s: %s", termsafe.Line(raw), d.Message)
		}
		return usagef("--url %s: %v", termsafe.Line(raw), err)
	}
	return nil
}

// looksLikePairs reports whether the words after add's NAME are KEY=VALUE
// pairs, as call takes, rather than a command: add takes those as --env.
func looksLikePairs(words []string) bool {
	for _, w := range words {
		if k, _, ok := strings.Cut(w, "="); !ok || !envName.MatchString(k) {
			return false
		}
	}
	return true
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// dashedLine is the add command line that was meant: the one given with
// -- put before the server's command, which is the second of add's
// positional arguments (pos[1], after the name pos[0]). It finds that
// word in argv by walking it as pflag does (a flag that takes a value
// takes the next word, unless it has =). When the walk does not find it,
// the line is the positional words alone.
func dashedLine(argv []string, fs *pflag.FlagSet, pos []string) string {
	at := commandWordAt(argv, fs, pos)
	if at < 0 {
		return "switchboard add " + shellJoin(pos[:1]) + " -- " + shellJoin(pos[1:])
	}
	return "switchboard " + shellJoin(argv[:at]) + " -- " + shellJoin(argv[at:])
}

// commandWordAt is the index in argv of the server's command: the second
// word after "add" that is neither a flag nor a flag's value. -1 when
// argv does not read that way.
func commandWordAt(argv []string, fs *pflag.FlagSet, pos []string) int {
	seen := -1 // words before the subcommand's own: "add" is the first
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		switch {
		case w == "--":
			return -1
		case strings.HasPrefix(w, "--"):
			name, _, hasValue := strings.Cut(w[2:], "=")
			if f := fs.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				i++ // the flag's value
			}
			continue
		case strings.HasPrefix(w, "-") && len(w) > 1:
			// Shorthands: the last one of a group may take the rest, or
			// the next word, as its value.
			for j := 1; j < len(w); j++ {
				f := fs.ShorthandLookup(w[j : j+1])
				if f == nil || f.NoOptDefVal != "" {
					continue
				}
				if j == len(w)-1 {
					i++
				}
				break
			}
			continue
		}
		seen++
		switch seen {
		case 0:
			if w != "add" {
				return -1
			}
		case 1:
			if w != pos[0] {
				return -1
			}
		case 2:
			if w != pos[1] {
				return -1
			}
			return i
		}
	}
	return -1
}

// shellJoin joins words as a shell reads them back: quoted where a shell
// would split or expand them.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(w string) string {
	if shellSafe.MatchString(w) {
		return termsafe.Line(w)
	}
	return termsafe.Line("'" + strings.ReplaceAll(w, "'", `'\''`) + "'")
}
