package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/internal/transport"
	"github.com/switchboard-mcp/switchboard/internal/glob"
)

// Tool is one exposed tool (DESIGN.md F21).
type Tool struct {
	Name         string               `json:"name"` // exposed, unique
	Server       string               `json:"server"`
	Tool         string               `json:"tool"` // the server's own name
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description"`
	InputSchema  any                  `json:"inputSchema"`
	OutputSchema any                  `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
	AutoApprove  bool                 `json:"autoApprove"`
	// AlwaysLoad says the tool's schema is to be shown to a model even
	// when the others are deferred behind a search (the server's config
	// has alwaysLoad).
	AlwaysLoad bool `json:"alwaysLoad,omitempty"`
	// Deferred tools come from the cache: their server is not connected
	// yet, and a call waits for it.
	Deferred bool `json:"deferred"`
	// Pin says the tool is not as first seen or approved (DESIGN.md
	// F66): PinChanged or PinReadded, with PinChanged naming the parts
	// that differ. Such a tool is listed only on a server without
	// pinTools; "" for a tool as approved.
	Pin        string   `json:"pin,omitempty"`
	PinChanged []string `json:"pinChanged,omitempty"`
}

// DefinitionTokens estimates how many tokens the tools' definitions take
// in a model's context, names, descriptions and schemas (a byte count of
// their JSON over four: a rough rule, the same every time).
func (s ToolSet) DefinitionTokens() int {
	n := 0
	for _, t := range s.Tools {
		b, _ := json.Marshal(struct {
			Name, Description string
			Schema            any
		}{t.Name, t.Description, t.InputSchema})
		n += len(b)
	}
	return n / 4
}

// DeferSchemas reports whether an agent should show the model names and
// one-line descriptions (PromptSection) and load schemas on demand (Tool,
// a search) rather than every tool's schema: when the definitions would
// take more than fraction of a context of contextTokens. Claude Code
// defers at a tenth. Tools with AlwaysLoad are shown either way.
func (s ToolSet) DeferSchemas(contextTokens int, fraction float64) bool {
	return float64(s.DefinitionTokens()) > fraction*float64(contextTokens)
}

// ToolSet is a snapshot of every exposed tool, sorted by name so prompts
// and prompt caches stay stable. Version grows on every change.
type ToolSet struct {
	Version uint64
	Tools   []Tool
}

// allowed applies a server's tool filter (DESIGN.md F29): deny wins, and an
// empty allow list allows everything.
func allowed(f config.ToolFilter, tool string) bool {
	if glob.First(f.Deny, tool) != "" {
		return false
	}
	return len(f.Allow) == 0 || glob.First(f.Allow, tool) != ""
}

// progressKey carries a call's own progress callback (WithProgress).
type progressKey struct{}

// WithProgress returns ctx for a CallTool whose progress reports (and
// their messages, secrets masked) go to fn as well as to the events: for
// a gateway that passes each on to the client whose call it is. fn is called from go-sdk's goroutines, in the
// order the server sent them, and must not block for long.
func WithProgress(ctx context.Context, fn func(Progress, string)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ProgressFunc is the function WithProgress put in ctx, nil when none:
// for a client that carries a call elsewhere (a daemon's) and hands the
// reports it gets back on.
func ProgressFunc(ctx context.Context) func(Progress, string) { return progressFrom(ctx) }

func progressFrom(ctx context.Context) func(Progress, string) {
	fn, _ := ctx.Value(progressKey{}).(func(Progress, string))
	return fn
}

// CallTool calls an exposed tool with args through its server's live
// connection (DESIGN.md F23). args is a JSON object: a map, a struct, or
// JSON text (json.RawMessage, []byte or a string holding an object); nil,
// empty text and JSON null mean no arguments, and anything else (a
// number, an array, text that is not JSON) is ErrBadArguments, not sent.
// A deferred tool first waits for its server to connect, bounded by the
// server's startup timeout, and a lazy server is started. Each call is
// bounded by the server's request timeout.
//
// The result is kept whole (DESIGN.md F24), and it is never nil: when the
// call fails, the result is an error result (IsError) whose text, "MCP
// error: …", says why, for an agent to show its model as it shows any
// tool's output, and the error says the same to the program; errors.Is
// tells which failure it was (ErrProtocol, ErrConnectionLost,
// ErrUnavailable, context.DeadlineExceeded, context.Canceled, ErrClosed,
// ErrNotStarted, ErrUnknownTool, ErrBadArguments: errors.go). A tool's
// own error is an answer, not a failure: IsError with a nil error. Both
// have the secrets the host knows masked (F44). Cancelling ctx aborts the call and sends
// notifications/cancelled to the server; Close aborts it too. A call whose
// connection closed before its request was written (a server that just
// crashed) waits for the reconnect.
func (h *Host) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	res, err := h.callTool(ctx, name, args)
	if err != nil {
		return errorResult(err), err
	}
	return res, nil
}

func (h *Host) callTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	args, err := callArguments(args)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	var stale *mcp.ClientSession
	for tries := 0; ; tries++ {
		sess, key, timeout, err := h.sessionFor(ctx, name, stale)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("call %s: %w", name, ctx.Err())
			}
			return nil, h.maskError(err)
		}
		res, err := h.callOn(ctx, sess, key, name, args, timeout)
		var ce *CallError
		if errors.As(err, &ce) && !ce.Sent && notWritten(err) && tries < unwrittenRetries {
			// The connection was closing when the request would have gone
			// out (a server that just crashed): wait for the next one, as
			// a call made a moment later would.
			stale = sess
			continue
		}
		return res, err
	}
}

// unwrittenRetries bounds how often a call whose request was never
// written goes again on the next connection: a server that crashes at
// once every time is given up on by the supervisor long before, so this
// only keeps a call from following a crash loop's every attempt.
const unwrittenRetries = 3

// callOn makes one call on sess.
func (h *Host) callOn(ctx context.Context, sess *mcp.ClientSession, key toolKey, name string, args any, timeout time.Duration) (res *mcp.CallToolResult, err error) {
	ctx = withCaller(ctx, key.server, name)
	// Close ends every call in flight: go-sdk's session close waits for
	// each outgoing call, so a long call would otherwise hold Close.
	callCtx, cancelCall := context.WithCancelCause(ctx)
	defer cancelCall(nil)
	defer context.AfterFunc(h.life, func() { cancelCall(ErrClosed) })()
	// A caller's own deadline that comes first bounds the call by itself:
	// no second timer for a timeout that cannot fire first.
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > timeout {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(callCtx, timeout)
		defer cancel()
	}
	params := &mcp.CallToolParams{Name: key.tool, Arguments: args}
	// Every call carries a progress token, so a server can report progress
	// and the report reaches events tagged with the tool it belongs to.
	token, n := h.calls.track(callCtx, name)
	defer h.calls.untrack(n)
	params.SetProgressToken(token)
	reqCtx, observed := h.observeCall(callCtx, &ObservedCall{Server: key.server, Tool: name, Session: sess.ID(), Params: params})
	defer func() { observed(res, err) }()
	began := time.Now()
	res, err = sess.CallTool(reqCtx, params)
	h.logCall(ctx, key, began, res, err)
	switch {
	case err == nil:
		return res, nil
	case ctx.Err() != nil:
		return nil, &CallError{Server: key.server, Tool: key.tool, Err: ctx.Err(), Sent: true}
	case errors.Is(context.Cause(callCtx), ErrClosed):
		return nil, &CallError{Server: key.server, Tool: key.tool, Err: ErrClosed, Sent: true}
	case callCtx.Err() != nil:
		err = fmt.Errorf("no result within %s: %w", timeout, callCtx.Err())
	}
	return nil, &CallError{Server: key.server, Tool: key.tool, Err: h.redactor.Error(err), Sent: !undelivered(err) && !notWritten(err)}
}

// notWritten reports whether err says the request was never written to
// its connection: go-sdk refused it on a connection already closing, or
// the write itself failed.
func notWritten(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, transport.ErrNotWritten)
}

// rejected is go-sdk's error for a request its transport refused to send
// or could not deliver (jsonrpc2.ErrRejected, -32005): over HTTP, a POST
// that got no answer at all (the server is down) or a 429 or 5xx; its
// Is compares codes.
var rejected = &jsonrpc.Error{Code: -32005}

// undelivered reports whether err says the request never reached the
// server: the transport rejected it, and no error of the server's own
// (a JSON-RPC error in the body of a refused POST) came with it.
func undelivered(err error) bool {
	if !errors.Is(err, rejected) {
		return false
	}
	var own *jsonrpc.Error
	for e := range errorTree(err) {
		if errors.As(e, &own) && own.Code != rejected.Code {
			return false
		}
	}
	return true
}

// errorTree yields err and every error it wraps, depth first.
func errorTree(err error) func(yield func(error) bool) {
	return func(yield func(error) bool) {
		var walk func(error) bool
		walk = func(e error) bool {
			if e == nil {
				return true
			}
			if !yield(e) {
				return false
			}
			switch u := e.(type) {
			case interface{ Unwrap() error }:
				return walk(u.Unwrap())
			case interface{ Unwrap() []error }:
				for _, c := range u.Unwrap() {
					if !walk(c) {
						return false
					}
				}
			}
			return true
		}
		walk(err)
	}
}

// logCall notes a call's tool, time and outcome; never its arguments or
// result, which may hold anything. Below debug level it costs nothing: the
// line's arguments are not even built.
func (h *Host) logCall(ctx context.Context, key toolKey, began time.Time, res *mcp.CallToolResult, err error) {
	if !h.log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	outcome := "ok"
	switch {
	case err != nil:
		outcome = "failed"
	case res.IsError:
		outcome = "tool error"
	}
	args := []any{"server", key.server, "tool", key.tool, "took", since(began), "outcome", outcome}
	if err != nil {
		args = append(args, "error", err)
	}
	h.log.Debug("call", args...)
}

// sessionFor finds the live session for an exposed tool, waiting for a
// connecting server and starting a lazy one.
//
// A session that is stale (one a call found closed) is not returned: the
// call waits for the server to drop it and connect again.
func (h *Host) sessionFor(ctx context.Context, name string, stale *mcp.ClientSession) (*mcp.ClientSession, toolKey, time.Duration, error) {
	var (
		key      toolKey
		found    bool
		deadline <-chan time.Time
	)
	for {
		h.mu.Lock()
		if !found {
			// The name is resolved once: a reload or a restart while the
			// call waits puts a new entry for the same tool in place.
			if h.closed {
				h.mu.Unlock()
				return nil, toolKey{}, 0, ErrClosed
			}
			if !h.started {
				h.mu.Unlock()
				return nil, toolKey{}, 0, ErrNotStarted
			}
			h.flushToolsLocked() // the name may be a tool of a server just connected
			var ok bool
			if key, ok = h.names[KindTool].index[name]; !ok {
				err := h.goneLocked(name)
				h.mu.Unlock()
				return nil, toolKey{}, 0, err
			}
			found = true
		}
		s := h.servers[key.server]
		if s == nil { // removed by a reload the tool set has not caught up with
			h.mu.Unlock()
			return nil, key, 0, fmt.Errorf("%w %q", ErrUnknownTool, name)
		}
		if s.cfg.Lazy && s.phase == phaseIdle {
			h.startLocked(s) // a lazy server's first call
		}
		sess, settled, timeout := s.session, s.settled, s.cfg.EffectiveTimeout()
		waits := s.phase.waits()
		if sess != nil && sess == stale {
			sess, settled, waits = nil, s.gone, true
		}
		startup := s.cfg.EffectiveStartupTimeout()
		why := s.err
		if sess != nil && h.withholdsLocked(s, key.tool) {
			// A deferred tool resolved before its server connected, whose
			// definition then turned out changed (DESIGN.md F66).
			h.mu.Unlock()
			return nil, key, 0, h.refuseWithheld(name, key)
		}
		h.mu.Unlock()
		if sess != nil {
			return sess, key, timeout, nil
		}
		if !waits {
			if why == nil {
				why = errors.New("server is not connected")
			}
			return nil, key, 0, &CallError{Server: key.server, Tool: key.tool, Err: why}
		}
		if deadline == nil {
			timer := time.NewTimer(startup)
			defer timer.Stop()
			deadline = timer.C
		}
		if h.hooks.callWaits != nil {
			h.hooks.callWaits(key.server)
		}
		// Wait for this attempt, then look again: a reload or a restart may
		// have put a new entry or a new attempt in its place.
		select {
		case <-settled:
		case <-deadline:
			return nil, key, 0, &CallError{Server: key.server, Tool: key.tool, Err: fmt.Errorf("server not connected within %s", startup)}
		case <-ctx.Done():
			return nil, key, 0, ctx.Err()
		case <-h.life.Done():
			return nil, key, 0, &CallError{Server: key.server, Tool: key.tool, Err: ErrClosed}
		}
	}
}

// goneLocked explains a name that is not in the tool set: a tool whose
// server is down says which server and why; any other name is unknown.
func (h *Host) goneLocked(name string) error {
	if server, tool, ok := h.withheldLocked(name); ok {
		return h.refuseWithheld(name, toolKey{server, tool})
	}
	k, ok := h.names[KindTool].departed[name]
	s := h.servers[k.server]
	if !ok || s == nil || s.phase == phaseConnected || s.phase.removed() {
		// Connected without it: the server no longer offers the tool.
		return fmt.Errorf("%w %q", ErrUnknownTool, name)
	}
	why := s.err
	state := s.stateLocked()
	if why == nil {
		why = fmt.Errorf("server is %s", state)
	} else {
		why = fmt.Errorf("server is %s: %w", state, why)
	}
	return &CallError{Server: k.server, Tool: k.tool, Err: why}
}

// errorResult wraps a failure as tool output an agent can read.
func errorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: "MCP error: " + err.Error()}},
	}
}

// ResultText renders a result as text for agents that take text only:
// text as is, other content summarised, structured content as JSON when
// there is no text. A nil result is "".
func ResultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		switch c := c.(type) {
		case *mcp.TextContent:
			b.WriteString(c.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes]", c.MIMEType, len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", c.MIMEType, len(c.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(&b, "[resource link %s]", c.URI)
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				fmt.Fprintf(&b, "[resource %s]\n%s", c.Resource.URI, c.Resource.Text)
			} else if c.Resource != nil {
				fmt.Fprintf(&b, "[resource %s, %d bytes]", c.Resource.URI, len(c.Resource.Blob))
			}
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		fmt.Fprintf(&b, "%v", jsonText(res.StructuredContent))
	}
	return b.String()
}
