package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/switchboard-mcp/switchboard/host"
)

// CallTool takes the arguments an agent naturally has, and refuses with
// ErrBadArguments what is no JSON object, before anything is sent
// (issue 23: a []byte went out as a base64 string).
func TestCallToolArguments(t *testing.T) {
	h := start(t, nil, demoServer(t, "a"))
	type textArgs struct {
		Text string `json:"text"`
	}
	ok := []struct {
		name string
		args any
	}{
		{"map", map[string]any{"text": "hi"}},
		{"map of strings", map[string]string{"text": "hi"}},
		{"json.RawMessage", json.RawMessage(`{"text":"hi"}`)},
		{"[]byte", []byte(`{"text":"hi"}`)},
		{"string", `  {"text":"hi"}`},
		{"struct", textArgs{"hi"}},
		{"pointer to struct", &textArgs{"hi"}},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			res, err := h.CallTool(context.Background(), "mcp__a__echo", c.args)
			if err != nil || res.IsError || host.ResultText(res) != "hi" {
				t.Errorf("echo with %T: %q, %v", c.args, host.ResultText(res), err)
			}
		})
	}
	for _, args := range []any{nil, []byte(nil), "", json.RawMessage("null"), (*textArgs)(nil)} {
		// No arguments: the server's own answer (echo wants text), not ours.
		if _, err := h.CallTool(context.Background(), "mcp__a__pid", args); err != nil {
			t.Errorf("pid with no arguments (%T %v): %v", args, args, err)
		}
	}
	bad := []struct {
		name string
		args any
	}{
		{"number", 42},
		{"array", []any{"hi"}},
		{"array as bytes", []byte(`["hi"]`)},
		{"string not JSON", "text=hi"},
		{"JSON string", json.RawMessage(`"hi"`)},
		{"broken object", `{"text":`},
		{"unmarshalable", map[string]any{"f": func() {}}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			res, err := h.CallTool(context.Background(), "mcp__a__echo", c.args)
			if !errors.Is(err, host.ErrBadArguments) {
				t.Fatalf("echo with %T: %v, want ErrBadArguments", c.args, err)
			}
			if res == nil || !res.IsError {
				t.Errorf("result %+v, want an error result", res)
			}
		})
	}
}
