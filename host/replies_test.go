package host_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/host/internal/transport"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// patient is a request timeout no test here comes near: a call that fails
// fails because the host said so, not because it waited this long.
const patient = 10 * time.Minute

// Replies larger than go-sdk's own 16 MiB line limit arrive whole, up to
// maxMessageSize (DESIGN.md F24).
func TestLargeRepliesArriveWhole(t *testing.T) {
	h := start(t, nil, demoServer(t, "big", "--reply-tools"))
	for _, n := range []int{17_000_000, 50_000_000} {
		res, err := h.CallTool(context.Background(), "mcp__big__big_reply", map[string]any{"bytes": n})
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if got := text(t, res); len(got) != n || strings.Trim(got, "x") != "" {
			t.Errorf("%d bytes asked, %d arrived", n, len(got))
		}
	}
}

// A reply over the limit fails its call at once, saying how large it was,
// and the session goes on.
func TestReplyOverLimitFailsAtOnce(t *testing.T) {
	cfg := demoServer(t, "big", "--reply-tools")
	cfg.MaxMessageSize, cfg.Timeout = 1<<20, patient
	h := start(t, nil, cfg)
	res, err := h.CallTool(context.Background(), "mcp__big__big_reply", map[string]any{"bytes": 2 << 20})
	const want = `server "big": tool "big_reply": calling "tools/call": reply to tools/call is 2.0 MiB, over the 1 MiB limit (maxMessageSize)`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	if res == nil || !res.IsError || text(t, res) != "MCP error: "+want {
		t.Errorf("result = %+v", res)
	}
	assertUsable(t, h, "big")
}

// A reply nested deeper than go-sdk decodes fails its call, not the session.
func TestDeepReplyFailsAtOnce(t *testing.T) {
	cfg := demoServer(t, "deep", "--reply-tools")
	cfg.Timeout = patient
	h := start(t, nil, cfg)
	for _, depth := range []int{1_000_000, 5000} {
		_, err := h.CallTool(context.Background(), "mcp__deep__deep_reply", map[string]any{"depth": depth})
		want := "reply to tools/call nests " + strconv.Itoa(depth+3) + " levels deep, over the limit of 1000"
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("depth %d: err = %v, want it to end %q", depth, err, want)
		}
		assertUsable(t, h, "deep")
	}
	// Within the limit, it arrives.
	res, err := h.CallTool(context.Background(), "mcp__deep__deep_reply", map[string]any{"depth": transport.MaxMessageDepth - 3})
	if err != nil || res.StructuredContent == nil {
		t.Errorf("a reply at the depth limit: %v, %+v", err, res)
	}
}

// A notification over the limit is dropped, and the server's log says so.
func TestNotificationOverLimitDropped(t *testing.T) {
	cfg := demoServer(t, "loud", "--reply-tools")
	cfg.MaxMessageSize, cfg.Timeout = 1<<20, patient
	h := start(t, nil, cfg)
	sub := h.Subscribe()
	defer sub.Close()
	res, err := h.CallTool(context.Background(), "mcp__loud__big_log", map[string]any{"bytes": 2 << 20})
	if err != nil || text(t, res) != "logged" {
		t.Fatalf("%v %+v", err, res)
	}
	const want = "notification notifications/message is 2.0 MiB, over the 1 MiB limit (maxMessageSize); dropped"
	await(t, sub, "the dropped notification in the log", func(e host.Event) bool {
		return e.Type == host.EventLog && e.Server == "loud" && e.Level == host.LevelWarn && e.Message == want
	})
	assertUsable(t, h, "loud")
}

// assertUsable checks that a server still answers and was never dropped.
func assertUsable(t *testing.T, h *host.Host, server string) {
	t.Helper()
	res, err := h.CallTool(context.Background(), "mcp__"+server+"__echo", map[string]any{"text": "still here"})
	if err != nil || text(t, res) != "still here" {
		t.Fatalf("%s after the refused reply: %v %+v", server, err, res)
	}
	if st := status(t, h, server); st.State != host.StateConnected || st.Attempts != 1 {
		t.Errorf("%s: %+v", server, st)
	}
}

// A server that logs 100,000 lines before it answers initialize connects
// within its startup timeout: the flood past the log budget is dropped
// before go-sdk decodes it, and notes in the server's log, in their place
// among the lines that passed, say how many. Every line is accounted for:
// passed, or counted in a note.
func TestLogFloodDoesNotHoldUpTheHandshake(t *testing.T) {
	const flood = 100_000
	h := host.New(nil)
	t.Cleanup(func() { h.Close() })
	sub := h.Subscribe()
	defer sub.Close()
	note := regexp.MustCompile(`^dropped (\d+) log notifications \(more than 1000 at once, or 500 a second\)$`)
	type count struct{ passed, dropped int }
	counted := make(chan count, 1)
	go func() {
		// Read while Start runs: a thousand log events would fill the
		// subscription's buffer before the test could look.
		var c count
		for e := range sub.C {
			if e.Type != host.EventLog || e.Server != "flood" {
				continue
			}
			if m := note.FindStringSubmatch(e.Message); m != nil {
				n, _ := strconv.Atoi(m[1])
				c.dropped += n
			} else if strings.HasPrefix(e.Message, demo.FloodLogger+": flood line ") {
				c.passed++
			}
			if c.passed+c.dropped >= flood {
				break
			}
		}
		counted <- c
	}()
	if err := h.Start(context.Background(), []config.ServerConfig{demoServer(t, "flood", "--log-flood", strconv.Itoa(flood))}); err != nil {
		t.Fatal(err)
	}
	if st := status(t, h, "flood"); st.State != host.StateConnected {
		t.Fatalf("flood: %+v", st)
	}
	var c count
	select {
	case c = <-counted:
	case <-time.After(30 * time.Second):
		t.Fatalf("not every line of the flood is accounted for (%d events lost to a slow reader)", sub.Dropped())
	}
	if c.passed+c.dropped != flood || c.passed < transport.LogBurst || c.dropped == 0 {
		t.Errorf("%d lines passed and %d were counted as dropped, of %d", c.passed, c.dropped, flood)
	}
	// A note keeps its place: after the lines that passed before the ones
	// it counts (the host's log handler runs behind the reader).
	lines, _ := h.Logs("flood")
	i := len(lines) - 1
	for i >= 0 && !note.MatchString(lines[i].Text) {
		i--
	}
	// The demo's stderr lines (its probe log) come on another stream, in
	// their own order.
	j := i - 1
	for j >= 0 && strings.HasPrefix(lines[j].Text, "demo: got ") {
		j--
	}
	if i < 1 || j < 0 || !strings.HasPrefix(lines[j].Text, demo.FloodLogger+": flood line ") {
		t.Errorf("no note after the lines that passed: %v", lines[max(0, len(lines)-3):])
	}
}

// HTTP and SSE servers' replies are held to the same limits: go-sdk's own
// 16 MiB event limit no longer ends a legacy SSE session (it did, with a
// bare EOF), and a reply over maxMessageSize fails its call at once,
// whether it comes as a JSON body, an event on the call's stream or an
// event on the legacy stream; the session goes on.
func TestHTTPRepliesHeldToTheLimit(t *testing.T) {
	newServer := func(*http.Request) *mcp.Server { return demo.NewServer(demo.Options{ReplyTools: true}) }
	for _, tt := range []struct {
		name    string
		kind    config.Transport
		handler http.Handler
		logs    bool // notifications reach the host (a JSON response carries none)
	}{
		{"json", config.TransportHTTP, mcp.NewStreamableHTTPHandler(newServer, &mcp.StreamableHTTPOptions{JSONResponse: true}), false},
		{"streamable", config.TransportHTTP, mcp.NewStreamableHTTPHandler(newServer, nil), true},
		{"sse", config.TransportSSE, mcp.NewSSEHandler(newServer, nil), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			t.Cleanup(srv.Close) // after the host's Close, which start put after it
			h := start(t, nil, config.ServerConfig{Name: "web", Type: tt.kind, URL: srv.URL, Timeout: patient, MaxMessageSize: 20 << 20})
			sub := h.Subscribe()
			defer sub.Close()
			res, err := h.CallTool(context.Background(), "mcp__web__big_reply", map[string]any{"bytes": 17_000_000})
			if err != nil || len(text(t, res)) != 17_000_000 {
				t.Fatalf("17 MB: %v", err)
			}
			_, err = h.CallTool(context.Background(), "mcp__web__big_reply", map[string]any{"bytes": 21 << 20})
			const want = `server "web": tool "big_reply": calling "tools/call": reply to tools/call is 21.0 MiB, over the 20 MiB limit (maxMessageSize)`
			if err == nil || err.Error() != want {
				t.Errorf("err = %v\nwant  %s", err, want)
			}
			if tt.logs {
				if _, err := h.CallTool(context.Background(), "mcp__web__big_log", map[string]any{"bytes": 21 << 20}); err != nil {
					t.Fatal(err)
				}
				await(t, sub, "the dropped notification in the log", func(e host.Event) bool {
					return e.Type == host.EventLog && e.Message == "notification notifications/message is 21.0 MiB, over the 20 MiB limit (maxMessageSize); dropped"
				})
			}
			assertUsable(t, h, "web")
		})
	}
}

// Log notifications are kept cut, so a server that logs megabytes a line
// does not grow the host by them: 40 lines of 1 MiB leave each line at
// 8 KiB and a few bytes of note, under the server's 1 MiB in all.
func TestBigLogLinesCut(t *testing.T) {
	cfg := demoServer(t, "loud", "--reply-tools")
	cfg.Timeout = patient
	h := start(t, nil, cfg)
	for range 40 {
		if _, err := h.CallTool(context.Background(), "mcp__loud__big_log", map[string]any{"bytes": 1 << 20}); err != nil {
			t.Fatal(err)
		}
	}
	lines, _ := h.Logs("loud")
	total := 0
	for _, l := range lines {
		total += len(l.Text)
		if len(l.Text) > 8<<10+64 {
			t.Errorf("a line of %d bytes kept", len(l.Text))
		}
	}
	if total > 1<<20 || len(lines) == 0 {
		t.Errorf("%d lines of %d bytes in all", len(lines), total)
	}
}
