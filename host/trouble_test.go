package host_test

import (
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/host"
)

// Troubles tells of a drop once however many retries fail, of a failure
// once, and anew after the server was back or restarted.
func TestTroublesOncePerChange(t *testing.T) {
	now := time.Now()
	ev := func(state host.State, err string, retry bool) host.Event {
		e := host.Event{Time: now, Type: host.EventState, Server: "db", State: state, Error: err}
		if retry {
			e.Retry = now.Add(time.Second)
		}
		return e
	}
	var tr host.Troubles
	steps := []struct {
		e    host.Event
		want host.LogLevel // "" for nothing told
	}{
		{ev(host.StateConnecting, "", false), ""},
		{ev(host.StateConnected, "", false), ""},
		{ev(host.StateConnecting, "connection lost", true), host.LevelWarn},
		{ev(host.StateConnecting, "", false), ""},                           // the retry
		{ev(host.StateConnecting, "still down", true), ""},                  // fails: not news
		{ev(host.StateConnected, "", false), ""},                            // back
		{ev(host.StateConnecting, "connection lost", true), host.LevelWarn}, // news again
		{ev(host.StateFailed, "gave up", false), host.LevelError},
		{ev(host.StateFailed, "gave up", false), ""},
		{ev(host.StateConnecting, "", false), ""}, // restarted
		{ev(host.StateFailed, "exited (status 1)", false), host.LevelError},
		{host.Event{Time: now, Type: host.EventLog, Server: "db", Level: host.LevelError, Message: "x"}, ""},
	}
	for i, s := range steps {
		got, ok := tr.Note(s.e)
		if ok != (s.want != "") || got.Level != s.want {
			t.Errorf("step %d (%s %q): told %v %q, want %q", i, s.e.State, s.e.Error, ok, got.Level, s.want)
		}
	}
	if cur := tr.Current(); len(cur) != 1 || cur[0].Level != host.LevelError || cur[0].Text != `server "db" failed: exited (status 1)` {
		t.Errorf("current troubles %+v", cur)
	}
}
