package demo

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// heldLists are the methods --slow-lists and --hold-lists hold back: the
// catalog a host lists besides the tools.
var heldLists = map[string]bool{
	"resources/list":           true,
	"resources/templates/list": true,
	"prompts/list":             true,
}

// holdPoll is how often a held list looks for its file.
const holdPoll = 10 * time.Millisecond

// holdLists answers the lists in heldLists only after delay, and once
// file exists when file is not empty; a cancelled request ends its wait.
// Every other request, tools/list and calls included, is answered as
// usual meanwhile.
func holdLists(delay time.Duration, file string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if !heldLists[method] {
				return next(ctx, method, req)
			}
			timer := time.NewTimer(delay)
			defer timer.Stop()
			select {
			case <-timer.C:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			for file != "" && !exists(file) {
				select {
				case <-time.After(holdPoll):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return next(ctx, method, req)
		}
	}
}
