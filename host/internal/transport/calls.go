package transport

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxCalls bounds how many pending requests a connection remembers the
// method of; past it, the memory starts again empty. Over stdio go-sdk
// ends every request it gives up on with notifications/cancelled, which
// forgets it; over HTTP a request given up on is remembered until then.
// A reply whose request is forgotten is still refused, as the reply to
// "request 7".
const maxCalls = 4096

// calls remembers the method of each request the host sent and has had no
// answer to, so that a reply the filter refuses can say what it was a
// reply to ("reply to tools/call is 100.0 MiB, …").
type calls struct {
	mu      sync.Mutex
	methods map[jsonrpc.ID]string
}

// add, done and method may be called on a nil *calls, which remembers
// nothing.
func (c *calls) add(id jsonrpc.ID, method string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.methods == nil || len(c.methods) >= maxCalls {
		c.methods = map[jsonrpc.ID]string{}
	}
	c.methods[id] = method
}

func (c *calls) done(id jsonrpc.ID) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.methods, id)
}

// method is what request id asked for, or "" when it is not known.
func (c *calls) method(id jsonrpc.ID) string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.methods[id]
}
