package host

import (
	"math/rand/v2"
	"time"
)

// Reconnect policy (SPEC F30, F31). A dropped server is retried after
// BackoffBase, doubling per recent failure up to BackoffMax, each delay
// spread by ±BackoffJitter so servers that died together do not all come
// back in the same instant. CrashLoopFailures failures within
// CrashLoopWindow mean the server is crash-looping: it is given up on
// (state failed) until Restart or a config change. With these numbers a
// server that dies at once is spawned at most five times a minute.
const (
	BackoffBase       = 250 * time.Millisecond
	BackoffMax        = 30 * time.Second
	BackoffJitter     = 0.2
	CrashLoopFailures = 5
	CrashLoopWindow   = time.Minute
)

// backoff is the delay before the next attempt after n recent failures.
func backoff(n int) time.Duration {
	d := BackoffBase
	for i := 1; i < n && d < BackoffMax; i++ {
		d *= 2
	}
	d = min(d, BackoffMax)
	spread := float64(d) * BackoffJitter
	return d + time.Duration((rand.Float64()*2-1)*spread)
}

// recentFailures drops failures older than the crash-loop window.
func recentFailures(fs []time.Time, now time.Time) []time.Time {
	i := 0
	for i < len(fs) && now.Sub(fs[i]) > CrashLoopWindow {
		i++
	}
	return fs[i:]
}
