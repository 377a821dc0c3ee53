package main

import (
	"math"
	"slices"
)

// order is the order in which n contenders run in round r (from 0): each
// round starts one later, so every contender runs first, second, … equally
// often, and whatever drifts during a round (a noisy neighbour, the CPU's
// clock) falls on each of them alike: A B C, B C A, C A B, A B C, …
func order(n, r int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = (r + i) % n
	}
	return out
}

// spread is a median with the smallest and largest value it was taken of.
type spread struct {
	Median, Min, Max float64
	N                int // how many values; 0 means none, and the rest is NaN
}

// summarize takes the median, min and max of xs, leaving out NaNs (a
// contender that could not run that round). The median of an even count is
// the mean of the middle two.
func summarize(xs []float64) spread {
	s := slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
	if len(s) == 0 {
		return spread{Median: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return spread{Median: med, Min: s[0], Max: s[n-1], N: n}
}

// ratios divides a[i] by b[i], round by round: a ratio is only taken of two
// figures measured side by side. A missing figure gives NaN.
func ratios(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = math.NaN()
		if i < len(b) && b[i] > 0 && !math.IsNaN(a[i]) && !math.IsNaN(b[i]) {
			out[i] = a[i] / b[i]
		}
	}
	return out
}

// percentile returns the value at fraction p (0 to 1) of sorted, by the
// nearest rank: the p50 of 1000 values is the 500th.
func percentile[T any](sorted []T, p float64) T {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
