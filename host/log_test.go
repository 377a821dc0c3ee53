package host

import (
	"strconv"
	"testing"
)

// The ring log keeps the newest logCapacity lines, oldest first, and holds
// no more room than its lines need until it is full.
func TestRingLog(t *testing.T) {
	var r ringLog
	if got := r.snapshot(); len(got) != 0 {
		t.Fatalf("empty log: %v", got)
	}
	for i := range 3 {
		r.add(LogLine{Text: strconv.Itoa(i)})
	}
	if got := r.snapshot(); len(got) != 3 || got[0].Text != "0" || got[2].Text != "2" {
		t.Fatalf("three lines: %v", got)
	}
	if cap(r.lines) >= logCapacity {
		t.Errorf("three lines hold room for %d", cap(r.lines))
	}
	const n = 2*logCapacity + 7
	for i := 3; i < n; i++ {
		r.add(LogLine{Text: strconv.Itoa(i)})
	}
	got := r.snapshot()
	if len(got) != logCapacity {
		t.Fatalf("%d lines kept, want %d", len(got), logCapacity)
	}
	for i, l := range got {
		if want := strconv.Itoa(n - logCapacity + i); l.Text != want {
			t.Fatalf("line %d = %q, want %q", i, l.Text, want)
		}
	}
}
