package host

import (
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

// logCapacity is how many lines each server's log keeps; older lines go.
const logCapacity = 500

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

// ringLog is a bounded, concurrency-safe log. It grows as lines come, up
// to logCapacity, and only then wraps: most servers write a line or two,
// and a hundred of them holding 500 empty slots each (28 KiB) would be
// megabytes of nothing.
type ringLog struct {
	mu    sync.Mutex
	lines []LogLine
	next  int // where the next line goes once full
}

func (r *ringLog) add(l LogLine) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.lines) < logCapacity {
		r.lines = append(r.lines, l)
		return
	}
	r.lines[r.next] = l
	r.next = (r.next + 1) % logCapacity
}

// snapshot returns the lines, oldest first.
func (r *ringLog) snapshot() []LogLine {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(append([]LogLine(nil), r.lines[r.next:]...), r.lines[:r.next]...)
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
