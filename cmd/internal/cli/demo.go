package cli

import (
	_ "embed"
	"os"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// demoServerCommand runs the bundled demo MCP server on stdio. It is
// hidden: people reach it through the demo config, not by hand.
const demoServerCommand = "demo-server"

// demoJSON is the config used when no config exists anywhere: the demo
// server, launched from this same binary (demoServers reads it).
//
//go:embed demo.json
var demoJSON []byte

// demoPath stands in for the demo config's file name in sources and errors.
const demoPath = "bundled demo config"

// demoServers are the servers of demoJSON, the command line's demo
// (app.LoadOptions.Demo): this binary's demo-server.
func demoServers() ([]config.ServerConfig, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	lookup := func(name string) (string, bool) {
		if name == "SWITCHBOARD_SELF" {
			return self, true
		}
		return os.LookupEnv(name)
	}
	servers, _, err := source.ParseNative(demoPath, demoJSON, config.LevelUser, lookup)
	for i := range servers {
		servers[i].Source.Provider = "demo"
		servers[i].Source.Line = 0 // a line in a file nobody can open says nothing
	}
	return servers, err
}

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
