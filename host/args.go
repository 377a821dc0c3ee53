package host

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// callArguments is what CallTool sends as a call's arguments: args as a
// JSON object, or nil for none. go-sdk marshals whatever it is given, so a
// []byte would go out as a base64 string and a string as a JSON string,
// which no tool takes; JSON text is taken as JSON instead, and anything
// that is not an object (a number, an array) is refused before it is
// sent (DESIGN.md, "Call errors"). Anything else is marshalled here, once:
// go-sdk sends the JSON as it is.
func callArguments(args any) (any, error) {
	var raw []byte
	switch a := args.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		raw = a
	case []byte:
		raw = a
	case string:
		raw = []byte(a)
	default:
		b, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("%w: %T does not marshal to JSON: %v", ErrBadArguments, args, err)
		}
		raw = b
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, nil
	case raw[0] != '{':
		return nil, fmt.Errorf("%w: want a JSON object, not %s (%T)", ErrBadArguments, jsonKind(raw), args)
	case !json.Valid(raw):
		return nil, fmt.Errorf("%w: %T holds no valid JSON object", ErrBadArguments, args)
	}
	return json.RawMessage(raw), nil
}

// jsonKind names what JSON text starts with, for an error.
func jsonKind(raw []byte) string {
	switch c := raw[0]; {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return "JSON text"
}
