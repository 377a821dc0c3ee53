package transport

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

func TestJSONLineFilter(t *testing.T) {
	in := strings.Join([]string{
		`server starting on stdio`,
		``,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"level":30,"msg":"a JSON log line, not a message"}`,
		`42`,
		`  {"jsonrpc":"2.0","method":"notifications/progress"}  `,
		`{not json either`,
		`[{"jsonrpc":"2.0","id":2,"result":{}}]`,
		`{"jsonrpc":"2.0","id":3,"result":{"text":"no newline at the end"}}`,
	}, "\n")
	var skipped []string
	// One byte at a time: frames must come out whole however reads split.
	hooks := Hooks{Skipped: func(l string) { skipped = append(skipped, l) }}
	f := newJSONLineFilter(io.NopCloser(iotest.OneByteReader(strings.NewReader(in))), config.DefaultMaxMessageSize, hooks, nil)
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress"}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`, // from the batch
		`{"jsonrpc":"2.0","id":3,"result":{"text":"no newline at the end"}}`,
	}
	if diff := cmp.Diff(want, wires(t, readAll(t, f))); diff != "" {
		t.Errorf("passed through (-want +got):\n%s", diff)
	}
	wantSkipped := []string{`server starting on stdio`, `{"level":30,"msg":"a JSON log line, not a message"}`, `42`, `{not json either`}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// A line longer than the filter's reads arrives whole, its result in
// place.
func TestJSONLineFilterLongLine(t *testing.T) {
	result := `{"blob":"` + strings.Repeat("x", 200_000) + `"}`
	frame := `{"jsonrpc":"2.0","id":1,"result":` + result + `}`
	f := newJSONLineFilter(io.NopCloser(strings.NewReader(frame+"\n")), config.DefaultMaxMessageSize, Hooks{}, nil)
	msgs := readAll(t, f)
	if len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
	if resp, ok := msgs[0].(*jsonrpc.Response); !ok || string(resp.Result) != result {
		t.Errorf("got %.100q, want the reply whole", wires(t, msgs))
	}
}

// readAll is every message the filter hands on.
func readAll(t testing.TB, f *jsonLineFilter) []jsonrpc.Message {
	t.Helper()
	var msgs []jsonrpc.Message
	for {
		msg, _, err := f.next()
		if err == io.EOF {
			return msgs
		}
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, msg)
	}
}

// wires is each message as go-sdk encodes it, for comparing.
func wires(t testing.TB, msgs []jsonrpc.Message) []string {
	t.Helper()
	var out []string
	for _, msg := range msgs {
		b, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatalf("go-sdk cannot encode %#v: %v", msg, err)
		}
		out = append(out, string(b))
	}
	return out
}

func TestReadLinesCutsLongLines(t *testing.T) {
	var lines []string
	readLines(strings.NewReader("short\n"+strings.Repeat("y", 100)+"\nlast"), 10, func(l string) { lines = append(lines, l) })
	if diff := cmp.Diff([]string{"short", strings.Repeat("y", 10), "last"}, lines); diff != "" {
		t.Error(diff)
	}
}

// filterOut runs lines through a filter with the given limit and returns
// the messages it passed, as go-sdk encodes them, and the reports it made.
func filterOut(t *testing.T, limit int64, c *calls, lines ...string) (frames, skipped, dropped []string) {
	t.Helper()
	hooks := Hooks{
		Skipped: func(l string) { skipped = append(skipped, l) },
		Dropped: func(l string) { dropped = append(dropped, l) },
	}
	f := newJSONLineFilter(io.NopCloser(strings.NewReader(strings.Join(lines, "\n")+"\n")), limit, hooks, c)
	return wires(t, readAll(t, f)), skipped, dropped
}

// errorOf decodes a frame as go-sdk does and returns its id and error
// message, failing unless it is an error response.
func errorOf(t *testing.T, frame string) (any, string) {
	t.Helper()
	msg, err := jsonrpc.DecodeMessage([]byte(frame))
	if err != nil {
		t.Fatalf("go-sdk cannot decode %q: %v", frame, err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error == nil {
		t.Fatalf("%q is not an error response", frame)
	}
	return resp.ID.Raw(), resp.Error.Error()
}

func TestJSONLineFilterRefusesLargeAndDeep(t *testing.T) {
	// 200 KB lines span many of the filter's 64 KiB reads, so the id at
	// the end of one is found by the scan, not in a buffer.
	blob := strings.Repeat("x", 200_000)
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	ok := `{"jsonrpc":"2.0","id":99,"result":{}}`
	c := &calls{}
	id7, _ := jsonrpc.MakeID(float64(7))
	c.add(id7, "tools/call")
	tests := []struct {
		name    string
		line    string
		limit   int64  // 1000 when zero
		id      any    // the id of the error reply standing in; nil for none
		err     string // its message
		dropped string
		skipped string
	}{
		{name: "reply, id first", line: `{"jsonrpc":"2.0","id":7,"result":{"text":"` + blob + `"}}`,
			id: int64(7), err: "reply to tools/call is 195.4 KiB, over the 1000 B limit (maxMessageSize)",
			dropped: "reply to tools/call is 195.4 KiB, over the 1000 B limit (maxMessageSize); the call fails with this error"},
		{name: "reply, id last", line: `{"result":{"text":"` + blob + `","id":5},"jsonrpc":"2.0","id":"a\"b"}`,
			id: `a"b`, err: `reply to request "a\"b" is 195.4 KiB, over the 1000 B limit (maxMessageSize)`,
			dropped: `reply to request "a\"b" is 195.4 KiB, over the 1000 B limit (maxMessageSize); the call fails with this error`},
		{name: "reply too deep", line: `{"jsonrpc":"2.0","id":3,"result":{"v":` + nest(MaxMessageDepth-1) + `}}`, limit: 10_000,
			id: int64(3), err: "reply to request 3 nests 1001 levels deep, over the limit of 1000",
			dropped: "reply to request 3 nests 1001 levels deep, over the limit of 1000; the call fails with this error"},
		{name: "notification", line: `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + blob + `"}}`,
			dropped: "notification notifications/message is 195.4 KiB, over the 1000 B limit (maxMessageSize); dropped"},
		{name: "server request", line: `{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"x":"` + blob + `"}}`,
			dropped: "request sampling/createMessage (id 4) is 195.4 KiB, over the 1000 B limit (maxMessageSize); dropped, and the server gets no answer"},
		{name: "no top-level id", line: `{"jsonrpc":"2.0","result":{"id":5,"x":"` + blob + `"}}`,
			dropped: "message is 195.4 KiB, over the 1000 B limit (maxMessageSize), with no id to answer; dropped"},
		{name: "object id", line: `{"jsonrpc":"2.0","id":{"n":1},"result":"` + blob + `"}`,
			dropped: "message is 195.4 KiB, over the 1000 B limit (maxMessageSize), with no id to answer; dropped"},
		{name: "not a message", line: strings.Repeat("y", 2*maxSkippedLine),
			skipped: "line is 32 KiB, over the 1000 B limit (maxMessageSize): " + strings.Repeat("y", maxSkippedLine)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := tt.limit
			if limit == 0 {
				limit = 1000
			}
			frames, skipped, dropped := filterOut(t, limit, c, tt.line, ok)
			want := 1
			if tt.id != nil {
				want = 2
			}
			if len(frames) != want || frames[len(frames)-1] != ok {
				t.Fatalf("passed %d frames, want %d and the next line whole: %.300q", len(frames), want, frames)
			}
			if tt.id != nil {
				id, msg := errorOf(t, frames[0])
				if id != tt.id || msg != tt.err {
					t.Errorf("error reply: id %v %q\nwant     id %v %q", id, msg, tt.id, tt.err)
				}
			}
			if tt.dropped != "" && (len(dropped) != 1 || dropped[0] != tt.dropped) {
				t.Errorf("dropped %q\nwant    %q", dropped, tt.dropped)
			}
			if tt.skipped != "" && (len(skipped) != 1 || skipped[0] != tt.skipped) {
				t.Errorf("skipped %.200q\nwant    %.200q", skipped, tt.skipped)
			}
		})
	}
}

// A frame exactly at the limits passes whole: size and depth are counted
// as go-sdk counts them, so what passes is what go-sdk takes.
func TestJSONLineFilterAtLimits(t *testing.T) {
	const head, tail = `{"jsonrpc":"2.0","id":1,"result":{"text":"`, `"}}`
	const limit = 100_000
	exact := head + strings.Repeat("x", limit-len(head)-len(tail)) + tail
	deep := `{"jsonrpc":"2.0","id":2,"result":{"v":` + strings.Repeat("[", MaxMessageDepth-2) + strings.Repeat("]", MaxMessageDepth-2) + `}}`
	frames, skipped, dropped := filterOut(t, limit, nil, "  "+exact+"\r", deep)
	if len(frames) != 2 || frames[0] != exact || frames[1] != deep || skipped != nil || dropped != nil {
		t.Fatalf("frames %d (%d and %d bytes), skipped %q, dropped %q", len(frames), len(frames[0]), len(frames[1]), skipped, dropped)
	}
	// And go-sdk's own decoder takes them.
	for _, frame := range frames {
		if _, err := jsonrpc.DecodeMessage([]byte(frame)); err != nil {
			t.Fatalf("go-sdk refused a frame the filter passed: %v", err)
		}
	}
}

// Lines go-sdk cannot decode as a message are skipped, not passed: each
// would end the session.
func TestJSONLineFilterUndecodable(t *testing.T) {
	lines := []string{
		`{"level":"info","msg":"jsonrpc"}`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":true,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"jsonrpc":"2.0","method":7}`,
		`{"jsonrpc":"2.0","id":1,"id":[],"result":{}}`,
	}
	frames, skipped, _ := filterOut(t, 1000, nil, append(lines, `{"jsonrpc":"2.0","method":"x","id":null}`, `{"jsonrpc":"2.0","\u0069d":1,"result":{}}`)...)
	if diff := cmp.Diff([]string{`{"jsonrpc":"2.0","method":"x"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`}, frames); diff != "" {
		t.Errorf("passed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(lines, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// A large buffer left by a large reply is not kept for the lines after it.
func TestJSONLineFilterLetsGoOfLargeBuffers(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", 3*keepBuffer) + `"}}`
	f := newJSONLineFilter(io.NopCloser(strings.NewReader(big+"\n"+`{"jsonrpc":"2.0","id":2,"result":{}}`+"\n")), config.DefaultMaxMessageSize, Hooks{}, nil)
	readAll(t, f)
	if cap(f.line) > keepBuffer {
		t.Errorf("the filter holds a %d byte buffer after a small line", cap(f.line))
	}
}

func logLine(i int) string {
	return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"line ` + strconv.Itoa(i) + `"}}`
}

// A flood of log notifications past the budget is dropped, and a note in
// the stream, just before the next message, says how many.
func TestJSONLineFilterLogBudget(t *testing.T) {
	const flood = 3 * LogBurst
	lines := make([]string, 0, flood+1)
	for i := range flood {
		lines = append(lines, logLine(i))
	}
	reply := `{"jsonrpc":"2.0","id":1,"result":{}}`
	lines = append(lines, reply)
	for _, notes := range []string{"", NewNoteLogger()} {
		var dropped []string
		hooks := Hooks{Dropped: func(l string) { dropped = append(dropped, l) }, NoteLogger: notes}
		f := newJSONLineFilter(io.NopCloser(strings.NewReader(strings.Join(lines, "\n")+"\n")), 1<<20, hooks, nil)
		frames := wires(t, readAll(t, f))
		if frames[len(frames)-1] != reply {
			t.Fatalf("the reply is not last: %q", frames[len(frames)-1])
		}
		passed := len(frames) - 1
		if notes != "" {
			var n struct {
				Method string                   `json:"method"`
				Params mcp.LoggingMessageParams `json:"params"`
			}
			if err := json.Unmarshal([]byte(frames[len(frames)-2]), &n); err != nil || n.Params.Logger != notes || n.Params.Level != "warning" {
				t.Fatalf("no note before the reply: %q (%v)", frames[len(frames)-2], err)
			}
			dropped = append(dropped, n.Params.Data.(string))
			passed--
		}
		if len(dropped) != 1 {
			t.Fatalf("notes %q, want one", dropped)
		}
		var n int
		if _, err := fmt.Sscanf(dropped[0], "dropped %d log notifications (more than 1000 at once, or 500 a second)", &n); err != nil {
			t.Fatalf("note %q: %v", dropped[0], err)
		}
		if passed < LogBurst || passed+n != flood {
			t.Errorf("%d passed and %d dropped of %d", passed, n, flood)
		}
	}
}

// A flood that goes on is told of once a second, and one that ends at
// once.
func TestLogBudgetReports(t *testing.T) {
	b := newLogBudget("")
	t0 := time.Now()
	for range LogBurst {
		if !b.allow(t0) {
			t.Fatal("the burst was refused")
		}
	}
	for range 10 {
		if b.allow(t0) {
			t.Fatal("past the burst, a notification passed")
		}
	}
	if r := b.report(t0.Add(logReportEvery/2), false); r != "" {
		t.Errorf("reported %q within a second of a flood that goes on", r)
	}
	if r := b.report(t0.Add(logReportEvery), false); r != "dropped 10 log notifications (more than 1000 at once, or 500 a second)" {
		t.Errorf("after a second: %q", r)
	}
	if r := b.report(t0.Add(2*logReportEvery), true); r != "" {
		t.Errorf("reported %q with nothing dropped since", r)
	}
	if !b.allow(t0.Add(2 * logReportEvery)) {
		t.Error("refused after the budget refilled")
	}
	b.allow(t0.Add(2 * logReportEvery))
	for b.allow(t0.Add(2 * logReportEvery)) {
	}
	if r := b.report(t0.Add(2*logReportEvery), true); r != "dropped 1 log notifications (more than 1000 at once, or 500 a second)" {
		t.Errorf("at the end of a flood: %q", r)
	}
}

// BenchmarkJSONLineFilterLogFlood is the filter's cost per log line of a
// flood, nearly all of it past the budget: the path that drops a line
// must not allocate (the LogBurst lines that pass are decoded).
func BenchmarkJSONLineFilterLogFlood(b *testing.B) {
	var in strings.Builder
	for i := range 10_000 {
		in.WriteString(logLine(i) + "\n")
	}
	data := in.String()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f := newJSONLineFilter(io.NopCloser(strings.NewReader(data)), 1<<20, Hooks{}, nil)
		for {
			if _, _, err := f.next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
