// Package benchcall measures calls in a testing.B benchmark the one way
// the benchmarks here report them: b.N calls, callers at a time, after one
// call outside the timing, with the median call (p50-µs) and, where it can
// be measured, the process's CPU time per call (cpu-µs/op) besides ns/op.
// A few slow calls (a GC, the scheduler) move the mean; the median shows
// the typical call.
package benchcall

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Measure makes b.N calls of call, callers at a time, and reports them.
func Measure(b *testing.B, call func(context.Context) error, callers int) {
	ctx := context.Background()
	// The first call of a session pays for lazily built things (schema
	// caches, buffers) on both sides.
	if err := call(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	durs := make([]time.Duration, b.N)
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	cpu := CPUTime()
	b.ResetTimer()
	for range callers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(durs) {
					return
				}
				start := time.Now()
				if err := call(ctx); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				durs[i] = time.Since(start)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	if used := CPUTime() - cpu; CPUMeasured {
		b.ReportMetric(float64(used.Microseconds())/float64(b.N), "cpu-µs/op")
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Nanoseconds())/1e3, "p50-µs")
}
