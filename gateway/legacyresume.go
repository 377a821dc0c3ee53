package gateway

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// With an event store (sealed sessions, DESIGN.md, "A legacy call on the
// session's own connection"), a fast call whose answer became an event
// stream keeps its events in the store as go-sdk's transport keeps its
// streams': under a stream id of its own, each event's id
// "<stream>_<index>", so that a client whose stream broke resumes it with
// Last-Event-ID. A GET that resumes an unanswered fast call's stream is
// served here (the events it missed, then the rest as they come); one
// that resumes an answered stream, or another replica's, is go-sdk's
// transport's, which replays the stored events.

// beginStream gives the call's event stream an id in the event store.
func (c *fastCall) beginStream(ctx context.Context) error {
	events := c.conn.events
	if events == nil {
		return nil
	}
	c.stream = rand.Text()
	if err := events.Open(ctx, c.conn.SessionID(), c.stream); err != nil {
		return fmt.Errorf("%w: storing stream: %v", errRejected, err)
	}
	c.conn.mu.Lock()
	c.conn.streams[c.stream] = c
	c.conn.mu.Unlock()
	return nil
}

// endStream ends the call's stream here, once its reply is stored: a
// later resumption is replayed from the store by go-sdk's transport.
func (c *fastCall) endStream() {
	if c.stream == "" {
		return
	}
	c.conn.mu.Lock()
	delete(c.conn.streams, c.stream)
	c.conn.mu.Unlock()
}

// store appends data to the call's stream in the event store, if any, and
// answers the event's id and whether it was stored.
func (c *fastCall) store(ctx context.Context, data []byte) (id string, stored bool) {
	if c.stream == "" {
		return "", false
	}
	c.lastIdx++
	id = c.stream + "_" + strconv.Itoa(c.lastIdx)
	if err := c.conn.events.Append(ctx, c.conn.SessionID(), c.stream, data); err != nil {
		return id, false
	}
	return id, true
}

// resume serves a GET whose Last-Event-ID names the stream of an
// unanswered fast call of this session; false leaves the GET to go-sdk's
// transport, nothing written.
func (c *fastConn) resume(w http.ResponseWriter, r *http.Request) bool {
	if c.events == nil || len(r.Header.Values("Last-Event-ID")) == 0 {
		return false
	}
	stream, idx, ok := parseEventID(r.Header.Get("Last-Event-ID"))
	if !ok {
		return false // go-sdk refuses it
	}
	c.mu.Lock()
	call := c.streams[stream]
	c.mu.Unlock()
	if call == nil {
		return false
	}
	call.mu.Lock()
	switch {
	case call.finished:
		call.mu.Unlock()
		return false // answered meanwhile: all of it is in the store
	case call.w != nil:
		call.mu.Unlock()
		http.Error(w, "stream ID conflicts with ongoing stream", http.StatusConflict)
		return true
	}
	// The events after idx, written before any new one (which waits for
	// the call's lock), as go-sdk replays.
	var missed [][]byte
	for data, err := range c.events.After(r.Context(), c.SessionID(), stream, idx) {
		if err != nil {
			call.mu.Unlock()
			http.Error(w, "failed to replay events", http.StatusBadRequest)
			return true
		}
		if len(data) > 0 {
			missed = append(missed, data)
		}
	}
	call.w = w
	call.streamHeaders()
	for _, data := range missed {
		idx++
		if writeEventTo(w, stream+"_"+strconv.Itoa(idx), data) != nil {
			break
		}
	}
	_ = call.rc.Flush()
	call.mu.Unlock()
	c.await(call, w, r)
	return true
}

// parseEventID reads a Last-Event-ID as go-sdk writes event ids:
// "<stream>_<index>".
func parseEventID(id string) (stream string, idx int, ok bool) {
	parts := strings.Split(id, "_")
	if len(parts) != 2 {
		return "", 0, false
	}
	idx, err := strconv.Atoi(parts[1])
	if err != nil || idx < 0 {
		return "", 0, false
	}
	return parts[0], idx, true
}
