package host

import (
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host/internal/transport"
)

// PipeTransport is the server's side of stdio for a process an MCP client
// launched: messages come in on in and go out on out, one line each, with
// the framing the host uses for its own stdio servers (DESIGN.md,
// "Messages from servers"). dropped, when set, is told each line that was
// not passed on (not JSON-RPC, too large or too deep) and why.
func PipeTransport(in io.ReadCloser, out io.Writer, dropped func(why string)) mcp.Transport {
	hooks := transport.Hooks{}
	if dropped != nil {
		hooks.Skipped = func(line string) { dropped("not a JSON-RPC message: " + line) }
		hooks.Dropped = dropped
	}
	return &transport.Pipe{In: in, Out: out, Hooks: hooks}
}
