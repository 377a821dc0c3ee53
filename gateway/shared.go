package gateway

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway/store"
)

// eventStore is where the legacy sessions' streams are kept for
// resumption: the shared store's events, or none without a store (go-sdk
// then sends no event ids and refuses Last-Event-ID).
func eventStore(st store.Store) mcp.EventStore {
	if st == nil {
		return nil
	}
	return st.Events()
}
