package cli

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/termsafe"
)

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

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
	colorOn := ios.color(ios.OutTTY)
	tw := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATE\tTRANSPORT\tTOOLS\tTIME\tSOURCE\tERROR")
	for _, s := range statuses {
		state := string(s.State)
		// Pad before painting: tabwriter counts escape codes as width.
		padded := state + strings.Repeat(" ", max(0, 12-len(state)))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n",
			cell(s.Name), paint(colorOn, stateColor(s.State), padded), transportName(s), s.Tools,
			connectTime(s), cell(sourceLabel(s.Source)), oneLine(s.Error))
	}
	tw.Flush()
}

// sourceLabel is the SOURCE column: the provider, and the level when it is
// not the user's own ("Cursor (project)"); sources shows the files.
func sourceLabel(src config.Source) string {
	if src.Provider == "demo" {
		return src.Path
	}
	return src.Label()
}

func transportName(s host.Status) string {
	if s.Transport == "" {
		return "http"
	}
	return string(s.Transport)
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
	Name          string  `json:"name"`
	State         string  `json:"state"`
	Transport     string  `json:"transport"`
	Source        string  `json:"source"`
	Provider      string  `json:"provider"`
	Level         string  `json:"level"`
	Tools         int     `json:"tools"`
	Resources     int     `json:"resources"`
	Prompts       int     `json:"prompts"`
	Error         string  `json:"error"`
	PID           int     `json:"pid"`
	ConnectTimeMs float64 `json:"connectTimeMs"`
	Attempts      int     `json:"attempts"`
	Since         string  `json:"since"`
}

func toStatusJSON(statuses []host.Status) []statusJSON {
	out := make([]statusJSON, 0, len(statuses))
	for _, s := range statuses {
		out = append(out, statusJSON{
			Name: s.Name, State: string(s.State), Transport: transportName(s),
			Source: s.Source.String(), Provider: s.Source.Provider, Level: string(s.Source.Level),
			Tools: s.Tools, Resources: s.Resources, Prompts: s.Prompts, Error: s.Error, PID: s.PID,
			ConnectTimeMs: float64(s.ConnectTime.Microseconds()) / 1000, Attempts: s.Attempts,
			Since: s.Since.UTC().Format(time.RFC3339Nano),
		})
	}
	return out
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
