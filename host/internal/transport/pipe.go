package transport

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

// Pipe is the server's side of stdio: the messages of a client that
// launched this process come in on In and go out on Out, one line each,
// with the framing of the host's own stdio connections (DESIGN.md,
// "Messages from servers"): each line scanned and decoded once, with no
// 32 KiB decoder per message, and held to config.DefaultMaxMessageSize.
// go-sdk's StdioTransport decodes every line twice, each time with a new
// 32 KiB decoder; switchboard serve pays that for every call it passes on.
type Pipe struct {
	In  io.ReadCloser
	Out io.Writer
	// Hooks get the lines dropped from In (not JSON-RPC, or too large).
	Hooks Hooks
}

// Connect returns the connection over In and Out. Closing it closes In,
// and Out when that is a Closer.
func (p *Pipe) Connect(ctx context.Context) (mcp.Connection, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	calls := &calls{}
	end := func() error {
		if c, ok := p.Out.(io.Closer); ok {
			return c.Close()
		}
		return nil
	}
	return newStdioConn(newJSONLineFilter(p.In, config.DefaultMaxMessageSize, p.Hooks, calls), p.Out, end, calls, p.Hooks), nil
}
