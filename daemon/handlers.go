package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/switchboard-mcp/switchboard/host"
)

// maxRequest bounds a request's body: a call's arguments are the largest.
const maxRequest = 64 << 20

// routes is the control API (DESIGN.md F56).
func (d *daemon) routes() http.Handler {
	mux := http.NewServeMux()
	get := func(path string, fn func(*http.Request) (any, error)) {
		mux.HandleFunc("GET "+path, d.answer(fn))
	}
	post := func(path string, fn func(*http.Request) (any, error)) {
		mux.HandleFunc("POST "+path, d.answer(fn))
	}
	h := d.a.Host()
	get("/v1/info", func(*http.Request) (any, error) { return d.info(), nil })
	get("/v1/status", func(*http.Request) (any, error) { return h.Status(), nil })
	post("/v1/settle", func(r *http.Request) (any, error) { return struct{}{}, h.WaitSettled(r.Context()) })
	post("/v1/tools", func(r *http.Request) (any, error) {
		var req toolsRequest
		if err := readBody(r, &req); err != nil {
			return nil, err
		}
		v := h.View(req.Filter)
		if req.Search {
			// Hits are tools with why beside their fields: a client
			// that reads tools reads them.
			return orEmpty(v.SearchToolHits(req.Query, req.Limit)), nil
		}
		return orEmpty(v.Tools().Tools), nil
	})
	post("/v1/find", func(r *http.Request) (any, error) {
		var req findRequest
		if err := readBody(r, &req); err != nil {
			return nil, err
		}
		return h.View(req.Filter).Find(req.Kind, req.Name)
	})
	get("/v1/resources", func(*http.Request) (any, error) {
		rs, ts := h.Resources()
		return resourcesReply{orEmpty(rs), orEmpty(ts)}, nil
	})
	post("/v1/read", func(r *http.Request) (any, error) {
		var req readRequest
		if err := readBody(r, &req); err != nil {
			return nil, err
		}
		return h.ReadResource(r.Context(), req.Server, req.URI)
	})
	get("/v1/prompts", func(*http.Request) (any, error) {
		out := []wirePrompt{}
		for _, p := range h.Prompts() {
			out = append(out, wirePrompt{p.Exposed, p})
		}
		return out, nil
	})
	post("/v1/prompt", func(r *http.Request) (any, error) {
		var req promptRequest
		if err := readBody(r, &req); err != nil {
			return nil, err
		}
		return h.GetPrompt(r.Context(), req.Server, req.Name, req.Args)
	})
	get("/v1/logs", func(r *http.Request) (any, error) {
		server := r.URL.Query().Get("server")
		lines, ok := h.Logs(server)
		if !ok {
			return nil, &remoteError{"no server named " + quote(server), errUnknownServer}
		}
		return orEmpty(lines), nil
	})
	get("/v1/sources", func(r *http.Request) (any, error) {
		if d.opts.Sources == nil {
			return nil, errors.New("this daemon has no view of discovery")
		}
		return d.opts.Sources(r.Context())
	})
	mux.HandleFunc("POST "+callPath, d.busy(d.call))
	mux.HandleFunc("GET /v1/events", d.busy(d.events))
	mux.HandleFunc("POST /v1/attach", d.busy(d.attach))
	mux.HandleFunc("POST /v1/stop", d.stopRequest)
	return mux
}

// busy marks the daemon in use while fn answers.
func (d *daemon) busy(fn http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d.enter()
		defer d.leave()
		fn(w, r)
	}
}

// answer serves fn's value as JSON, or its error as a wireError.
func (d *daemon) answer(fn func(*http.Request) (any, error)) http.HandlerFunc {
	return d.busy(func(w http.ResponseWriter, r *http.Request) {
		v, err := fn(r)
		if err != nil {
			writeError(w, statusOf(err), err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(v); err != nil {
			d.log.Debug("daemon: writing an answer", "path", r.URL.Path, "err", err)
		}
	})
}

// callPath is a tool call's: its body, the arguments, may be large.
const callPath = "/v1/call"

// maxControl bounds the body of every request but a call: a view, a name,
// a URI, a prompt's arguments.
const maxControl = 1 << 20

func readBody(r *http.Request, v any) error {
	limit := int64(maxControl)
	if r.URL.Path == callPath {
		limit = maxRequest
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, limit)).Decode(v); err != nil {
		return badRequest("%s: %v", r.URL.Path, err)
	}
	return nil
}

// orEmpty makes a nil list an empty one: JSON [] rather than null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// call makes a call and streams its progress as NDJSON lines, then its
// result. The client's leaving cancels the call, which the host passes
// on to the server (notifications/cancelled).
func (d *daemon) call(w http.ResponseWriter, r *http.Request) {
	var req callRequest
	if err := readBody(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if d.a.Draining() {
		writeError(w, http.StatusServiceUnavailable, errDraining)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	flusher, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	var mu sync.Mutex
	done := false
	send := func(line callLine) {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return // a report that came after the result
		}
		if err := enc.Encode(line); err == nil && flusher != nil {
			flusher.Flush()
		}
	}
	ctx := host.WithProgress(r.Context(), func(p host.Progress, msg string) {
		send(callLine{Progress: &p, Message: msg})
	})
	var args any = req.Args
	if req.ArgsText != nil {
		args = *req.ArgsText
	} else if req.Args == nil {
		args = nil
	}
	res, err := d.a.Host().View(req.Filter).CallTool(ctx, req.Name, args)
	line := callLine{}
	if res != nil {
		if b, merr := json.Marshal(res); merr == nil {
			line.Result = b
		}
	}
	if err != nil {
		we := encodeError(err)
		line.Error = &we
	}
	send(line)
	mu.Lock()
	done = true
	mu.Unlock()
}

// events streams the host's events as NDJSON until the client leaves or
// the daemon stops.
func (d *daemon) events(w http.ResponseWriter, r *http.Request) {
	d.client(1)
	defer d.client(-1)
	sub := d.a.Host().Subscribe()
	defer sub.Close()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(d.streams, cancel)()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	enc := json.NewEncoder(w)
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-sub.C:
			if !ok {
				return
			}
			if err := enc.Encode(e); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}

// attach takes the connection over as a raw MCP stream (newline-
// delimited JSON-RPC, as stdio) that the app's gateway serves as its own
// downstream session, through the view the query's filter names.
func (d *daemon) attach(w http.ResponseWriter, r *http.Request) {
	var f host.ViewFilter
	if err := readBody(r, &f); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if d.a.Draining() || d.a.Gateway() == nil {
		err := errDraining
		if d.a.Gateway() == nil {
			err = errors.New("this daemon's app serves no gateway (app.Options.Gateway): nothing to attach to")
		}
		writeError(w, http.StatusServiceUnavailable, err)
		return
	}
	conn, buf, err := hijack(w, "mcp-stdio")
	if err != nil {
		d.log.Warn("daemon: attach", "err", err)
		return
	}
	if !d.track(conn) {
		conn.Close()
		return
	}
	d.client(1)
	defer func() {
		d.client(-1)
		d.untrack(conn)
		conn.Close()
		d.sessions.Done()
	}()
	s := newSession(&d.flights, conn)
	defer s.end()
	err = d.a.ServePipe(d.attached, f, readCloser{reader{buf, s}, s}, writer{s})
	switch {
	case s.stalled():
		d.log.Warn("daemon: an attached client took no message in time; its session is ended", "timeout", writeTimeout)
	case err != nil && d.attached.Err() == nil:
		d.log.Debug("daemon: an attached session ended", "err", err)
	}
}

// stopRequest begins the daemon's end and keeps the connection open
// until the daemon has closed its app: the caller learns the end from
// its closing.
func (d *daemon) stopRequest(w http.ResponseWriter, r *http.Request) {
	conn, _, err := hijack(w, "switchboard-stop")
	if err != nil {
		return
	}
	d.mu.Lock()
	if d.gone {
		conn.Close()
	} else {
		d.waiters = append(d.waiters, conn)
	}
	d.mu.Unlock()
	d.stop()
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
