package host

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listKind names a list a server can announce a change of.
type listKind string

const (
	listTools     listKind = "tools"
	listResources listKind = "resources"
	listPrompts   listKind = "prompts"
)

// listChangedDebounce coalesces a burst of list_changed notifications into
// one refresh: servers often announce several changes in a row.
const listChangedDebounce = 50 * time.Millisecond

// newClient returns the go-sdk client for one server. A client per server
// keeps every callback tied to its server without a session lookup.
// notes is the logger name of the transport's own notes in the stream
// (transport.Hooks.NoteLogger), or "" when it writes none.
func (h *Host) newClient(s *server, notes string) *mcp.Client {
	opts := &mcp.ClientOptions{
		Logger: h.log.With("server", s.cfg.Name),
		ToolListChangedHandler: func(_ context.Context, req *mcp.ToolListChangedRequest) {
			h.listChanged(s, req.Session, listTools)
		},
		ResourceListChangedHandler: func(_ context.Context, req *mcp.ResourceListChangedRequest) {
			h.listChanged(s, req.Session, listResources)
		},
		PromptListChangedHandler: func(_ context.Context, req *mcp.PromptListChangedRequest) {
			h.listChanged(s, req.Session, listPrompts)
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			h.events.publish(Event{Type: EventResourceUpdated, Server: s.cfg.Name, URI: req.Params.URI})
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			p := req.Params
			call := h.calls.call(p.ProgressToken)
			prog := Progress{Token: p.ProgressToken, Progress: p.Progress, Total: p.Total}
			if call.progress != nil {
				h.guardCall(s, "progress", func() { call.progress(prog, h.redactor.String(p.Message)) })
			}
			h.events.publish(Event{Type: EventProgress, Server: s.cfg.Name, Message: p.Message, Tool: call.tool, Progress: &prog})
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			p := req.Params
			if notes != "" && p.Logger == notes {
				// The transport's note of what it dropped, in order.
				h.addLog(s, LogLine{Level: LevelWarn, Text: renderData(p.Data)})
				return
			}
			level := LevelInfo
			switch p.Level {
			case "warning":
				level = LevelWarn
			case "error", "critical", "alert", "emergency":
				level = LevelError
			}
			text := p.Logger
			if text != "" {
				text += ": "
			}
			text += renderData(p.Data)
			h.addLog(s, LogLine{Level: level, Text: text})
		},
	}
	h.serverRequests(s, opts)
	opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true} // inputRounds instead
	c := mcp.NewClient(&mcp.Implementation{Name: h.opts.ClientName, Version: h.opts.ClientVersion}, opts)
	var receive mcp.MethodHandler
	// First, so the log level's _meta and the probe apply to every round.
	c.AddSendingMiddleware(inputRounds(&receive))
	c.AddSendingMiddleware(logLevelMeta(h.opts.LogLevel))
	c.AddReceivingMiddleware(titledItems())
	if h.opts.ListRoots != nil {
		c.AddReceivingMiddleware(h.rootsFrom(s))
	}
	c.AddReceivingMiddleware(receiving(&receive)) // last: the whole chain
	h.roots.adopt(s.cfg.Name, c)
	return c
}

// listChanged refreshes one of a server's lists after */list_changed
// (DESIGN.md F26): debounced, one refresh at a time per list, and one more if
// another notification came in meanwhile. A change event follows only
// when the list really changed.
func (h *Host) listChanged(s *server, sess *mcp.ClientSession, kind listKind) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.phase.removed() || h.closed {
		return
	}
	if s.refreshing[kind] {
		s.again[kind] = true
		return
	}
	s.refreshing[kind] = true
	// A notification can arrive mid-handshake, before the session is
	// published: let the connect settle first, or its result would win.
	settled := s.settled
	h.goTracked(func() {
		select {
		case <-settled:
		case <-h.life.Done():
		}
		if kind != listTools { // nor the first listing of the rest of the catalog
			h.mu.Lock()
			listed := s.listed
			h.mu.Unlock()
			select {
			case <-listed:
			case <-h.life.Done():
			}
		}
		for {
			select {
			case <-time.After(listChangedDebounce):
			case <-h.life.Done():
			}
			h.mu.Lock()
			s.again[kind] = false
			live := s.session == sess && !h.closed
			h.mu.Unlock()
			if live {
				h.refreshList(s, sess, kind)
			}
			h.mu.Lock()
			again := s.again[kind] && live
			if !again {
				s.refreshing[kind] = false
			}
			h.mu.Unlock()
			if !again {
				return
			}
		}
	})
}

// refreshList re-reads one list from a live session and publishes it.
func (h *Host) refreshList(s *server, sess *mcp.ClientSession, kind listKind) {
	h.mu.Lock()
	timeout := s.cfg.EffectiveTimeout() // Reload may change it in place
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(h.life, timeout)
	defer cancel()
	var (
		tools     []*mcp.Tool
		resources []*mcp.Resource
		templates []*mcp.ResourceTemplate
		prompts   []*mcp.Prompt
		ttl       time.Duration
		err       error
		op        catalogOp
	)
	switch kind {
	case listTools:
		op = catalogTools
		tools, ttl, err = listToolsOf(ctx, sess)
	case listResources:
		op = catalogResources
		if resources, err = collect(sess.Resources(ctx, nil)); err == nil {
			templates, _ = collect(sess.ResourceTemplates(ctx, nil))
		}
	case listPrompts:
		op = catalogPrompts
		prompts, err = collect(sess.Prompts(ctx, nil))
	}
	if err != nil {
		h.addLog(s, LogLine{Level: LevelWarn, Text: "refreshing " + string(kind) + " after list_changed: " + err.Error()})
		return
	}
	fresh := h.maskCatalog(catalog{tools: tools, resources: resources, templates: templates, prompts: prompts})
	if kind == listTools {
		h.recordPins(s, fresh.tools)
	}
	h.mu.Lock()
	// Nothing changes when the session was dropped, replaced or removed
	// meanwhile.
	changed := h.changeCatalogLocked(s, catalogChange{op: op, sess: sess, catalog: fresh})
	h.mu.Unlock()
	if !changed {
		return
	}
	switch kind {
	case listTools:
		h.mu.Lock()
		s.expires = expiry(ttl)
		h.mu.Unlock()
	case listResources:
		h.events.publish(Event{Type: EventResources, Server: s.cfg.Name})
	case listPrompts:
		h.events.publish(Event{Type: EventPrompts, Server: s.cfg.Name})
	}
	h.storeCache(s, sess)
}

// renderData turns a log notification's data into one line of text.
func renderData(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "(unprintable log data)"
	}
	return string(b)
}

// addLog records a line in a server's log and publishes it, and returns
// its text as kept.
func (h *Host) addLog(s *server, l LogLine) string {
	if l.Time.IsZero() {
		l.Time = time.Now()
	}
	// Masked once, here, and only then cut: the log keeps, and the event
	// and a failure's error quote, the masked line.
	l.Text = cutLogLine(h.redactor.String(l.Text), maxLogLine)
	s.log.add(l)
	h.events.publish(Event{Time: l.Time, Type: EventLog, Server: s.cfg.Name, Level: l.Level, Message: l.Text})
	return l.Text
}
