package main

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestOrder(t *testing.T) {
	// A B C, then B C A, then C A B, then A B C again.
	want := [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 1, 2}}
	for r, w := range want {
		if diff := cmp.Diff(w, order(3, r)); diff != "" {
			t.Errorf("order(3, %d) (-want +got):\n%s", r, diff)
		}
	}
	// Over n rounds every contender runs once in every position.
	for n := 1; n <= 5; n++ {
		seen := make([]map[int]bool, n) // seen[position][contender]
		for i := range seen {
			seen[i] = map[int]bool{}
		}
		for r := range n {
			o := order(n, r)
			if len(o) != n {
				t.Fatalf("order(%d, %d) = %v", n, r, o)
			}
			for pos, c := range o {
				seen[pos][c] = true
			}
		}
		for pos, cs := range seen {
			if len(cs) != n {
				t.Errorf("n=%d: position %d held %v over %d rounds, want every contender", n, pos, cs, n)
			}
		}
	}
}

func TestSummarize(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		in   []float64
		want spread
	}{
		{[]float64{5}, spread{5, 5, 5, 1}},
		{[]float64{3, 1, 2}, spread{2, 1, 3, 3}},
		{[]float64{4, 1, 3, 2}, spread{2.5, 1, 4, 4}},
		{[]float64{10, nan, 1, 7, nan}, spread{7, 1, 10, 3}},
		{[]float64{nan}, spread{nan, nan, nan, 0}},
		{nil, spread{nan, nan, nan, 0}},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.in...)
		got := summarize(tt.in)
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateNaNs()); diff != "" {
			t.Errorf("summarize(%v) (-want +got):\n%s", tt.in, diff)
		}
		if diff := cmp.Diff(in, tt.in, cmpopts.EquateNaNs()); diff != "" {
			t.Errorf("summarize changed its input (-before +after):\n%s", diff)
		}
	}
}

// A ratio is taken within each round, never of two medians: the host's
// slow round is divided by the other's figure of that same round.
func TestRatiosPerRound(t *testing.T) {
	nan := math.NaN()
	host := []float64{110, 220, 90, nan, 100}
	bare := []float64{100, 200, 100, 100, 0}
	got := ratios(host, bare)
	want := []float64{1.1, 1.1, 0.9, nan, nan}
	if diff := cmp.Diff(want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("ratios (-want +got):\n%s", diff)
	}
	s := summarize(got)
	if s.N != 3 || math.Abs(s.Median-1.1) > 1e-12 || math.Abs(s.Min-0.9) > 1e-12 || math.Abs(s.Max-1.1) > 1e-12 {
		t.Errorf("summarize(ratios) = %+v, want median 1.1 of 3, 0.9–1.1", s)
	}
	// Medians taken first would say 1.1 too here, but not in general:
	// a round where both were slow must not count against either.
	if r := summarize(ratios([]float64{100, 300}, []float64{100, 300})); r.Median != 1 || r.Min != 1 || r.Max != 1 {
		t.Errorf("two clients slowed alike: %+v, want 1 in every round", r)
	}
}

func TestPercentile(t *testing.T) {
	s := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[float64]int{0: 1, 0.5: 5, 0.99: 10, 1: 10, 0.1: 1, 0.11: 2} {
		if got := percentile(s, p); got != want {
			t.Errorf("percentile(1..10, %v) = %d, want %d", p, got, want)
		}
	}
	if got := percentile([]int{7}, 0.5); got != 7 {
		t.Errorf("percentile([7], 0.5) = %d", got)
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-rounds", "1", "-calls", "20", "-callers", "1, 4", "-servers", "demo,floor",
		"-contenders", "bare,raw", "-startup", "", "-warm", "2"}, &discard{})
	if err != nil {
		t.Fatal(err)
	}
	want := &Options{Rounds: 1, Calls: 20, Warmup: 300, Callers: []int{1, 4}, Servers: []string{"floor", "demo"},
		Transports: []string{"stdio", "http"}, Contenders: []string{"host", "bare", "raw"}, WarmStartup: []int{2},
		StartupRounds: 3, EraRounds: 5, Timeout: o.Timeout}
	if diff := cmp.Diff(want, o); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	for _, bad := range [][]string{{"-callers", ""}, {"-callers", "0"}, {"-servers", "nope"}, {"-rounds", "0"}, {"extra"},
		{"-era-rounds", "-1"}, {"-eras", "-era-rounds", "0"}} {
		if _, err := parseFlags(bad, &discard{}); err == nil {
			t.Errorf("parseFlags(%q): no error", bad)
		}
	}
}

type discard struct{}

func (*discard) Write(p []byte) (int, error) { return len(p), nil }
