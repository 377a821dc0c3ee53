package host

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverRequests wires the requests a server may send the host (DESIGN.md F27)
// to the embedder's handlers. A capability is advertised only when its
// handler is set, so servers do not ask for what nobody can answer.
func (h *Host) serverRequests(s *server, opts *mcp.ClientOptions) {
	name := s.cfg.Name
	if h.opts.Sampling != nil {
		opts.CreateMessageHandler = func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return h.opts.Sampling(ctx, name, req.Params)
		}
	}
	if h.opts.Elicitation != nil {
		opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			res, err := h.opts.Elicitation(ctx, name, req.Params)
			if err != nil {
				return nil, err
			}
			if res == nil {
				return nil, errors.New("elicitation handler returned no result")
			}
			if res.Action == "accept" {
				res.Content = withDefaults(req.Params, res.Content)
			}
			return res, nil
		}
	}
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
