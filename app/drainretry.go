package app

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/switchboard-mcp/switchboard/config"
)

// movedMethods are the requests a draining replica refuses (App.calls):
// the ones it answers 503 instead when another replica can take them.
var movedMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// peekLimit bounds the body read to tell what a request is; a bigger one
// goes to the handler, which refuses it as before.
const peekLimit = 1 << 20

// movable reports whether a draining replica should answer r with 503
// (it reads r's body, and puts it back for the handler): r is a POST of
// one JSON-RPC request the replica would refuse, and another replica can
// serve it the same. That is a 2026-07-28 request (no session: any
// replica serves it) that continues no round held here (a requestState
// opens on another replica only when sealed), or, with session keys, a
// request in a 2025-11-25 session (another replica rebuilds the session
// from its sealed id). Notifications and responses (a client's answer to
// a call in flight here) always go through.
func movable(r *http.Request, sealed bool) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	modern := r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("Mcp-Protocol-Version") >= config.ProtocolModern
	if !modern && !sealed {
		return false
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, peekLimit+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil || len(head) > peekLimit {
		return false
	}
	var msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params struct {
			RequestState string `json:"requestState"`
		} `json:"params"`
	}
	if json.Unmarshal(head, &msg) != nil || len(msg.ID) == 0 || !movedMethods[msg.Method] {
		return false
	}
	return sealed || msg.Params.RequestState == ""
}

// refuseMoved answers a request movable let go of: nothing of it ran.
func refuseMoved(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "5")
	http.Error(w, ErrDraining.Error(), http.StatusServiceUnavailable)
}
