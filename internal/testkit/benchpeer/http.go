package benchpeer

import (
	"bytes"
	"io"
	"net/http"
	"sync"
)

// SessionID is the one session the HTTP floor server hands out. Every
// client shares it: the server keeps no state, so there is nothing to mix.
const SessionID = "floor"

// maxBody bounds one request body, as maxLine bounds a line.
const maxBody = maxLine

var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// Handler is the floor server over streamable HTTP: a POST carries one
// message and gets its answer as application/json (a notification gets
// 202 Accepted), GET says there is no stream for server messages (405,
// which clients take as "none"), and DELETE ends nothing and says so
// (204). net/http's own work per request remains; the handler adds a copy
// of the body and the canned answer.
func Handler() http.Handler {
	return http.HandlerFunc(serveHTTP)
}

func serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	body, err := readAll((*bp)[:0], io.LimitReader(r.Body, maxBody+1))
	*bp = body[:0]
	if err != nil || len(body) > maxBody {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	ap := bufs.Get().(*[]byte)
	defer bufs.Put(ap)
	answer, ok := Answer((*ap)[:0], bytes.TrimSpace(body))
	*ap = answer[:0]
	if !ok {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h := w.Header()
	h["Content-Type"] = contentJSON
	h["Mcp-Session-Id"] = sessionHeader
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(answer)
}

// Header values, allocated once.
var (
	contentJSON   = []string{"application/json"}
	sessionHeader = []string{SessionID}
)

// readAll is io.ReadAll into a buffer the caller keeps.
func readAll(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
