package gateway

import (
	"crypto/rand"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/gateway/store"
)

// Without session keys, legacy sessions are the gateway's own table too
// (DESIGN.md, "A legacy call on the session's own connection"), under a
// key made at start and a store of the table's own: a session id opens
// only in this process, and a session ends with it, as with go-sdk's
// handler. What go-sdk's handler did not do, the table does not either:
// no event store (no Last-Event-ID), nothing of initialize sealed into
// the id (a session closed here, idle or ended, is not rebuilt: 404, and
// the client initializes again). Its sessions' plain calls take the fast
// path (legacyfast.go).
func (g *Gateway) ownSessions(idle time.Duration, max int, viewOf func(*http.Request, string) (*view, error)) *sealedSessions {
	key := make([]byte, 32)
	rand.Read(key) // never fails (crypto/rand)
	keys, err := NewSessionKeys(key)
	if err != nil {
		panic("switchboard: a session key of the process: " + err.Error()) // 32 bytes: cannot fail
	}
	return newSealedSessions(g, keys, store.NewMemory(), idle, max, viewOf)
}

// endOwn is DELETE in the process's own table: the session is closed
// here, where alone it lives; its id cannot be rebuilt, so nothing is
// kept of it.
func (t *sealedSessions) endOwn(w http.ResponseWriter, h *heldSession, caller string) {
	switch {
	case h == nil:
		http.Error(w, "switchboard: session not found", http.StatusNotFound)
	case h.caller != caller:
		http.Error(w, "switchboard: this session belongs to another caller", http.StatusForbidden)
	default:
		h.ss.Close()
		w.WriteHeader(http.StatusNoContent)
	}
}
