package host

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
)

// Notifications that arrive while nobody subscribes wait in a bounded
// buffer until drained (DESIGN.md F26). go-sdk hands notifications to the host
// after the call's result, so the test awaits the last one through the
// hub's test hook instead of a subscription, which would stop buffering.
func TestNotificationsBufferedAndDrained(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := New(&Options{NotificationBuffer: 3})
	defer h.Close()
	progressed := make(chan struct{}, 1)
	h.events.published = func(e Event) {
		if e.Type == EventProgress {
			progressed <- struct{}{}
		}
	}
	cfg := config.ServerConfig{
		Name: "chatty", Command: exe, Args: []string{"--test-tools"},
		Env: map[string]string{"SWITCHBOARD_DEMO_SERVER": "1"},
	}
	if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	h.DrainEvents() // whatever startup produced
	for _, msg := range []string{"one", "two", "three", "four"} {
		if _, err := h.CallTool(context.Background(), "mcp__chatty__log", map[string]any{"message": msg}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.CallTool(context.Background(), "mcp__chatty__progress", map[string]any{"steps": 1}); err != nil {
		t.Fatal(err)
	}
	<-progressed // notifications are handled in order: the logs came first
	var got []string
	for _, e := range h.DrainEvents() {
		got = append(got, string(e.Type)+":"+e.Message)
	}
	want := []string{"log:demo: three", "log:demo: four", "progress:step 1"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("drained %q, want %q (the newest three)", got, want)
	}
	if again := h.DrainEvents(); len(again) != 0 {
		t.Errorf("second drain returned %d events", len(again))
	}
}
