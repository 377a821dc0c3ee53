package transport

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sseTransport keeps go-sdk's SSE stream alive past the connect. go-sdk
// opens the event stream with the context given to Connect, so the
// startup timeout that bounds a connect would also end the stream the
// moment the connect returns. The stream gets a context of its own,
// cancelled when the connection closes or when the connect is abandoned.
type sseTransport struct {
	inner *mcp.SSEClientTransport
}

func (t *sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	streamCtx, stopStream := context.WithCancel(context.WithoutCancel(ctx))
	type result struct {
		conn mcp.Connection
		err  error
	}
	done := make(chan result, 1)
	go func() {
		conn, err := t.inner.Connect(streamCtx)
		done <- result{conn, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			stopStream()
			return nil, r.err
		}
		return &sseConn{Connection: r.conn, stop: stopStream}, nil
	case <-ctx.Done():
		stopStream()
		if r := <-done; r.conn != nil {
			r.conn.Close()
		}
		return nil, ctx.Err()
	}
}

// sseConn ends its stream's context on Close.
type sseConn struct {
	mcp.Connection
	stop context.CancelFunc
}

func (c *sseConn) Close() error {
	err := c.Connection.Close()
	c.stop()
	return err
}
