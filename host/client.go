package host

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newClient returns the go-sdk client for one server. A client per server
// keeps every callback tied to its server without a session lookup.
func (h *Host) newClient(s *server) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: h.opts.ClientName, Version: h.opts.ClientVersion}, &mcp.ClientOptions{
		Logger: h.log.With("server", s.cfg.Name),
		ToolListChangedHandler: func(_ context.Context, req *mcp.ToolListChangedRequest) {
			h.refreshTools(s, req.Session)
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			p := req.Params
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
	})
}

// refreshTools re-lists a server's tools after tools/list_changed. A
// refresh already running is enough for a burst of notifications; one more
// runs after it if another arrived meanwhile.
func (h *Host) refreshTools(s *server, sess *mcp.ClientSession) {
	h.mu.Lock()
	if s.detached || h.closed || s.session != sess && s.session != nil {
		h.mu.Unlock()
		return
	}
	if s.refreshing {
		s.refreshAgain = true
		h.mu.Unlock()
		return
	}
	s.refreshing = true
	// A notification can arrive mid-handshake, before the session is
	// published: let the connect finish first, or its result would win.
	settled := s.settled
	h.goTracked(func() {
		<-settled
		for {
			ctx, cancel := context.WithTimeout(h.life, s.cfg.EffectiveTimeout())
			tools, err := collect(sess.Tools(ctx, nil))
			cancel()
			h.mu.Lock()
			if err == nil && s.session == sess && !s.detached {
				s.live, s.cached = tools, tools
			}
			again := s.refreshAgain && !s.detached && !h.closed
			s.refreshAgain = false
			if !again {
				s.refreshing = false
			}
			changed := err == nil && h.rebuildToolsLocked()
			h.mu.Unlock()
			if err != nil {
				h.addLog(s, LogLine{Level: LevelWarn, Text: "refreshing tools after list_changed: " + err.Error()})
			}
			if changed {
				h.publishTools()
				if err := h.cache.Store(s.cfg.Name, s.fingerprint, tools); err != nil {
					h.log.Warn("tool cache write failed", "server", s.cfg.Name, "error", err)
				}
			}
			if !again {
				return
			}
		}
	})
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

// addLog records a line in a server's log and publishes it.
func (h *Host) addLog(s *server, l LogLine) {
	if l.Time.IsZero() {
		l.Time = time.Now()
	}
	s.log.add(l)
	h.events.publish(Event{Time: l.Time, Type: EventLog, Server: s.cfg.Name, Level: l.Level, Message: l.Text})
}
