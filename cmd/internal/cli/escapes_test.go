package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// These tests run the command line in this process against demo-server
// --escapes (issue 9, point 5): whatever a server writes, what reaches the
// person's terminal holds no control character but our own colours.

// escapedPayload is demo.EscapePayload as a person sees it.
const escapedPayload = `\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b[32mall servers OK\x1b[0m \u202eKO\u202c \x9b2J\x7f\x08`

// escapesConfig writes a config of three servers: esc serves the payload,
// escfail writes it to stderr and fails, and a third has it in its name
// and command, as a cloned repository's config could.
func escapesConfig(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	q := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	env := `"env": {"SWITCHBOARD_TEST_AS_CLI": "1"}`
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	data := `{"mcpServers": {
		"esc": {"command": ` + q(exe) + `, "args": ["demo-server", "--escapes"], ` + env + `},
		"escfail": {"command": ` + q(exe) + `, "args": ["demo-server", "--escapes", "--fail-start"], ` + env + `},
		` + q("\x1b]0;pwned\x07name") + `: {"command": ` + q("/nonexistent/\x1b[2J") + `}
	}}`
	if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// terminalIO is a terminal on both streams, with colour unless noColor.
func terminalIO(t *testing.T, out, errOut io.Writer, noColor bool) IO {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "TERM": "xterm-256color", "XDG_STATE_HOME": filepath.Join(home, "state")}
	if noColor {
		env["NO_COLOR"] = "1"
	}
	return IO{
		In: strings.NewReader(""), Out: out, Err: errOut, OutTTY: true, ErrTTY: true,
		Getenv:    func(k string) string { return env[k] },
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
}

func runEscapes(t *testing.T, cfg string, noColor bool, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(t.Context(), append([]string{"--config", cfg, "--no-cache"}, args...), terminalIO(t, &out, &errOut, noColor))
	return out.String(), errOut.String(), code
}

// ourColours are the only escape sequences the command line writes itself.
var ourColours = strings.NewReplacer(ansiReset, "", ansiDim, "", ansiRed, "", ansiGreen, "", ansiYellow, "")

// progressLines makes each redraw of the progress line, which starts with
// a carriage return of our own, a line of its own, to be checked like the
// others: a server's text never brings a carriage return of its own there
// (termsafe escapes it).
func progressLines(stderr string) string { return strings.ReplaceAll(stderr, "\r", "\n") }

// checkTerminalSafe fails when s, our colours taken out, holds anything a
// terminal acts on: a control character other than tab, newline and the
// CR of a CRLF, DEL, a C1 control, a bidi override, or bytes that are not
// UTF-8.
func checkTerminalSafe(t *testing.T, what, s string) {
	t.Helper()
	rest := ourColours.Replace(s)
	for i, r := range rest {
		switch {
		case r == '\t' || r == '\n', r == '\r' && strings.HasPrefix(rest[i:], "\r\n"):
		case r == utf8.RuneError && !strings.HasPrefix(rest[i:], "\ufffd"),
			r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			t.Errorf("%s holds %U at byte %d:\n%q", what, r, i, rest)
			return
		}
	}
}

func TestServerTextIsEscaped(t *testing.T) {
	cfg := escapesConfig(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		// stdout and stderr are what each must contain.
		stdout, stderr []string
	}{
		{name: "status table", code: ExitFailure, stdout: []string{
			"escfail", "exited (status 1): error: " + escapedPayload + ` \xff`, `\x1b]0;pwned\x07name`, `/nonexistent/\x1b[2J`,
			ansiGreen + "connected", ansiRed + "failed",
		}},
		{name: "list", args: []string{"list"}, code: ExitFailure, stdout: []string{escapedPayload, `\x1b]0;pwned\x07name`}},
		{name: "tools", args: []string{"tools", "esc"}, stdout: []string{"mcp__esc__escapes", escapedPayload + " (a description"}},
		{name: "resources", args: []string{"resources", "esc"}, stdout: []string{"demo://escapes", escapedPayload}},
		{name: "prompts", args: []string{"prompts", "--server", "esc"}, stdout: []string{"esc  escapes", escapedPayload}},
		{name: "prompt", args: []string{"prompt", "escapes", "--server", "esc"}, stdout: []string{"user: " + escapedPayload}},
		{name: "read", args: []string{"read", "demo://escapes"}, stdout: []string{escapedPayload + "\nsecond line\n"}},
		{name: "call text", args: []string{"call", "mcp__esc__escapes"}, stdout: []string{
			escapedPayload + "\nsecond line\r\nthird line\n",
			"[resource link] demo://escapes " + escapedPayload + "\n",
			"[resource demo://escapes]\n" + escapedPayload + "\n",
			"[resource application/x-msdownload" + escapedPayload + ", 2 bytes]",
		}},
		{name: "call protocol error", args: []string{"call", "mcp__esc__escapes_error"}, code: ExitFailure,
			stdout: []string{escapedPayload}, stderr: []string{"switchboard: ", escapedPayload}},
		{name: "call a failed server", args: []string{"call", "mcp__escfail__echo"}, code: ExitFailure,
			stderr: []string{`switchboard: server "escfail" is failed: `, escapedPayload}},
		{name: "logs", args: []string{"logs", "escfail"}, code: ExitFailure,
			stdout: []string{ansiRed + "error: " + escapedPayload + ` \xff` + ansiReset},
			stderr: []string{`switchboard: server "escfail" is failed: `, escapedPayload}},
		{name: "tools of a failed server", args: []string{"tools", "--server", "escfail"}, code: ExitFailure,
			stderr: []string{`switchboard: server "escfail" is failed: `, escapedPayload}},
		{name: "sources", args: []string{"sources"}, stdout: []string{`\x1b]0;pwned\x07name`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runEscapes(t, cfg, false, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			checkTerminalSafe(t, "stdout", stdout)
			checkTerminalSafe(t, "stderr", progressLines(stderr))
			for _, want := range tc.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout does not show %q:\n%s", want, stdout)
				}
			}
			for _, want := range tc.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr does not show %q:\n%s", want, stderr)
				}
			}
		})
	}
}

// TestServerTextNoColor: with NO_COLOR nothing at all is an escape
// sequence, the server's included.
func TestServerTextNoColor(t *testing.T) {
	stdout, stderr, _ := runEscapes(t, escapesConfig(t), true)
	for what, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.ContainsAny(s, "\x1b\u009b") {
			t.Errorf("%s holds an escape sequence with NO_COLOR:\n%q", what, s)
		}
	}
	if !strings.Contains(stdout, escapedPayload) {
		t.Errorf("the table does not show the payload escaped:\n%s", stdout)
	}
}

// TestCallRaw: --raw prints a tool's text exactly as the server sent it;
// the rest of the output is still escaped.
func TestCallRaw(t *testing.T) {
	stdout, _, code := runEscapes(t, escapesConfig(t), false, "call", "mcp__esc__escapes", "--raw")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasPrefix(stdout, demo.EscapePayload+"\nsecond line\r\nthird line\n") {
		t.Errorf("--raw did not print the text as sent:\n%q", stdout)
	}
	if !strings.Contains(stdout, "[resource link] demo://escapes "+escapedPayload+"\n") {
		t.Errorf("--raw printed more than the text raw:\n%q", stdout)
	}
}

// TestJSONKeepsServerText: --json prints valid JSON that decodes to what
// the server sent, exactly, and holds no raw control character either.
func TestJSONKeepsServerText(t *testing.T) {
	cfg := escapesConfig(t)
	for _, tc := range []struct {
		name string
		args []string
		// want finds the server's string in the decoded output.
		want func(t *testing.T, out string) string
		// value is what that string must be.
		value string
	}{
		{name: "tools", args: []string{"tools", "esc", "--json"}, value: demo.EscapePayload + " (a description full of terminal escape sequences)",
			want: func(t *testing.T, out string) string {
				var tools []struct{ Name, Description string }
				decode(t, out, &tools)
				for _, tool := range tools {
					if tool.Name == "mcp__esc__escapes" {
						return tool.Description
					}
				}
				return ""
			}},
		{name: "call", args: []string{"call", "mcp__esc__escapes", "--json"}, value: demo.EscapePayload + "\nsecond line\r\nthird line",
			want: func(t *testing.T, out string) string {
				var res struct{ Content []struct{ Text string } }
				decode(t, out, &res)
				return res.Content[0].Text
			}},
		{name: "list", args: []string{"list", "--json"}, value: "error: " + demo.EscapePayload + " \ufffd",
			want: func(t *testing.T, out string) string {
				var servers []statusJSON
				decode(t, out, &servers)
				for _, s := range servers {
					if s.Name == "escfail" {
						_, rest, _ := strings.Cut(s.Error, "exited (status 1): ")
						before, _, _ := strings.Cut(rest, " | ")
						return before
					}
				}
				return ""
			}},
		{name: "logs", args: []string{"logs", "escfail", "--json"}, value: "error: " + demo.EscapePayload + " \ufffd",
			want: func(t *testing.T, out string) string {
				for line := range strings.Lines(out) {
					var l struct{ Text string }
					decode(t, line, &l)
					if strings.Contains(l.Text, "pwned") {
						return l.Text
					}
				}
				return ""
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, _ := runEscapes(t, cfg, false, tc.args...)
			checkTerminalSafe(t, "stdout", stdout)
			checkTerminalSafe(t, "stderr", progressLines(stderr))
			if got := tc.want(t, stdout); got != tc.value {
				t.Errorf("decoded %q, want %q exactly", got, tc.value)
			}
		})
	}
}

func decode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
}

// TestWatchTextIsEscaped: watch's text lines show a server's log lines and
// errors escaped, in colour.
func TestWatchTextIsEscaped(t *testing.T) {
	cfg := escapesConfig(t)
	pr, pw := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), watchBound)
	defer cancel()
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		defer pw.Close()
		done <- Run(ctx, []string{"--config", cfg, "--no-cache", "watch"}, terminalIO(t, pw, &stderr, false))
	}()
	sc := bufio.NewScanner(pr)
	var log, state bool
	for !(log && state) && sc.Scan() {
		line := sc.Text()
		checkTerminalSafe(t, "a line of watch", line)
		if !strings.Contains(line, "escfail") {
			continue
		}
		log = log || strings.Contains(line, ansiRed+"error: "+escapedPayload)
		state = state || strings.Contains(line, "exited (status 1): error: "+escapedPayload)
	}
	cancel()
	go io.Copy(io.Discard, pr)
	<-done
	if !log || !state {
		t.Errorf("watch ended before showing escfail's log line (%v) and failure (%v) escaped", log, state)
	}
	checkTerminalSafe(t, "watch's stderr", stderr.String())
}

// watchBound is far beyond what any watch test needs on a working host.
const watchBound = 2 * time.Minute

func TestCellsStayOneColumn(t *testing.T) {
	long := strings.Repeat("é", 98) + "\x1b[2J and more"
	for _, tc := range []struct{ in, want string }{
		{"a\tb\x1bc", `a b\x1bc`},
		{"  first\x1b[H\nsecond", `first\x1b[H`},
		{long, strings.Repeat("é", 98) + `\x1b…`},
		{strings.Repeat("\xff", 101), strings.Repeat(`\xff`, 99) + "…"},
	} {
		if got := firstLine(tc.in); got != tc.want {
			t.Errorf("firstLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := oneLine("a\n\tb\x1b[2J\u0085c"); got != `a b\x1b[2J c` {
		t.Errorf("oneLine = %q", got)
	}
}
