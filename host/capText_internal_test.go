package host

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapText(t *testing.T) {
	if got := capText("short", 10); got != "short" {
		t.Errorf("capText short = %q", got)
	}
	long := strings.Repeat("é", 2000) // 4000 bytes
	got := capText(long, MaxInstructions)
	if len(got) > MaxInstructions || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Errorf("capText long: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}
