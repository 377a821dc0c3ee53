package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/host"
)

type callOptions struct {
	*Factory
	// Tool is any name the tool is shown under (host.Find), or a server's
	// own name for it when only one server has it.
	Tool string
	// Server, when set, is the server whose tool Tool is (--server).
	Server string
	// Wait waits for every server it started before calling, instead of answering
	// at the startup gate (a deferred tool's call waits for its server
	// either way).
	Wait bool
	// Pairs are KEY=VALUE arguments; ArgsJSON is --args, a JSON object.
	// A key given twice, in either or in both, is a usage error.
	Pairs    []string
	ArgsJSON string
	JSON     jsonFlag
	// OutDir, when set, receives images, audio and binary resources.
	OutDir string
	// Raw prints text content as the server sent it, control characters
	// included, instead of escaped.
	Raw bool
}

func newCallCmd(f *Factory) *cobra.Command {
	o := &callOptions{Factory: f}
	var servers []string
	cmd := &cobra.Command{
		Use:   "call TOOL [KEY=VALUE...]",
		Short: "Call a tool and print its result",
		Long: `Call a tool by any name it is shown under: mcp__demo__echo (as
'switchboard tools' lists it), demo__echo (as 'switchboard serve' does)
or demo/echo; or by the server's own name for it, alone when only one
server has a tool of that name, else with --server.

Only the tool's server is started: the one its name or --server names,
or the one whose tools, cached by an earlier run, include it (both, for
a name two servers have). A name no cached list has starts every server,
so that a mistake in it is answered with the nearest names of all.

Arguments come as JSON (--args) or as KEY=VALUE pairs, or both for
different keys; a key given twice is refused. A VALUE that is valid JSON
(a number, true, an object) is passed as such, anything else as a string. Text content is printed as text, structured content as JSON, and
images and audio are summarised, or written to files with --out.

The text is the server's: control characters in it (escape sequences,
carriage returns, backspaces) are shown escaped, as \x1b, so that a tool
cannot set your terminal's title, clear it or draw over what it shows.
--raw prints text content exactly as the server sent it, for a program
to read; --json prints the whole result with every value exact.

` + outHelp + `

Exit status is 1 when the tool reports an error.`,
		Example: `  $ switchboard call mcp__demo__echo text="hello"
  $ switchboard call demo/echo text="hello"
  $ switchboard call echo --server demo text="hello"
  $ switchboard call mcp__demo__add a=2 b=40
  $ switchboard call mcp__demo__add --args '{"a": 2, "b": 40}' --json
  $ switchboard call mcp__demo__tiny_image --out ./images`,
		Args:              usageArgs(cobra.MinimumNArgs(1)),
		ValidArgsFunction: completeTools(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Tool, o.Pairs = args[0], args[1:]
			var err error
			if o.Server, err = oneServer(servers); err != nil {
				return err
			}
			o.Tool = qualifiedTool(o.Server, o.Tool)
			return runCall(cmd.Context(), o)
		},
	}
	addServerFlag(cmd, f, &servers, false, "call the tool of server `NAME`: needed when several servers have a tool called TOOL")
	addWaitFlag(cmd, &o.Wait, "")
	cmd.Flags().StringVar(&o.ArgsJSON, "args", "", "arguments as a JSON object")
	addJSONFlag(cmd, &o.JSON, "print the whole result as JSON")
	cmd.Flags().StringVar(&o.OutDir, "out", "", "write images, audio and binary resources to new files in `dir` (never overwriting)")
	cmd.Flags().BoolVar(&o.Raw, "raw", false, "print text content exactly as the server sent it, control characters included")
	return cmd
}

func runCall(ctx context.Context, o *callOptions) error {
	arguments, err := callArgs(o.ArgsJSON, o.Pairs)
	if err != nil {
		return err
	}
	// Only the tool's server starts, when its name or the tool cache says
	// which it is (issue 24: a one-shot call need not start them all).
	need := needs{settled: o.Wait, find: &named{host.KindTool, o.Tool}}
	if o.Server != "" {
		need.servers = []string{o.Server}
	}
	s, err := o.openCatalog(ctx, need)
	if err != nil {
		return err
	}
	defer s.Close()
	if o.Server != "" {
		// A --server that is down or unknown says so, before the name does.
		statuses, err := s.Status(ctx)
		if err != nil {
			return err
		}
		if err := requireRunning(statuses, o.Server); err != nil {
			return err
		}
	}
	tool, err := s.Find(ctx, host.KindTool, o.Tool)
	if err != nil {
		return nameMistake(err)
	}
	res, callErr := s.CallTool(ctx, tool.Exposed, arguments)
	if ctx.Err() != nil {
		return callErr // interrupted: the error alone, not its result too
	}
	if o.JSON {
		if err := writeJSON(o.IO.Out, res); err != nil {
			return err
		}
	} else if err := o.IO.printResult(res, o.OutDir, o.Raw); err != nil {
		return err
	}
	if callErr != nil {
		fmt.Fprintf(o.IO.Err, "switchboard: %v\n", oneLine(callErr.Error()))
	}
	if res.IsError {
		return exitError{ExitFailure}
	}
	return nil
}

// callArgs merges --args JSON and KEY=VALUE pairs; a key in both is a
// usage error, as neither is plainly the one meant. A VALUE that is valid
// JSON is passed as such, anything else as a string.
func callArgs(jsonArgs string, pairs []string) (map[string]any, error) {
	args := map[string]any{}
	if jsonArgs != "" {
		if err := json.Unmarshal([]byte(jsonArgs), &args); err != nil {
			return nil, usagef("--args: not a JSON object: %v", err)
		}
	}
	kvs, err := parsePairs(pairs, "argument")
	if err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(kvs)) {
		v := kvs[k]
		if _, dup := args[k]; dup {
			return nil, usagef("argument %q is given twice, in --args and as %s=VALUE; give it once", k, k)
		}
		var parsed any
		if err := json.Unmarshal([]byte(v), &parsed); err == nil {
			args[k] = parsed
		} else {
			args[k] = v
		}
	}
	return args, nil
}

// printResult renders a result for a person (DESIGN.md F24 keeps it whole; this
// only chooses how to show each part). Text is escaped unless raw; what
// describes the parts (URIs, names, types) is escaped always.
func (ios IO) printResult(res *mcp.CallToolResult, outDir string, raw bool) error {
	w := ios.Out
	hasText := false
	for i, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			hasText = true
			fmt.Fprintln(w, payload(c.Text, raw))
		case *mcp.ImageContent:
			fmt.Fprintln(w, binaryLine(outDir, "image", i, c.MIMEType, c.Data))
		case *mcp.AudioContent:
			fmt.Fprintln(w, binaryLine(outDir, "audio", i, c.MIMEType, c.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(w, "[resource link] %s %s\n", termsafe.Line(c.URI), termsafe.Line(c.Name))
		case *mcp.EmbeddedResource:
			r := c.Resource
			if r == nil {
				continue
			}
			if r.Text != "" {
				fmt.Fprintf(w, "[resource %s]\n%s\n", termsafe.Line(r.URI), payload(r.Text, raw))
			} else {
				fmt.Fprintln(w, binaryLine(outDir, "resource", i, r.MIMEType, r.Blob))
			}
		}
	}
	if res.StructuredContent != nil && !hasText {
		return writeJSON(w, res.StructuredContent)
	}
	return nil
}

// payload is a text part of a result for a person: escaped, newlines
// kept, unless the person asked for it raw.
func payload(text string, raw bool) string {
	if raw {
		return text
	}
	return termsafe.Text(text)
}
