package toolsearch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAcrossQuotes(t *testing.T) {
	tests := []struct {
		query string
		want  []string
	}{
		{"leave 'looks good to me' as a remark on the design doc", []string{pair(stem("leave"), stem("remark"))}},
		{`move the "Done" card onto the Archive column`, []string{pair(stem("move"), stem("card"))}},
		{"mark the ‘Migrate auth’ row as Done", []string{pair(stem("mark"), stem("row"))}},
		// An apostrophe inside a word opens no quote.
		{"give Dana's post a thumbs up, don't wait", nil},
		// A quote at an end has no word on one side.
		{"repeat 'hello from staging'", nil},
		{"an 'unclosed quote here", nil},
	}
	for _, tt := range tests {
		got, _, _ := acrossQuotes(tt.query)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("acrossQuotes(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
}
