package transport

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"golang.org/x/time/rate"
)

// The log budget of a stdio server (DESIGN.md F26): it may send LogBurst
// log notifications at once, and LogRate a second after that; the others
// are dropped before anything decodes them. A server that logs 100,000
// lines at start otherwise spent most of its startup timeout in go-sdk's
// decoding of them, three full decodes a line, while its initialize
// response waited behind them; and the host keeps only the last 500 lines
// of a server's log anyway.
const (
	LogBurst = 1000
	LogRate  = 500
	// logReportEvery is how often a server that keeps logging over its
	// budget is told of in its log: one line a second at most.
	logReportEvery = time.Second
)

// logMethod is the method of a log notification.
const logMethod = "notifications/message"

// logBudget decides which log notifications of one connection pass, and
// counts the others for a report. It is used by the filter's reader only.
type logBudget struct {
	lim     *rate.Limiter
	dropped int       // since the last report
	first   time.Time // the first of those
	// logger names the notes the filter writes into the stream (note):
	// Hooks.NoteLogger, which the server cannot know.
	logger string
}

func newLogBudget(logger string) logBudget {
	return logBudget{lim: rate.NewLimiter(LogRate, LogBurst), logger: logger}
}

// allow reports whether a log notification may pass, counting it if not.
func (b *logBudget) allow(now time.Time) bool {
	if b.lim.AllowN(now, 1) {
		return true
	}
	if b.dropped == 0 {
		b.first = now
	}
	b.dropped++
	return false
}

// report returns the line that tells of the notifications dropped since
// the last one, or "" when there is none to tell yet. A flood that has
// ended (the next message is not a log notification, or the stream ended)
// is told of at once; one that goes on, once a logReportEvery.
func (b *logBudget) report(now time.Time, ended bool) string {
	if b.dropped == 0 || !ended && now.Sub(b.first) < logReportEvery {
		return ""
	}
	n := b.dropped
	b.dropped = 0
	return fmt.Sprintf("dropped %d log notifications (more than %d at once, or %d a second)", n, LogBurst, LogRate)
}

// note is a log notification, from the host rather than the server, that
// carries text in the stream, so it reaches the server's log after the
// notifications that passed before it and before those after it, in the
// order go-sdk hands them on. Its logger is the host's NoteLogger. With
// no NoteLogger, there is nothing to tell it from the server's own
// notifications, and the text goes to Hooks.Dropped instead (and note is
// nil).
func (b *logBudget) note(text string, dropped func(string)) *jsonrpc.Request {
	if b.logger == "" {
		dropped(text)
		return nil
	}
	params, err := json.Marshal(&mcp.LoggingMessageParams{Level: "warning", Logger: b.logger, Data: text})
	if err != nil {
		dropped(text)
		return nil
	}
	return &jsonrpc.Request{Method: logMethod, Params: params}
}
