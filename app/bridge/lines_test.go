package bridge

import (
	"io"
	"strings"
	"testing"
)

// TestLineReader: lines longer than the buffer come whole, blank lines are
// skipped, a last line without a newline gets one.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 3*readSize+7)
	r := newLineReader(strings.NewReader("a\n\n  \r\n" + long + "\nlast"))
	var got []string
	for {
		line, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	want := []string{"a\n", long + "\n", "last\n"}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %d bytes, want %d", i, len(got[i]), len(want[i]))
		}
	}
}
