package gateway

import (
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/gateway/store"
)

// Without session keys, legacy sessions are the gateway's own table too
// (DESIGN.md, "A legacy call on the session's own connection"), with a
// store of the table's own, keeping what go-sdk's handler did: a random
// id (crypto/rand.Text), a session found only where it is held (it ends
// with its process; once closed, idle or ended, it is not found, and the
// client initializes again), no event store (no Last-Event-ID). Its
// sessions' plain calls take the fast path (legacyfast.go).
func (g *Gateway) ownSessions(idle time.Duration, max int, viewOf func(*http.Request, string) (*view, error)) *sealedSessions {
	return newSealedSessions(g, nil, store.NewMemory(), idle, max, viewOf)
}

// endOwn is DELETE in the process's own table: the session is closed
// here, where alone it lives; its id cannot be rebuilt, so nothing is
// kept of it.
func (t *sealedSessions) endOwn(w http.ResponseWriter, h *heldSession, caller string) {
	switch {
	case h == nil:
		http.Error(w, "session not found", http.StatusNotFound)
	case h.caller != caller:
		http.Error(w, "switchboard: this session belongs to another caller", http.StatusForbidden)
	default:
		h.ss.Close()
		w.WriteHeader(http.StatusNoContent)
	}
}
