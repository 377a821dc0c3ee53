package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway/store"
)

// A held session's mutable state, its log level and subscriptions, goes
// to the store on each change (keepState) and is read when another
// replica rebuilds the session (DESIGN.md, "Sealed sessions").
type sessionState struct {
	Level mcp.LoggingLevel `json:"level,omitempty"`
	Subs  []string         `json:"subs,omitempty"`
}

// rebuild connects a session this replica does not hold from its sealed
// id and the state the store kept, then restores its subscriptions.
func (t *sealedSessions) rebuild(w http.ResponseWriter, r *http.Request, id, caller string, s sealedID) *heldSession {
	if s.Init == nil {
		http.Error(w, "switchboard: session not found: it never initialized; initialize a new one", http.StatusNotFound)
		return nil
	}
	v, err := t.viewOf(r, s.Servers)
	if err != nil {
		http.Error(w, "switchboard: session not found: its servers are not all served here any more; initialize a new one", http.StatusNotFound)
		return nil
	}
	if t.g.sessions() >= t.max {
		w.Header().Set("Retry-After", "30")
		http.Error(w, fmt.Sprintf("switchboard: too many sessions (%d): close clients you do not use, or try again once one ends", t.max), http.StatusServiceUnavailable)
		return nil
	}
	var st sessionState
	data, err := t.store.Session(r.Context(), id)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		t.g.log.Warn("session store unavailable", "error", err)
		w.Header().Set("Retry-After", "5")
		http.Error(w, "switchboard: the session store is unavailable; try again", http.StatusServiceUnavailable)
		return nil
	default:
		if err := json.Unmarshal(data, &st); err != nil {
			t.g.log.Warn("a session's kept state is not ours; starting from none", "error", err)
		}
	}
	state := &mcp.ServerSessionState{
		InitializeParams:          s.Init,
		InitializedParams:         &mcp.InitializedParams{},
		NegotiatedProtocolVersion: negotiated(s.Init.ProtocolVersion),
		LogLevel:                  st.Level,
	}
	h, fresh, err := t.connect(r.Context(), v, id, caller, time.Unix(s.Expires, 0), state)
	if err != nil {
		t.g.log.Error("session rebuild failed", "error", err)
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return nil
	}
	if fresh {
		h.stateMu.Lock()
		h.subs = slices.Clone(st.Subs)
		h.stateMu.Unlock()
		t.g.rebuilt.Add(1)
		h.restoreSubs(r.Context(), st.Subs)
	}
	return h
}

// restoreSubs subscribes the rebuilt session to uris again, each as a
// resources/subscribe of its own through its transport: go-sdk then
// sends it the updates, and the gateway asks the server as for any
// subscribe.
func (h *heldSession) restoreSubs(ctx context.Context, uris []string) {
	for i, uri := range uris {
		body, _ := json.Marshal(map[string]any{
			"jsonrpc": "2.0", "id": fmt.Sprintf("switchboard-restore-%d", i),
			"method": "resources/subscribe", "params": map[string]string{"uri": uri},
		})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, Path, bytes.NewReader(body))
		if err != nil {
			continue
		}
		req.Header.Set("Content-Type", "application/json")
		rec := &recorder{header: http.Header{}}
		h.tr.ServeHTTP(rec, req)
		if rec.status >= 300 || strings.Contains(rec.body.String(), `"error"`) {
			h.t.g.log.Warn("a subscription of a rebuilt session was not restored", "uri", uri)
		}
	}
}

// keepState is the views' middleware that sends a held session's log
// level and subscriptions to the store when a request changes them.
func (g *Gateway) keepState(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return res, err
		}
		var change func(*heldSession)
		switch p := req.GetParams().(type) {
		case *mcp.SetLoggingLevelParams:
			change = func(h *heldSession) { h.level = p.Level }
		case *mcp.SubscribeParams:
			change = func(h *heldSession) {
				if !slices.Contains(h.subs, p.URI) {
					h.subs = append(h.subs, p.URI)
				}
			}
		case *mcp.UnsubscribeParams:
			change = func(h *heldSession) {
				h.subs = slices.DeleteFunc(h.subs, func(u string) bool { return u == p.URI })
			}
		default:
			return res, err
		}
		if v, ok := g.held.Load(ss.ID()); ok {
			v.(*heldSession).save(ctx, change)
		}
		return res, err
	}
}

// save applies change and keeps the state in the store. The change
// holds here either way: a store that fails is logged, and a replica
// that rebuilds the session later gets the state kept before.
func (h *heldSession) save(ctx context.Context, change func(*heldSession)) {
	if !h.t.sealed {
		return // the process's own table: nothing rebuilds a session from it
	}
	h.stateMu.Lock()
	change(h)
	data, _ := json.Marshal(sessionState{Level: h.level, Subs: h.subs})
	h.stateMu.Unlock()
	if err := h.t.store.PutSession(context.WithoutCancel(ctx), h.id, data, time.Until(h.expires)); err != nil {
		h.t.g.log.Warn("session state not kept in the store: another replica would not have it", "error", err)
	}
}

// recorder is the ResponseWriter of a request the gateway makes of a
// session itself.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}
func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}
func (r *recorder) Flush() {}

// accepts is go-sdk's reading of Accept: whether JSON, and an event
// stream, are acceptable.
func accepts(values []string) (jsonOK, streamOK bool) {
	for _, value := range values {
		for _, raw := range strings.Split(value, ",") {
			base, _, _ := strings.Cut(strings.TrimSpace(raw), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// acceptsBoth reports whether Accept takes both JSON and an event stream,
// which go-sdk asks of a POST.
func acceptsBoth(values []string) bool {
	jsonOK, streamOK := accepts(values)
	return jsonOK && streamOK
}

func mediaType(value string) string {
	t, _, err := mime.ParseMediaType(value)
	if err != nil {
		return ""
	}
	return t
}
