package cli

import (
	_ "embed"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// demoServerCommand runs the bundled demo MCP server on stdio. It is
// hidden: people reach it through the demo config, not by hand.
const demoServerCommand = "demo-server"

// demoJSON is the config used when no config exists anywhere: the demo
// server, launched from this same binary (globalOptions.demo reads it).
//
//go:embed demo.json
var demoJSON []byte

// demoPath stands in for the demo config's file name in sources and errors.
const demoPath = "bundled demo config"

func runDemoServer(args []string) int {
	return demo.Main(args)
}

// newDemoServerCmd exists so help and completion know the name; Main
// dispatches demo-server before cobra sees it.
func newDemoServerCmd() *cobra.Command {
	return &cobra.Command{
		Use:                demoServerCommand,
		Short:              "Run the bundled demo MCP server on stdio",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			if code := runDemoServer(args); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
}
