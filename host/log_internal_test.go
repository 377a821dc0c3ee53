package host

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLogBoundedInBytes: a server's log holds at most logBytes, all of a
// host's logs at most logBytesAll, and a removed server's log gives its
// share back.
func TestLogBoundedInBytes(t *testing.T) {
	var all logBudget
	logs := make([]*ringLog, 40)
	line := strings.Repeat("x", maxLogLine)
	for i := range logs {
		logs[i] = &ringLog{all: &all}
		for range 300 {
			logs[i].add(LogLine{Text: line})
		}
		if logs[i].bytes > logBytes {
			t.Fatalf("log %d holds %d bytes, over %d", i, logs[i].bytes, logBytes)
		}
		if used := all.used; used > logBytesAll {
			t.Fatalf("after %d logs the host holds %d bytes, over %d", i+1, used, logBytesAll)
		}
	}
	var sum int64
	for _, l := range logs {
		for _, x := range l.snapshot() {
			sum += int64(len(x.Text))
		}
	}
	if sum != all.used {
		t.Errorf("the budget counts %d bytes, the logs hold %d", all.used, sum)
	}
	// The newest log still has its newest lines.
	last := logs[len(logs)-1].snapshot()
	if len(last) == 0 || last[len(last)-1].Text != line {
		t.Errorf("the newest line is gone: %d lines", len(last))
	}
	before := all.used
	logs[0].release()
	if all.used != before-logs[0].bytes {
		t.Errorf("release gave back %d, want %d", before-all.used, logs[0].bytes)
	}
	// A line larger than a log may hold is a note, not the line.
	var one ringLog
	one.add(LogLine{Text: strings.Repeat("y", logBytes+1)})
	if got := one.snapshot(); len(got) != 1 || !strings.Contains(got[0].Text, "dropped") {
		t.Errorf("an oversize line: %.80q", got)
	}
}

func TestCutLogLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"0123456789", 4, "0123… (6 more bytes)"},
		{"ééé", 3, "é… (4 more bytes)"},
	} {
		got := cutLogLine(tc.in, tc.max)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("cutLogLine(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
