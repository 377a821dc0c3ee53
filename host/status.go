package host

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// Status is what the host knows about one server (DESIGN.md F16).
type Status struct {
	Name      string           `json:"name"`
	State     State            `json:"state"`
	Transport config.Transport `json:"transport"`
	Source    config.Source    `json:"source"`
	Since     time.Time        `json:"since"`
	Error     string           `json:"error,omitempty"`
	Attempts  int              `json:"attempts"`
	// Retry is when a server that lost its connection is tried next; zero
	// unless it is waiting to.
	Retry     time.Time `json:"retryAt,omitzero"`
	Tools     int       `json:"tools"`
	Resources int       `json:"resources"`
	Prompts   int       `json:"prompts"`
	PID       int       `json:"pid,omitempty"`
	// ConnectTime is how long the last connect took, handshake and lists.
	ConnectTime time.Duration `json:"connectTimeMs"`
	// ServerInfo is what the server said about itself, once connected.
	ServerInfo *mcp.Implementation `json:"serverInfo,omitempty"`
	// Instructions are what the server tells agents about itself (its
	// handshake's instructions), MaxInstructions at most, secrets masked.
	Instructions string `json:"instructions,omitempty"`
	// ProtocolVersion is the MCP version the server speaks: its
	// connection's, else the one it spoke last (remembered with its
	// cached tools); "" when not known yet.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// Pins are the server's tools that differ from what was first seen
	// or approved (DESIGN.md F66), withheld ones included, by name.
	Pins []PinChange `json:"pins,omitempty"`
}

// MarshalJSON writes ConnectTime in milliseconds, which scripts read more
// easily than Go's nanoseconds.
func (s Status) MarshalJSON() ([]byte, error) {
	type plain Status
	return json.Marshal(struct {
		plain
		ConnectTime float64 `json:"connectTimeMs"`
	}{plain(s), float64(s.ConnectTime.Microseconds()) / 1000})
}

// ServerNames are the configured servers' names, in config order: what
// Status names, without building it.
func (h *Host) ServerNames() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.order)
}

// Status returns every server's status in config order, secrets masked.
func (h *Host) Status() []Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.flushToolsLocked()
	counts := map[string]int{}
	for _, t := range h.tools.Tools {
		counts[t.Server]++
	}
	out := make([]Status, 0, len(h.order))
	for _, name := range h.order {
		s := h.servers[name]
		st := Status{
			Name:        name,
			State:       s.stateLocked(),
			Transport:   s.transport,
			Source:      s.cfg.Source,
			Since:       s.since,
			Attempts:    s.attempts,
			Retry:       s.retryAt,
			Tools:       counts[name],
			Resources:   len(s.resources),
			Prompts:     len(s.prompts),
			PID:         s.pid,
			ConnectTime: s.connectDur,
			Pins:        slices.Clone(s.pinChanges),
		}
		if s.err != nil {
			st.Error = h.redactor.String(s.err.Error())
		}
		st.ProtocolVersion = s.era
		if s.initRes != nil {
			st.ServerInfo = h.maskInfo(s.initRes.ServerInfo)
			st.Instructions = h.instructions(s.initRes)
		}
		out = append(out, st)
	}
	return out
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "(unprintable)"
	}
	return string(b)
}

// asMap turns a schema of any Go shape into a generic map by a JSON round
// trip; go-sdk hands schemas over as `any`.
func asMap(v any) (map[string]any, bool) {
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, false
	}
	return m, true
}

// MaxInstructions caps a server's instructions as the host passes them on
// (Status, events, the prompt section): they go into an agent's context,
// and a server could otherwise fill it. Claude Code caps them at 2 KB too.
const MaxInstructions = 2048

// instructions are a server's instructions, masked and capped at
// MaxInstructions bytes (cut at a character, with "…" to say so).
func (h *Host) instructions(r *mcp.InitializeResult) string {
	return capText(h.redactor.String(r.Instructions), MaxInstructions)
}

// capText cuts s to at most max bytes at a character boundary, ending it
// with "…" when it was cut.
func capText(s string, max int) string { return clip.To(s, max) }
