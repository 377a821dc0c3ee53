// Command switchboard connects to every MCP server a person has configured
// and offers their tools at the terminal. See README.md.
package main

import (
	"os"

	"github.com/switchboard-mcp/switchboard/cmd/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.StdIO()))
}
