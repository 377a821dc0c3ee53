package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP 2026-07-28 has no initialize: a client opens with server/discover.
// A go-sdk v1.8.0 server answers it, so the demo is a 2026-era server by
// default; --legacy and --ignore-discover make it a 2025-era one, the
// polite kind and the kind a client must time out on.

// methodDiscover is the request a 2026-era client opens with.
const methodDiscover = "server/discover"

// DiscoverLine is what the demo writes to stderr for every server/discover
// it reads, in every mode, so a test can count a client's probes.
const DiscoverLine = "demo: got server/discover"

// InitializeLine is what the demo writes to stderr for every initialize
// it reads. A client sends initialize only after its probe, if any, has
// ended, and the demo writes both lines in the order it reads the
// requests: a test that has seen this line has seen every DiscoverLine
// of the handshake before it.
const InitializeLine = "demo: got initialize"

// RootsChangedLine is what the demo writes to stderr for every
// notifications/roots/list_changed it reads.
const RootsChangedLine = "demo: got notifications/roots/list_changed"

// probeLog writes those lines to w (nil: nowhere), one whole line per
// write and one write at a time: go-sdk handles requests concurrently.
type probeLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *probeLog) got(line string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = io.WriteString(p.w, line+"\n")
}

// handshakeMiddleware reports every server/discover and initialize and,
// with legacy set, refuses server/discover as a server that predates it
// does: -32601, method not found.
//
// go-sdk refuses server/discover itself (also -32601) when the request
// carries no 2026-era protocol version in its _meta, before any middleware
// runs; such a probe is refused but not reported. go-sdk's client always
// sends the version.
func handshakeMiddleware(log *probeLog, legacy bool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "initialize":
				log.got(InitializeLine)
				return next(ctx, method, req)
			case "notifications/roots/list_changed":
				log.got(RootsChangedLine)
				return next(ctx, method, req)
			case methodDiscover:
			default:
				return next(ctx, method, req)
			}
			log.got(DiscoverLine)
			if legacy {
				return nil, &jsonrpc.Error{
					Code:    jsonrpc.CodeMethodNotFound,
					Message: fmt.Sprintf("method %q not found (--legacy)", method),
				}
			}
			return next(ctx, method, req)
		}
	}
}

// dropDiscover is --ignore-discover: it reads every server/discover and
// passes none to go-sdk, so nothing ever answers it, not even after the
// client cancels it or hangs up.
//
// A middleware cannot do this: go-sdk (internal/jsonrpc2, processResult)
// writes a response for every call whose handler returns, including one
// cancelled by notifications/cancelled or by the end of the input, and a
// handler that never returns holds the session open after stdin closes.
func dropDiscover(in io.ReadCloser, log *probeLog) io.ReadCloser {
	return newLineFilter(in, func(line []byte) bool {
		if !isDiscover(line) {
			return false
		}
		log.got(DiscoverLine)
		return true
	})
}

// isDiscover reports whether line is a server/discover request.
func isDiscover(line []byte) bool {
	if !bytes.Contains(line, []byte(methodDiscover)) {
		return false // the common case, without decoding
	}
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(line, &msg) == nil && msg.Method == methodDiscover
}
