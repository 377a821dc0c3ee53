package gateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// readParamsMaps is readParams as it was, decoding into maps: what
// readParams must agree with wherever it says true.
func readParamsMaps(raw json.RawMessage, member string) (params, bool) {
	var p params
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil || top == nil {
		return p, false
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(top["_meta"], &meta) != nil || meta == nil {
		return p, false
	}
	if json.Unmarshal(meta["io.modelcontextprotocol/protocolVersion"], &p.version) != nil || p.version == "" {
		return p, false
	}
	if member != "" {
		if v, ok := top[member]; ok && json.Unmarshal(v, &p.name) != nil {
			return p, false
		}
	}
	return p, true
}

var paramsCases = []struct {
	raw  string
	same bool // readParams must answer as readParamsMaps; else it may say false
}{
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"demo__echo","arguments":{"text":"hello"}}`, true},
	{` { "name" : "x" , "_meta" : { "progressToken" : 3, "io.modelcontextprotocol/protocolVersion" : "2026-07-28" , "c":{"a":[1,{"b":"}"}]} } } `, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"a\"b","version":"1"}},"name":null}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":""},"name":"x"}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":null},"name":"x"}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728},"name":"x"}`, true},
	{`{"_meta":{},"name":"x"}`, true},
	{`{"_meta":null,"name":"x"}`, true},
	{`{"_meta":[],"name":"x"}`, true},
	{`{"_META":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":7}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":{"a":1}}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"caf\u00e9 \"x\""}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"\ud83d\ude00"}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"uri":"file:///a"}`, true},
	{`null`, true},
	{`[]`, true},
	{`{}`, true},
	{`"x"`, true},
	// Read by go-sdk's handler instead: an escaped or repeated name.
	{`{"_met\u0061":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"}`, false},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x","name":"y"}`, false},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, false},
}

func TestReadParamsManyMembers(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"`)
	for i := range maxMembers {
		fmt.Fprintf(&b, `,"m%d":0`, i)
	}
	b.WriteString("}")
	if _, ok := readParams(json.RawMessage(b.String()), "name"); ok {
		t.Errorf("params of %d members read in place, want them left to go-sdk", maxMembers+2)
	}
	if _, wantOK := readParamsMaps(json.RawMessage(b.String()), "name"); !wantOK {
		t.Fatal("the params are not good ones: the test shows nothing")
	}
}

func TestReadParams(t *testing.T) {
	for _, tc := range paramsCases {
		for _, member := range []string{"name", "uri", ""} {
			got, ok := readParams(json.RawMessage(tc.raw), member)
			want, wantOK := readParamsMaps(json.RawMessage(tc.raw), member)
			switch {
			case ok && (!wantOK || got != want):
				t.Errorf("readParams(%s, %q) = %+v, true; decoded, %+v, %v", tc.raw, member, got, want, wantOK)
			case tc.same && ok != wantOK:
				t.Errorf("readParams(%s, %q) = %+v, %v; want %+v, %v", tc.raw, member, got, ok, want, wantOK)
			}
		}
	}
}

// FuzzReadParams: wherever readParams says true, decoding says the same.
func FuzzReadParams(f *testing.F) {
	for _, tc := range paramsCases {
		f.Add(tc.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return // a body host.DecodeMessage refuses never gets here
		}
		got, ok := readParams(json.RawMessage(raw), "name")
		want, wantOK := readParamsMaps(json.RawMessage(raw), "name")
		if ok && (!wantOK || got != want) {
			t.Errorf("readParams(%s) = %+v, true; decoded, %+v, %v", raw, got, want, wantOK)
		}
	})
}
