package host

import (
	"fmt"
	"regexp"
	"sync"
	"time"
)

// LogLevel classifies a server's log line.
type LogLevel string

const (
	LevelInfo  LogLevel = "info"
	LevelWarn  LogLevel = "warn"
	LevelError LogLevel = "error"
)

// LogLine is one line a server wrote.
type LogLine struct {
	Time  time.Time `json:"time"`
	Level LogLevel  `json:"level"`
	Text  string    `json:"text"`
}

// A server's log is bounded in lines and in bytes, and so are all of a
// host's together: a server that sends 4 MB log notifications would
// otherwise keep 2 GB in its 500 lines.
const (
	// logCapacity is how many lines each server's log keeps; older lines go.
	logCapacity = 500
	// maxLogLine is the most of one line kept, cut after its secrets are
	// masked, so no cut leaves part of a secret unmasked.
	maxLogLine = 8 << 10
	// maxSkippedText is the most kept of a line of stdout that is no
	// message: a banner's head says enough.
	maxSkippedText = 512
	// logBytes is what one server's lines may hold together.
	logBytes = 1 << 20
	// logBytesAll is what every server's lines of one host may hold: a
	// hundred servers at their logBytes would be 100 MiB.
	logBytesAll = 16 << 20
)

// cutLogLine is text cut to max bytes (at a character boundary), saying
// how much went.
func cutLogLine(text string, max int) string {
	if len(text) <= max {
		return text
	}
	end := max
	for end > 0 && end < len(text) && text[end]&0xC0 == 0x80 {
		end--
	}
	return fmt.Sprintf("%s… (%d more bytes)", text[:end], len(text)-end)
}

var (
	errorWords = regexp.MustCompile(`(?i)\b(error|err|panic|fatal|exception|traceback|critical|failed|failure)\b`)
	warnWords  = regexp.MustCompile(`(?i)\b(warn|warning|deprecated)\b`)
)

// classify says error only for a line that says so: many servers write all
// their logging to stderr, and treating every stderr line as an error would
// make a healthy server look broken (DESIGN.md F17).
func classify(line string) LogLevel {
	switch {
	case errorWords.MatchString(line):
		return LevelError
	case warnWords.MatchString(line):
		return LevelWarn
	}
	return LevelInfo
}

// logBudget is what a host's server logs hold together. Its lock is
// every one of those logs' lock, so a log that needs room can take it
// from the largest.
type logBudget struct {
	mu    sync.Mutex
	used  int64
	rings map[*ringLog]bool
}

// largest is the log that holds the most bytes.
func (b *logBudget) largest() *ringLog {
	var big *ringLog
	for r := range b.rings {
		if big == nil || r.bytes > big.bytes {
			big = r
		}
	}
	return big
}

// ringLog is a bounded, concurrency-safe log: the oldest lines go first.
type ringLog struct {
	mu    sync.Mutex // when all is nil; else all.mu
	lines []LogLine  // oldest first
	bytes int64      // what the lines' texts hold
	// all is the host's budget for every server's log; nil: none. It is
	// set before the log is used and never changed.
	all *logBudget
	// released says the log's server is gone: its lines no longer count
	// against all, and it is never asked for room.
	released bool
}

func (r *ringLog) lock() func() {
	m := &r.mu
	if r.all != nil {
		m = &r.all.mu
	}
	m.Lock()
	return m.Unlock
}

// add keeps l, letting the oldest lines go while the log is over its
// line count or its bytes, and the largest log's while all of them are
// over the host's. A line larger than a log may hold is kept as a note
// saying so.
func (r *ringLog) add(l LogLine) {
	defer r.lock()()
	if size := len(l.Text); size > logBytes {
		l.Text = fmt.Sprintf("(a line of %d bytes dropped: over the %d KiB a server's log holds)", size, logBytes>>10)
	}
	size := int64(len(l.Text))
	for len(r.lines) > 0 && (len(r.lines) >= logCapacity || r.bytes+size > logBytes) {
		r.dropOldest()
	}
	if b := r.all; b != nil && !r.released {
		if b.rings == nil {
			b.rings = map[*ringLog]bool{}
		}
		b.rings[r] = true
		for b.used+size > logBytesAll {
			big := b.largest()
			if len(big.lines) == 0 {
				return // nothing left to let go: cannot happen while size <= logBytesAll
			}
			big.dropOldest()
		}
	}
	r.lines = append(r.lines, l)
	r.charge(size)
}

func (r *ringLog) dropOldest() {
	r.charge(-int64(len(r.lines[0].Text)))
	r.lines[0] = LogLine{}
	r.lines = r.lines[1:]
}

func (r *ringLog) charge(n int64) {
	r.bytes += n
	if r.all != nil && !r.released {
		r.all.used += n
	}
}

// release takes the log out of the host's budget, when its server is
// gone: what it holds no longer counts, and it is never asked for room.
func (r *ringLog) release() {
	b := r.all
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !r.released {
		b.used -= r.bytes
		delete(b.rings, r)
		r.released = true // later lines (a process's last words) are its own alone
	}
}

// snapshot returns the lines, oldest first.
func (r *ringLog) snapshot() []LogLine {
	defer r.lock()()
	return append([]LogLine(nil), r.lines...)
}

// tail returns up to n of the newest lines at level error, oldest first.
func (r *ringLog) tailErrors(n int) []string {
	all := r.snapshot()
	var out []string
	for i := len(all) - 1; i >= 0 && len(out) < n; i-- {
		if all[i].Level == LevelError {
			out = append([]string{all[i].Text}, out...)
		}
	}
	return out
}
