package host

import (
	"context"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverRequests wires the requests a server may send the host (DESIGN.md F27)
// to the embedder's handlers. A capability is advertised only when its
// handler is set, so servers do not ask for what nobody can answer.
func (h *Host) serverRequests(s *server, opts *mcp.ClientOptions) {
	name := s.cfg.Name
	switch {
	case h.opts.SamplingWithTools != nil:
		opts.CreateMessageWithToolsHandler = func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			ctx, done := h.callerContext(ctx, name)
			defer done()
			if own := viewSampling(ctx); own != nil {
				if p, ok := withoutTools(req.Params); ok {
					res, err := guard(h, s, "sampling", false, func() (*mcp.CreateMessageResult, error) { return own(ctx, name, p) })
					if err != nil {
						return nil, err
					}
					return &mcp.CreateMessageWithToolsResult{Meta: res.Meta, Content: []mcp.Content{res.Content}, Model: res.Model, Role: res.Role, StopReason: res.StopReason}, nil
				}
			}
			return guard(h, s, "sampling", false, func() (*mcp.CreateMessageWithToolsResult, error) {
				return h.opts.SamplingWithTools(ctx, name, req.Params)
			})
		}
	case h.opts.Sampling != nil:
		opts.CreateMessageHandler = func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			ctx, done := h.callerContext(ctx, name)
			defer done()
			return guard(h, s, "sampling", false, func() (*mcp.CreateMessageResult, error) {
				return h.sampling(ctx)(ctx, name, req.Params)
			})
		}
	}
	if h.opts.Elicitation != nil {
		opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			params := req.Params
			if own, ok := ctx.Value(serverSchemaKey{}).(*mcp.ElicitParams); ok {
				params = own
			}
			ctx, done := h.callerContext(ctx, name)
			defer done()
			res, err := guard(h, s, "elicitation", false, func() (*mcp.ElicitResult, error) {
				return h.elicitation(ctx)(ctx, name, params)
			})
			if err != nil {
				return nil, err
			}
			if res.Action == "accept" {
				res.Content = withDefaults(params, res.Content)
			}
			return res, nil
		}
	}
}

// withoutTools is p as a sampling request without tools, for a Sampling
// handler, when it is one: no tools, no tool choice, one content block a
// message.
func withoutTools(p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageParams, bool) {
	if p == nil || len(p.Tools) > 0 || p.ToolChoice != nil {
		return nil, false
	}
	msgs := make([]*mcp.SamplingMessage, 0, len(p.Messages))
	for _, m := range p.Messages {
		if m == nil || len(m.Content) != 1 {
			return nil, false
		}
		msgs = append(msgs, &mcp.SamplingMessage{Role: m.Role, Content: m.Content[0]})
	}
	return &mcp.CreateMessageParams{Meta: p.Meta, IncludeContext: p.IncludeContext, MaxTokens: p.MaxTokens, Messages: msgs,
		Metadata: p.Metadata, ModelPreferences: p.ModelPreferences, StopSequences: p.StopSequences,
		SystemPrompt: p.SystemPrompt, Temperature: p.Temperature}, true
}

// withDefaults fills the fields a person left out of an accepted
// elicitation with the defaults of the requested schema (SEP-1034).
func withDefaults(p *mcp.ElicitParams, content map[string]any) map[string]any {
	if p == nil || p.RequestedSchema == nil {
		return content
	}
	schema, ok := asMap(p.RequestedSchema)
	if !ok {
		return content
	}
	props, _ := schema["properties"].(map[string]any)
	for name, prop := range props {
		pm, ok := prop.(map[string]any)
		if !ok {
			continue
		}
		def, has := pm["default"]
		if !has {
			continue
		}
		if content == nil {
			content = map[string]any{}
		}
		if _, set := content[name]; !set {
			content[name] = def
		}
	}
	return content
}

// serverSchemaKey holds, in a handler's context, an elicitation's params
// as the server sent them, where the ones go-sdk checks were made
// checkable by titledItems.
type serverSchemaKey struct{}

// titledItems lets an elicitation reach the handlers when its titled
// multi-select names its items' type, `"items": {"type": "string",
// "anyOf": [{"const", "title"}…]}`, as go-sdk's own conformance server
// sends it. go-sdk v1.8.0's client takes a typed items schema for an
// untitled enum and refuses the request before anyone is asked; the
// spec's form has no type there, and with every const a string both mean
// the same. go-sdk checks the schema without that "type"; the handlers
// (and a gateway's client) see the server's own.
//
// It covers requests a server sends during a call (2025-11-25) and the
// input requests of a 2026-07-28 result (inputRounds) alike.
func titledItems() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			er, ok := req.(*mcp.ElicitRequest)
			if !ok || method != "elicitation/create" || er.Params == nil {
				return next(ctx, method, req)
			}
			checkable, changed := untypedTitledItems(er.Params.RequestedSchema)
			if !changed {
				return next(ctx, method, req)
			}
			own := er.Params
			p := *own
			p.RequestedSchema = checkable
			ctx = context.WithValue(ctx, serverSchemaKey{}, own)
			return next(ctx, method, &mcp.ElicitRequest{Session: er.Session, Params: &p})
		}
	}
}

// untypedTitledItems is schema with "type": "string" dropped from every
// array property's items that also list anyOf, and whether there was any.
// The server's schema is not changed.
func untypedTitledItems(schema any) (any, bool) {
	m, ok := asMap(schema)
	if !ok {
		return schema, false
	}
	props, _ := m["properties"].(map[string]any)
	var out map[string]any
	for name, prop := range props {
		pm, _ := prop.(map[string]any)
		items, _ := pm["items"].(map[string]any)
		if pm["type"] != "array" || items["type"] != "string" || items["anyOf"] == nil {
			continue
		}
		if out == nil {
			out = maps.Clone(m)
			out["properties"] = maps.Clone(props)
		}
		p, it := maps.Clone(pm), maps.Clone(items)
		delete(it, "type")
		p["items"] = it
		out["properties"].(map[string]any)[name] = p
	}
	if out == nil {
		return schema, false
	}
	return out, true
}

// rootsFrom answers s's roots/list with Options.ListRoots, leaving it to
// the client's own roots when that has none to give.
func (h *Host) rootsFrom(s *server) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "roots/list" {
				return next(ctx, method, req)
			}
			ctx, done := h.callerContext(ctx, s.cfg.Name)
			defer done()
			res, err := guard(h, s, "roots", true, func() (*mcp.ListRootsResult, error) {
				roots, err := h.opts.ListRoots(ctx, s.cfg.Name)
				if err != nil || roots == nil {
					return nil, err
				}
				return &mcp.ListRootsResult{Roots: roots}, nil
			})
			switch {
			case err != nil:
				return nil, err
			case res == nil:
				return next(ctx, method, req)
			}
			return res, nil
		}
	}
}
