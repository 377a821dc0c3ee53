package daemon

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"
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
	s := newSession(all, discardConn{})
	// One byte at a time: lines span reads.
	if _, err := io.Copy(io.Discard, reader{iotestOneByte(strings.NewReader(client)), s}); err != nil {
		t.Fatal(err)
	}
	if s.pending != 2 || all.pending != 2 {
		t.Fatalf("counted %d calls (all %d), want 2", s.pending, all.pending)
	}
	w := writer{s}
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

// discardConn takes every write.
type discardConn struct{ net.Conn }

func (discardConn) Write(p []byte) (int, error)      { return len(p), nil }
func (discardConn) SetWriteDeadline(time.Time) error { return nil }
func (discardConn) Close() error                     { return nil }

// A session's reader reads no more while maxPending of its requests are
// unanswered, and goes on once one is answered, or stops once the
// session ends.
func TestReaderWaitsForAnswers(t *testing.T) {
	defer func(n int, h func(int)) { maxPending, held = n, h }(maxPending, held)
	maxPending = 2
	waits := make(chan int, 1)
	held = func(n int) { waits <- n }
	all := &flights{}
	s := newSession(all, discardConn{})
	pr, pw := io.Pipe()
	defer pw.Close()
	r := reader{pr, s}
	read := make(chan error, 1)
	readOne := func() { _, err := r.Read(make([]byte, 1024)); read <- err }
	call := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	for range 2 {
		go readOne()
		if _, err := pw.Write([]byte(call)); err != nil {
			t.Fatal(err)
		}
		if err := <-read; err != nil {
			t.Fatal(err)
		}
	}
	go readOne()
	if n := <-waits; n != 2 {
		t.Fatalf("the reader waited at %d unanswered, want 2", n)
	}
	written := make(chan error, 1)
	go func() { _, err := pw.Write([]byte(call)); written <- err }()
	writer{s}.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	go readOne()
	s.Close()
	if err := <-read; err != io.EOF {
		t.Fatalf("a read after the session ended: %v, want EOF", err)
	}
	s.end()
	if all.pending != 0 {
		t.Errorf("pending %d after the session ended, want 0", all.pending)
	}
}
