package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// deadlines is a ResponseWriter that keeps the write deadlines set on it,
// as a ResponseController sets them.
type deadlines struct {
	*httptest.ResponseRecorder
	set []time.Time
}

func (d *deadlines) SetWriteDeadline(t time.Time) error {
	d.set = append(d.set, t)
	return nil
}

// TestBoundedWriterKeepsTheServersTimeout checks a bounded write puts back
// what the embedder's http.Server gave the response (its WriteTimeout)
// once the write is taken, and never bounds past it; with no WriteTimeout
// it clears the deadline, as net/http leaves it.
func TestBoundedWriterKeepsTheServersTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
	}{
		{"no WriteTimeout", 0},
		{"a WriteTimeout longer than the bound", time.Hour},
		{"a WriteTimeout shorter than the bound", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r = r.WithContext(context.WithValue(r.Context(), http.ServerContextKey, &http.Server{WriteTimeout: tc.timeout}))
			d := &deadlines{ResponseRecorder: httptest.NewRecorder()}
			start := time.Now()
			b := bounded(d, r)
			if _, err := b.Write([]byte("event")); err != nil {
				t.Fatal(err)
			}
			if len(d.set) != 2 {
				t.Fatalf("deadlines set %v, want a bound and then its end", d.set)
			}
			bound, after := d.set[0], d.set[1]
			if tc.timeout == 0 {
				if !after.IsZero() {
					t.Errorf("after the write the deadline is %v, want none", after)
				}
				if got := bound.Sub(start); got < clientWriteTimeout || got > clientWriteTimeout+time.Minute {
					t.Errorf("the bound is %v after the start, want clientWriteTimeout (%v)", got, clientWriteTimeout)
				}
				return
			}
			if !after.Equal(b.limit) || after.Before(start.Add(tc.timeout)) {
				t.Errorf("after the write the deadline is %v, want the server's, %v from the start", after, tc.timeout)
			}
			if bound.After(after) {
				t.Errorf("the bound %v goes past the server's deadline %v", bound, after)
			}
		})
	}
}
