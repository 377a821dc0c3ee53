package main

import "testing"

// TestToolCalls checks that the context's arguments reach the call as
// they were written, and that absent ones become an empty object.
func TestToolCalls(t *testing.T) {
	calls, err := toolCalls(`{"toolCalls":[{"name":"a","arguments":{"n":42,"v":null,"s":" x "}},{"name":"b"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0].Name != "a" || calls[1].Name != "b" {
		t.Fatalf("calls = %+v", calls)
	}
	if got, want := string(calls[0].Arguments), `{"n":42,"v":null,"s":" x "}`; got != want {
		t.Errorf("arguments = %s, want %s", got, want)
	}
	if got := string(calls[1].Arguments); got != "{}" {
		t.Errorf("absent arguments = %s, want {}", got)
	}
	if calls, err := toolCalls(""); err != nil || calls != nil {
		t.Errorf(`toolCalls("") = %v, %v`, calls, err)
	}
	if _, err := toolCalls("{"); err == nil {
		t.Error("bad JSON: no error")
	}
}
