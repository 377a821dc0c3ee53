package daemon

import (
	"io"
	"strings"
	"testing"
)

// What the drain counts: a client's calls in any key order (the
// TypeScript SDK puts the id last), not its notifications or answers;
// the gateway's answers, not its requests or notifications.
func TestCountsCallsAndAnswers(t *testing.T) {
	client := strings.Join([]string{
		`{"method":"tools/call","params":{"name":"x","arguments":{"a":"` + strings.Repeat("y", 10000) + `"}},"jsonrpc":"2.0","id":7}`,
		`{"jsonrpc":"2.0","id":"s","method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`, // an answer to a sampling request
		`not json`,
		``,
	}, "\n")
	all := &flights{}
	s := &session{all: all}
	// One byte at a time: lines span reads.
	if _, err := io.Copy(io.Discard, reader{iotestOneByte(strings.NewReader(client)), s}); err != nil {
		t.Fatal(err)
	}
	if s.pending != 2 || all.pending != 2 {
		t.Fatalf("counted %d calls (all %d), want 2", s.pending, all.pending)
	}
	w := writer{io.Discard, s}
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
	} {
		w.Write([]byte(m + "\n"))
	}
	if s.pending != 1 {
		t.Fatalf("pending %d after one answer, want 1", s.pending)
	}
	w.Write([]byte(`{"jsonrpc":"2.0","id":"s","error":{"code":-32603,"message":"no"}}` + "\n"))
	if all.pending != 0 {
		t.Fatalf("pending %d after both answers, want 0", all.pending)
	}
	// A session that ends with a call unanswered takes it off the count.
	io.Copy(io.Discard, reader{strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"ping"}` + "\n"), s})
	s.end()
	if all.pending != 0 {
		t.Errorf("pending %d after the session ended, want 0", all.pending)
	}
}

type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func iotestOneByte(r io.Reader) io.Reader { return oneByte{r} }
