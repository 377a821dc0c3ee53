package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// TestServerTableAligned: on a terminal the table is the same as without
// colour once the colours are taken out: every column in line with its
// header, whatever the colour codes' length.
func TestServerTableAligned(t *testing.T) {
	src := config.Source{Provider: "test", Level: config.LevelUser}
	statuses := []host.Status{
		{Name: "good", State: host.StateConnected, Transport: config.TransportStdio, Tools: 8, ConnectTime: 7 * time.Millisecond, Source: src},
		{Name: "bad", State: host.StateFailed, Transport: config.TransportStdio, Source: src, Error: "exit status 1"},
		{Name: "off", State: host.StateDisabled, Transport: config.TransportStdio, Source: src},
		{Name: "a-longer-name", State: host.StateUntrusted, Transport: config.TransportSSE, Source: src, Error: "project not trusted"},
	}
	table := func(env map[string]string) string {
		var out bytes.Buffer
		ios := IO{Out: &out, OutTTY: true, Getenv: func(k string) string { return env[k] }}
		ios.serverTable(statuses)
		return out.String()
	}
	coloured, plain := table(nil), table(map[string]string{"NO_COLOR": "1"})
	want := `SERVER         STATE      TRANSPORT  TOOLS  TIME  SOURCE  ERROR
good           connected  stdio      8      7ms   test
bad            failed     stdio      0      -     test    exit status 1
off            disabled   stdio      0      -     test
a-longer-name  untrusted  sse        0      -     test    project not trusted
`
	if diff := cmp.Diff(want, plain); diff != "" {
		t.Errorf("NO_COLOR table (-want +got):\n%s", diff)
	}
	if !strings.Contains(coloured, ansiGreen+"connected"+ansiReset+"  stdio") || !strings.Contains(coloured, ansiDim+"disabled"+ansiReset+"   stdio") {
		t.Errorf("states not painted after their padding:\n%q", coloured)
	}
	if diff := cmp.Diff(plain, ourColours.Replace(coloured)); diff != "" {
		t.Errorf("coloured table, colours taken out, differs from the plain one (-plain +coloured):\n%s", diff)
	}
}

// TestStatusLine: each draw replaces the line in place (a carriage return,
// the text, spaces over what is left of a longer one), text wider than the
// terminal is cut short, and a wipe leaves the cursor at an empty line's
// start.
func TestStatusLine(t *testing.T) {
	var out bytes.Buffer
	l := statusLine{w: &out, width: 20}
	l.draw("connecting to 2")
	l.draw("short")
	l.draw("a line much wider than twenty columns")
	l.draw("")
	l.draw("") // nothing shown: nothing to wipe
	want := "\rconnecting to 2" + "\rshort          " + "\ra line much wider …" + "\r                   \r"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("status line (-want +got):\n%s", diff)
	}
}

func TestSettlingSummary(t *testing.T) {
	var s settling
	s.set("alpha", host.StateConnecting)
	if got, want := s.summary(), "connecting to 1 server: 0 connected; waiting for alpha"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	s.set("beta", host.StateConnecting)
	s.set("gamma", host.StateConnecting)
	s.set("alpha", host.StateConnected)
	s.set("beta", host.StateFailed)
	if got, want := s.summary(), "connecting to 3 servers: 1 connected, 1 failed; waiting for gamma"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}
