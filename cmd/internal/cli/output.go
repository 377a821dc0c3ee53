package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// stderrWidth is the width of the terminal on stderr, 0 when unknown.
func stderrWidth() int {
	w, _, err := term.GetSize(int(os.Stderr.Fd()))
	if err != nil {
		return 0
	}
	return w
}

// What a person sees of text someone else wrote (a server's errors, log
// lines, descriptions and results; names and paths from config files,
// which a cloned repository may hold) goes through termsafe, so that it
// cannot drive the terminal: oneLine, firstLine and cell for one line,
// termsafe.Text for a payload of several, termsafe.JSON under writeJSON.
// Our own colours are added after, by paint.

// oneLine keeps an error to one line on the terminal (DESIGN.md F48), its
// runs of white space one space, its controls escaped.
func oneLine(s string) string {
	return termsafe.Line(strings.Join(strings.Fields(s), " "))
}

// firstLine shortens a description to its first line, at most 100
// characters before escaping, for a table cell.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if utf8.RuneCountInString(s) <= 100 {
		return cell(s)
	}
	n := 0
	for i := range s { // by character: a byte that is not UTF-8 is one
		if n == 99 {
			s = s[:i]
			break
		}
		n++
	}
	return cell(s) + "…"
}

// cell is one line in a table: escaped, and with tabs as spaces, so that
// a tab in a server's text does not make a column of its own.
func cell(s string) string {
	return strings.ReplaceAll(termsafe.Line(s), "\t", " ")
}

// color reports whether to colour output to a stream: only on a terminal,
// and never when NO_COLOR is set (DESIGN.md F47).
func (ios IO) color(tty bool) bool {
	return tty && ios.Getenv("NO_COLOR") == "" && ios.Getenv("TERM") != "dumb"
}

const (
	ansiReset  = "\x1b[0m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
)

func paint(on bool, code, s string) string {
	if !on || s == "" {
		return s
	}
	return code + s + ansiReset
}

// dim is how stderr shows what matters less: notes, times.
func (ios IO) dim(s string) string { return paint(ios.color(ios.ErrTTY), ansiDim, s) }

// stateColor is how a state looks on a terminal: green is good, red needs
// attention, yellow is in between or waiting for the person.
func stateColor(s host.State) string {
	switch s {
	case host.StateConnected:
		return ansiGreen
	case host.StateFailed, host.StateDisconnected:
		return ansiRed
	case host.StateDisabled, host.StateIdle:
		return ansiDim
	}
	return ansiYellow
}

// serverTable prints the health table (DESIGN.md F45) on stdout.
func (ios IO) serverTable(statuses []host.Status) {
	rows := [][]column{{{text: "SERVER"}, {text: "STATE"}, {text: "TRANSPORT"}, {text: "TOOLS"}, {text: "TIME"}, {text: "SOURCE"}, {text: "ERROR"}}}
	for _, s := range statuses {
		rows = append(rows, []column{
			{text: cell(s.Name)}, {text: string(s.State), color: stateColor(s.State)}, {text: transportName(s)},
			{text: fmt.Sprint(s.Tools) + pinNote(s)}, {text: connectTime(s)}, {text: cell(sourceLabel(s.Source))}, {text: oneLine(s.Error) + nextTry(s.Retry, time.Now()) + loginHint(s)},
		})
	}
	writeTable(ios.Out, ios.color(ios.OutTTY), rows)
}

// pinCounts are how many of a server's tools are not as approved, and
// how many of those are withheld.
func pinCounts(s host.Status) (changed, withheld int) {
	for _, c := range s.Pins {
		changed++
		if c.Withheld {
			withheld++
		}
	}
	return changed, withheld
}

// pinNote is what the TOOLS column adds for changed tools: "5 (1
// changed, 1 withheld)".
func pinNote(s host.Status) string {
	changed, withheld := pinCounts(s)
	switch {
	case changed == 0:
		return ""
	case withheld == 0:
		return fmt.Sprintf(" (%d changed)", changed)
	}
	return fmt.Sprintf(" (%d changed, %d withheld)", changed, withheld)
}

// column is one cell of a table: its text, escaped already, and the colour
// it is painted in on a terminal ("" for none).
type column struct{ text, color string }

// writeTable prints rows as columns two spaces apart, each as wide as its
// widest text, measured in characters as a person sees them: the colours
// are painted after the padding. (text/tabwriter counts a colour's escape
// codes as width, which put a painted column out of line with its header.)
// The last column is not padded, and no line ends in spaces.
func writeTable(w io.Writer, colorOn bool, rows [][]column) {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c.text))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		b.Reset()
		pad := 0
		for i, c := range row {
			if c.text != "" {
				b.WriteString(strings.Repeat(" ", pad))
				b.WriteString(paint(colorOn && c.color != "", c.color, c.text))
				pad = 0
			}
			if i < len(row)-1 {
				pad += widths[i] - utf8.RuneCountInString(c.text) + 2
			}
		}
		b.WriteByte('\n')
		io.WriteString(w, b.String())
	}
}

// sourceLabel is the SOURCE column: the provider, and the level when it is
// not the user's own ("Cursor (project)"); sources shows the files.
func sourceLabel(src config.Source) string {
	if src.Provider == "demo" {
		return src.Path
	}
	return src.Label()
}

// transportName is the TRANSPORT column: a url without a type is tried
// over streamable HTTP first, and "-" is an entry that names none.
func transportName(s host.Status) string {
	if s.Transport == config.TransportAuto {
		return "http"
	}
	return string(s.Transport)
}

// transportJSON is the transport in --json: "" for none.
func transportJSON(s host.Status) string {
	if s.Transport == noTransport {
		return ""
	}
	return transportName(s)
}

func connectTime(s host.Status) string {
	if s.State != host.StateConnected || s.ConnectTime == 0 {
		return "-"
	}
	if s.ConnectTime < time.Second {
		return fmt.Sprintf("%dms", s.ConnectTime.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", s.ConnectTime.Seconds())
}

// statusJSON is the --json shape of a server: stable field names that
// scripts rely on, secrets never included (config env and headers are not
// part of it).
type statusJSON struct {
	Name      string `json:"name"`
	State     string `json:"state"`
	Transport string `json:"transport"`
	// ProtocolVersion is the MCP version the server speaks (or spoke
	// last), "" when not known yet.
	ProtocolVersion string  `json:"protocolVersion"`
	Source          string  `json:"source"`
	Provider        string  `json:"provider"`
	Level           string  `json:"level"`
	Tools           int     `json:"tools"`
	Resources       int     `json:"resources"`
	Prompts         int     `json:"prompts"`
	Error           string  `json:"error"`
	PID             int     `json:"pid"`
	ConnectTimeMs   float64 `json:"connectTimeMs"`
	Attempts        int     `json:"attempts"`
	Since           string  `json:"since"`
	// RetryAt is when a server that lost its connection is tried next.
	RetryAt string `json:"retryAt,omitempty"`
	// ServerInfo and Instructions are what a connected server said of
	// itself in its handshake (instructions capped, masked).
	ServerInfo   *serverInfoJSON `json:"serverInfo,omitempty"`
	Instructions string          `json:"instructions,omitempty"`
	// Changed counts the tools not as first seen or approved (DESIGN.md
	// F66), removed ones included; Withheld, those of them kept from
	// agents until approved.
	Changed  int `json:"changedTools"`
	Withheld int `json:"withheldTools"`
}

type serverInfoJSON struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version,omitempty"`
}

// nextTry says when a reconnecting server is tried next, for a table or
// an event line: " (next try in 8s)". Empty when none is due.
func nextTry(at, now time.Time) string {
	if at.IsZero() {
		return ""
	}
	return fmt.Sprintf(" (next try in %s)", max(at.Sub(now), 0).Round(100*time.Millisecond))
}

func timeJSON(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func toStatusJSON(statuses []host.Status) []statusJSON {
	out := make([]statusJSON, 0, len(statuses))
	for _, s := range statuses {
		out = append(out, statusJSON{
			Name: s.Name, State: string(s.State), Transport: transportJSON(s), ProtocolVersion: s.ProtocolVersion,
			Source: s.Source.String(), Provider: s.Source.Provider, Level: string(s.Source.Level),
			Tools: s.Tools, Resources: s.Resources, Prompts: s.Prompts, Error: s.Error, PID: s.PID,
			ConnectTimeMs: float64(s.ConnectTime.Microseconds()) / 1000, Attempts: s.Attempts,
			Since: s.Since.UTC().Format(time.RFC3339Nano), RetryAt: timeJSON(s.Retry),
			Instructions: s.Instructions,
		})
		out[len(out)-1].Changed, out[len(out)-1].Withheld = pinCounts(s)
		if i := s.ServerInfo; i != nil {
			out[len(out)-1].ServerInfo = &serverInfoJSON{Name: i.Name, Title: i.Title, Version: i.Version}
		}
	}
	return out
}

// loginHint is what a server that needs authorization asks of the
// person (DESIGN.md F41): the command that gives it.
func loginHint(s host.Status) string {
	if s.State != host.StateNeedsAuth {
		return ""
	}
	return fmt.Sprintf("; run 'switchboard auth login %s'", cell(s.Name))
}

// anyFailed reports whether a server failed: exit 1 for the health checks
// (healthExitCodes). Disabled, blocked, untrusted and duplicate servers are
// what someone decided, not failures of the run.
func anyFailed(statuses []host.Status) bool {
	for _, s := range statuses {
		if s.State == host.StateFailed || s.State == host.StateDisconnected {
			return true
		}
	}
	return false
}

// clockFormat is how events and log lines show their time of day.
const clockFormat = "15:04:05.000"
