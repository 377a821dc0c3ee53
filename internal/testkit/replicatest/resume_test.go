//go:build unix

package replicatest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testkit/redistest"
	"github.com/switchboard-mcp/switchboard/internal/testkit/replicatest"
)

// sseEvent is one server-sent event: its id and its data.
type sseEvent struct{ id, data string }

// rawSession is a 2025-11-25 session driven by hand, so that a test
// decides when its stream drops and where it resumes.
type rawSession struct {
	t  *testing.T
	id string
}

// post sends one JSON-RPC message in the session (or initialize, before
// it has an id) to url and returns the response.
func (s *rawSession) post(url, msg string) *http.Response {
	s.t.Helper()
	req, _ := http.NewRequestWithContext(s.t.Context(), http.MethodPost, url, strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", legacy)
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		s.t.Fatalf("POST %s: %d %s", msg, resp.StatusCode, body)
	}
	return resp
}

// listen opens the session's stream at url, from after lastID when
// given, and sends its events on the channel it returns until ctx ends.
func (s *rawSession) listen(ctx context.Context, url, lastID string) <-chan sseEvent {
	s.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", legacy)
	req.Header.Set("Mcp-Session-Id", s.id)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		s.t.Fatalf("GET %s (Last-Event-ID %q): %d %s", url, lastID, resp.StatusCode, body)
	}
	events := make(chan sseEvent, 64)
	go func() { // ends when ctx ends the request, or the stream does
		defer close(events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id:"):
				e.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
			case strings.HasPrefix(line, "data:"):
				e.data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
			case line == "" && e.data != "":
				events <- e
				e = sseEvent{}
			}
		}
	}()
	return events
}

// logData is a notifications/message event's data without the server's
// name the gateway puts before it ("demo: "), "" for other events.
func logData(e sseEvent) string {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Data any `json:"data"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(e.data), &msg) != nil || msg.Method != "notifications/message" {
		return ""
	}
	s, _ := msg.Params.Data.(string)
	return strings.TrimPrefix(s, "demo: ")
}

// TestResumeOnAnotherReplica: replicas sharing a session key file and a
// store (a real redis-server). A 2025-11-25 session's stream on replica A
// drops; log notifications A sends it meanwhile are kept in the store;
// the client resumes its stream on replica B with Last-Event-ID and gets
// each of them once, in order (SPEC F64).
func TestResumeOnAnotherReplica(t *testing.T) {
	redis := redistest.Start(t)
	c := replicatest.New(t, replicatest.Binary(t), nil)
	c.SetServer(t, "demo", c.Demo("demo"))
	c.Start(t, 2, "--session-key-file", keyFile(t, c.Dir), "--store", redis.URL)
	a, b := c.Replicas[0], c.Replicas[1]

	s := &rawSession{t: t}
	resp := s.post(a.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.id = resp.Header.Get("Mcp-Session-Id")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if s.id == "" {
		t.Fatal("initialize answered no Mcp-Session-Id")
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`,
	} {
		resp := s.post(a.URL, msg)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	streamCtx, drop := context.WithCancel(t.Context())
	events := s.listen(streamCtx, a.URL, "")

	// Another client on A makes the demo server log; its own log level
	// lets it see each line too.
	seen := make(chan string, 16)
	other := connect(t, a.URL, legacy, &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
		if d, ok := r.Params.Data.(string); ok {
			seen <- strings.TrimPrefix(d, "demo: ")
		}
	}})
	if err := other.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	mark := fmt.Sprint(time.Now().UnixNano())
	say := func(n int) string {
		text := fmt.Sprintf("line-%s-%d", mark, n)
		callText(t, other, "demo__log", map[string]any{"message": text})
		return text
	}
	first := say(0)
	var last string
	var before []sseEvent
	deadline := time.After(callBound)
	for last == "" {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("the session's stream on A ended before %s: %v", first, before)
			}
			before = append(before, e)
			if logData(e) == first {
				last = e.id
			}
		case <-deadline:
			t.Fatalf("the session's stream on A brought no %s in %v: %v", first, callBound, before)
		}
	}
	if last == "" || strings.TrimSpace(last) == "" {
		t.Fatalf("the event of %s has no id: the replica keeps no events to resume from", first)
	}
	drop()
	for range events { // the stream's reader ends
	}
	var want []string
	for n := 1; n <= 3; n++ {
		want = append(want, say(n))
	}
	// A notifies its sessions one line at a time, in order: once the
	// other client has the line after the last, A has sent (and stored)
	// the last to the dropped session too.
	sentinel := say(4)
	awaitLine(t, seen, sentinel)

	resumed := s.listen(t.Context(), b.URL, last)
	var got []string
	deadline = time.After(callBound)
	for len(got) < len(want)+1 {
		select {
		case e, ok := <-resumed:
			if !ok {
				t.Fatalf("the resumed stream on B ended after %v, want %v", got, want)
			}
			if d := logData(e); strings.HasPrefix(d, "line-"+mark) {
				got = append(got, d)
			}
		case <-deadline:
			t.Fatalf("the resumed stream on B brought %v in %v, want %v then %s", got, callBound, want, sentinel)
		}
	}
	if strings.Join(got, ",") != strings.Join(append(want, sentinel), ",") {
		t.Errorf("resumed on B: %v, want %v then %s, each once, in order", got, want, sentinel)
	}
}

// awaitLine waits, under callBound, for line among the lines seen.
func awaitLine(t *testing.T, seen <-chan string, line string) {
	t.Helper()
	deadline := time.After(callBound)
	for {
		select {
		case l := <-seen:
			if l == line {
				return
			}
		case <-deadline:
			t.Fatalf("no log line %q in %v", line, callBound)
		}
	}
}
