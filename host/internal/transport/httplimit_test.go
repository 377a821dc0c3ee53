package transport

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// cannedResponse is an http.RoundTripper that answers every request with
// one body of one content type.
type cannedResponse struct {
	ctype, body string
}

func (c cannedResponse) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {c.ctype}},
		Body:       io.NopCloser(strings.NewReader(c.body)),
		Request:    req,
	}, nil
}

// roundTrip posts a tools/call with id 7 through a limitRoundTripper over
// canned, and returns the body go-sdk would read and what was reported.
func roundTrip(t *testing.T, limit int64, canned cannedResponse) (string, []string) {
	t.Helper()
	var dropped []string
	rt := &limitRoundTripper{next: canned, limit: limit, hooks: Hooks{Dropped: func(s string) { dropped = append(dropped, s) }}, calls: &calls{}}
	req, err := http.NewRequest(http.MethodPost, "http://example.invalid/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"big"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body), dropped
}

func TestLimitRoundTripperJSON(t *testing.T) {
	const limit = 1000
	blob := strings.Repeat("x", 200_000)
	deep := `{"jsonrpc":"2.0","id":7,"result":{"v":` + strings.Repeat("[", MaxMessageDepth) + strings.Repeat("]", MaxMessageDepth) + `}}`
	ok := "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 7,\n  \"result\": {}\n}\n"
	for _, tt := range []struct {
		name, body, err string
	}{
		{"within, as it came", ok, ""},
		{"over", `{"jsonrpc":"2.0","id":7,"result":{"t":"` + blob + `"}}`, "reply to tools/call is 195.4 KiB, over the 1000 B limit (maxMessageSize)"},
		{"deep", deep, "reply to tools/call nests 1002 levels deep, over the limit of 1000"},
		{"over, with no id of its own", `[{"jsonrpc":"2.0","id":7,"result":{"t":"` + blob + `"}}]`, "reply to tools/call is 195.4 KiB, over the 1000 B limit (maxMessageSize)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			limit := int64(limit)
			if tt.name == "deep" {
				limit = 10_000
			}
			body, dropped := roundTrip(t, limit, cannedResponse{"application/json; charset=utf-8", tt.body})
			if tt.err == "" {
				if body != tt.body || dropped != nil {
					t.Errorf("body %q, dropped %q", body, dropped)
				}
				return
			}
			id, msg := errorOf(t, body)
			if id != int64(7) || msg != tt.err {
				t.Errorf("error reply %v %q\nwant         7 %q", id, msg, tt.err)
			}
			if len(dropped) != 1 || dropped[0] != tt.err+"; the call fails with this error" {
				t.Errorf("dropped %q", dropped)
			}
		})
	}
}

func TestLimitRoundTripperSSE(t *testing.T) {
	const limit = 10_000
	blob := strings.Repeat("x", 200_000) // past the filter's 64 KiB reads
	events := []string{
		"event: endpoint\ndata: /message?session=1\n\n",
		": a comment\n\n",
		"event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n",
		"event: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"" + blob + "\"}}\n\n",
		"id: 3\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\r\ndata: \"result\":{\"t\":\"" + blob + "\"}}\r\n\r\n",
		"event: message\nid: 4\ndata: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"v\":" + strings.Repeat("[", MaxMessageDepth) + strings.Repeat("]", MaxMessageDepth) + "}}\n\n",
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":10,\n", // the stream ends mid-event
	}
	body, dropped := roundTrip(t, limit, cannedResponse{"text/event-stream", strings.Join(events, "")})
	reply := func(id int64, msg string) string {
		rid, _ := jsonrpc.MakeID(float64(id))
		return strings.TrimSuffix(string(wireReply(errorReply(rid, msg))), "\n")
	}
	want := strings.Join([]string{
		events[0], events[1], events[2],
		"id: 3\nevent: message\ndata: " + reply(7, "reply to tools/call is 195.4 KiB, over the 9.8 KiB limit (maxMessageSize)") + "\n\n",
		"event: message\nid: 4\ndata: " + reply(8, "reply to request 8 nests 1002 levels deep, over the limit of 1000") + "\n\n",
		events[6], events[7],
	}, "")
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("stream (-want +got):\n%s", diff)
	}
	wantDropped := []string{
		"notification notifications/message is 195.4 KiB, over the 9.8 KiB limit (maxMessageSize); dropped",
		"reply to tools/call is 195.4 KiB, over the 9.8 KiB limit (maxMessageSize); the call fails with this error",
		"reply to request 8 nests 1002 levels deep, over the limit of 1000; the call fails with this error",
	}
	if diff := cmp.Diff(wantDropped, dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
}

// sseData splits an SSE stream into its events' data, as go-sdk reads it:
// lines split at "\n" with "\r" trimmed, data lines joined by "\n".
func sseData(stream string) []string {
	var out []string
	var data []string
	seen := false
	for line := range strings.Lines(stream) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if seen {
				out = append(out, strings.Join(data, "\n"))
			}
			data, seen = nil, false
			continue
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			data, seen = append(data, strings.TrimPrefix(v, " ")), true
		}
	}
	if seen {
		out = append(out, strings.Join(data, "\n"))
	}
	return out
}

// FuzzSSEFilter holds the SSE filter to the limits: no event it passes
// carries data over the limit or nested deeper than MaxMessageDepth, and a
// stream with no such event passes as it came.
func FuzzSSEFilter(f *testing.F) {
	f.Add("event: endpoint\ndata: /m\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", uint16(100))
	f.Add("id: 3\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\r\ndata: \"result\":{\"t\":\""+strings.Repeat("x", 3000)+"\"}}\r\n\r\n", uint16(1000))
	f.Add("data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":"+strings.Repeat("[", 1200)+strings.Repeat("]", 1200)+"}\n\n", uint16(60000))
	f.Add("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\""+strings.Repeat("y", 3000)+"\"}}\n\n", uint16(500))
	f.Fuzz(func(t *testing.T, stream string, limit uint16) {
		max := int64(limit) + 50
		rt := &limitRoundTripper{limit: max, calls: &calls{}}
		filter := newSSEFilter(io.NopCloser(strings.NewReader(stream)), rt)
		out, err := io.ReadAll(filter)
		if err != nil {
			t.Fatal(err)
		}
		refused := false
		for event := range strings.SplitSeq(stream, "\n\n") {
			if int64(len(event)) > max+sseSlack-2 {
				refused = true // go-sdk counts every line of an event
			}
		}
		for _, d := range sseData(stream) {
			if int64(len(d)) > max || sdkDepth([]byte(d)) > MaxMessageDepth {
				refused = true
			}
		}
		if !refused && string(out) != stream {
			t.Fatalf("a stream within the limits changed:\n%q\n%q", stream, out)
		}
		for _, d := range sseData(string(out)) {
			if int64(len(d)) > max && !strings.Contains(d, `"error"`) {
				t.Fatalf("passed %d bytes of data over a %d limit", len(d), max)
			}
			if sdkDepth([]byte(d)) > MaxMessageDepth {
				t.Fatalf("passed data %d deep", sdkDepth([]byte(d)))
			}
		}
	})
}
