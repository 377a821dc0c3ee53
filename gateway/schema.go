package gateway

import (
	"encoding/json"
)

// Every schema the gateway advertises must pass what clients check, the
// TypeScript SDK's listTools() strictest among them: an object schema at
// the root ("type": "object"), "properties" an object of schemas that are
// objects, "required" a list of names. One tool that fails makes that
// client throw for the whole list, so no client of serve would see any
// tool. An upstream's schema is made to pass, meaning kept: a boolean
// schema becomes its object form, a name that is no string leaves
// "required".

// inputSchema is a tool's input schema as clients take it; one that is
// no object schema (a broken server's) becomes the schema that takes any
// object, and the host's name lookup and the server still judge the
// arguments.
func inputSchema(s any) json.RawMessage {
	if m, ok := objectSchemaOf(s); ok {
		return m
	}
	return json.RawMessage(`{"type":"object"}`)
}

// outputSchema is a tool's output schema as clients take it, or nil
// (none) when it is no object schema: the tool stays, its structured
// content unchecked by the client.
func outputSchema(s any) any {
	if s == nil {
		return nil
	}
	if m, ok := objectSchemaOf(s); ok {
		return m
	}
	return nil
}

// objectSchemaOf is s as an object schema clients accept, and whether it
// is one.
func objectSchemaOf(s any) (json.RawMessage, bool) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m["type"] != "object" {
		return nil, false
	}
	changed := false
	if p, ok := m["properties"]; ok {
		props, isObj := p.(map[string]any)
		if !isObj {
			delete(m, "properties")
			changed = true
		}
		for k, v := range props {
			switch v := v.(type) {
			case map[string]any:
			case bool:
				if v {
					props[k] = map[string]any{}
				} else {
					props[k] = map[string]any{"not": map[string]any{}}
				}
				changed = true
			default:
				delete(props, k)
				changed = true
			}
		}
	}
	if r, ok := m["required"]; ok {
		list, isList := r.([]any)
		var names []any
		for _, n := range list {
			if _, isStr := n.(string); isStr {
				names = append(names, n)
			}
		}
		if !isList || len(names) != len(list) {
			changed = true
			if len(names) == 0 {
				delete(m, "required")
			} else {
				m["required"] = names
			}
		}
	}
	if !changed {
		return b, true
	}
	out, err := json.Marshal(m)
	return out, err == nil
}
