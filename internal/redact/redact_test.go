package redact

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"none known", nil, "TOKEN=abcdef", "TOKEN=abcdef"},
		{"inside longer text", []string{"s3cr3t-value"}, `Post "http://h/?k=s3cr3t-value": refused`, `Post "http://h/?k=«redacted»": refused`},
		{"every occurrence", []string{"abcd"}, "abcd abcd-abcd abcdabcd", "«redacted» «redacted»-«redacted» «redacted»"},
		{"prefix of another", []string{"tok", "token-1234", "token-12345678"}, "a token-12345678 b token-1234 c", "a «redacted» b «redacted» c"},
		{"overlapping", []string{"abcdef", "defghi"}, "xxabcdefghixx", "xx«redacted»xx"},
		{"one inside another", []string{"bcde", "abcdefgh"}, "abcdefgh bcde", "«redacted» «redacted»"},
		{"repeated letters", []string{"aaaa"}, "aaaaaaa b aaa", "«redacted» b aaa"},
		{"too short", []string{"abc", "1", ""}, "abc 1", "abc 1"},
		{"query escaped", []string{"a b/c+d"}, "k=a+b%2Fc%2Bd&x=1", "k=«redacted»&x=1"},
		{"path escaped", []string{"a b/c"}, "/p/a%20b%2Fc/q", "/p/«redacted»/q"},
		{"json escaped", []string{`pa"ss\word`}, `{"error":"bad pa\"ss\\word"}`, `{"error":"bad «redacted»"}`},
		{"json escaped html", []string{"a<b>&c"}, `"a\u003cb\u003e\u0026c"`, `"«redacted»"`},
		{"line by line", []string{"-----BEGIN KEY-----\nMIIEvQIBADANBgkq\n-----END KEY-----\n"}, "stderr: MIIEvQIBADANBgkq", "stderr: «redacted»"},
		{"trimmed", []string{"  spaced-token \n"}, "got spaced-token!", "got «redacted»!"},
		{"credential that is a word", []string{"true"}, "debug=true", "debug=«redacted»"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New()
			r.Add(tt.secrets...)
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSettings(t *testing.T) {
	r := New()
	dir := t.TempDir()
	r.AddSetting("true", "Production", "8080", "123", "debug", "123456", dir, "/no/such/place/x7", "ghp_abcdefgh")
	// An existing place is named in errors; a path that names nothing
	// here may be a secret that looks like one.
	in := "true Production 8080 123 debug 123456 " + dir + " /no/such/place/x7 ghp_abcdefgh"
	want := "true Production 8080 123 debug «redacted» " + dir + " «redacted» «redacted»"
	if got := r.String(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestHeader(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("alice:hunter22"))
	r := New()
	r.AddHeader("Bearer tok-123456")
	r.AddHeader("Basic " + basic)
	r.AddHeader("plainkey99")
	for _, in := range []string{
		"Authorization: Bearer tok-123456",
		"you sent tok-123456",
		"Authorization: Basic " + basic,
		"as " + basic,
		"login alice:hunter22",
		"password hunter22",
		"x-api-key plainkey99",
	} {
		if got := r.String(in); strings.Contains(got, "tok-123456") || strings.Contains(got, basic) ||
			strings.Contains(got, "hunter22") || strings.Contains(got, "plainkey99") || !strings.Contains(got, Mask) {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
	// The scheme stays, so a person sees what kind was sent; a value too
	// short to split is masked whole.
	if got := r.String("Authorization: Bearer tok-123456"); got != "Authorization: Bearer «redacted»" {
		t.Errorf("got %q", got)
	}
	r.AddHeader("Token abc")
	if got := r.String("sent Token abc"); got != "sent «redacted»" {
		t.Errorf("got %q", got)
	}
	// The user name of Basic credentials is a setting.
	if got := r.String("hello alice"); got != "«redacted»" && got != "hello «redacted»" {
		t.Errorf("user name not masked: %q", got)
	}
}

func TestURL(t *testing.T) {
	r := New()
	r.AddURL("https://bob:pa%24%24word@example.com/mcp?api_key=k3y%2Fvalue&debug=1&token=t0ken#frag")
	r.AddURL("https://ghp_usertoken@example.com/")
	r.AddURL("http://[::1:bad/?secret=unparsed-secret")
	for _, leak := range []string{
		"k3y%2Fvalue", "k3y/value", "t0ken", "pa$$word", "pa%24%24word", "bob:pa$$word", "bob:pa%24%24word",
		base64.StdEncoding.EncodeToString([]byte("bob:pa$$word")),
		"ghp_usertoken", base64.StdEncoding.EncodeToString([]byte("ghp_usertoken:")),
		"unparsed-secret",
	} {
		if got := r.String("saw " + leak + "."); got != "saw «redacted»." {
			t.Errorf("%q: got %q", leak, got)
		}
	}
	if got := r.String("example.com/mcp debug=1 frag"); got != "example.com/mcp debug=1 frag" {
		t.Errorf("masked what is not secret: %q", got)
	}
}

func TestAddConfig(t *testing.T) {
	r := New()
	r.AddConfig(Values{
		Env:       map[string]string{"TOKEN": "env-secret", "DEBUG": "true", "PORT": "8080"},
		Headers:   map[string]string{"Authorization": "Bearer hdr-secret"},
		URL:       "https://h/mcp?key=url-secret",
		Variables: map[string]string{"KEY": "var-secret", "HOME": "/home/someone", "LC_ALL": "C.UTF-8"},
	})
	in := "env-secret true 8080 hdr-secret url-secret var-secret /home/someone/x"
	want := "«redacted» true 8080 «redacted» «redacted» «redacted» /home/someone/x"
	if got := r.String(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestNilAndZero(t *testing.T) {
	var r *Redactor
	r.Add("abcdef")
	if got := r.String("abcdef"); got != "abcdef" {
		t.Errorf("nil: %q", got)
	}
	var z Redactor
	if got := z.String("abcdef"); got != "abcdef" {
		t.Errorf("zero: %q", got)
	}
	z.Add("abcdef")
	if got := z.String("abcdef"); got != Mask {
		t.Errorf("zero after Add: %q", got)
	}
}

func TestError(t *testing.T) {
	r := New()
	r.Add("sekrit-1")
	base := fmt.Errorf("open sekrit-1: %w", fs.ErrNotExist)
	err := r.Error(base)
	if err.Error() != "open «redacted»: file does not exist" {
		t.Errorf("Error() = %q", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Error("the masked error does not unwrap")
	}
	plain := errors.New("nothing here")
	if r.Error(plain) != plain {
		t.Error("an error with nothing to mask was wrapped")
	}
	if r.Error(nil) != nil {
		t.Error("nil became an error")
	}
}

type stringer struct{ s string }

func (s stringer) String() string { return s.s }

func TestHandler(t *testing.T) {
	r := New()
	var buf bytes.Buffer
	log := slog.New(r.Handler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	r.Add("sl0g-secret") // after the logger was made: it still applies
	log = log.With("server", "s", "early", "sl0g-secret")
	log.WithGroup("g").Info("msg sl0g-secret", "error", errors.New("failed: sl0g-secret"),
		"any", stringer{"x sl0g-secret"}, "struct", struct{ A string }{"sl0g-secret"},
		slog.Group("inner", "k", "sl0g-secret"), "n", 3, "plain", errors.New("fine"))
	out := buf.String()
	if strings.Contains(out, "sl0g-secret") {
		t.Errorf("secret in the log: %s", out)
	}
	for _, want := range []string{`server=s`, `n=3`, `error="failed: «redacted»"`, `g.inner.k=«redacted»`, `g.plain=fine`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s: %s", want, out)
		}
	}
}

func BenchmarkString(b *testing.B) {
	r := New()
	for i := range 200 {
		r.Add(fmt.Sprintf("secret-token-%04d-abcdefghijklmnop", i))
	}
	line := strings.Repeat("a log line with nothing secret in it, at some length; ", 40)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		r.String(line)
	}
}

// TestOtherEncoders: a secret echoed by an encoder with other habits than
// Go's is masked too: PHP escapes "/", Python writes non-ASCII as \u.
func TestOtherEncoders(t *testing.T) {
	r := New()
	r.Add("tok/abc+def/GHIJ9", "pässwort-geheim")
	in := `{"a": "tok\/abc+def\/GHIJ9", "b": "p\u00e4sswort-geheim"}`
	if got := r.String(in); strings.Contains(got, "GHIJ9") || strings.Contains(got, "sswort") {
		t.Errorf("String(%q) = %q", in, got)
	}
}

// A url's fragment parameters are masked like its query's.
func TestURLFragment(t *testing.T) {
	r := New()
	r.AddURL("https://h.example/mcp#access_token=frag-secret-123&x=1")
	if got := r.String("failed: https://h.example/mcp#access_token=frag-secret-123"); strings.Contains(got, "frag-secret-123") {
		t.Errorf("fragment secret shown: %q", got)
	}
}

// A reference left as written is the name of a value, not a secret: the
// error that says it cannot be resolved must show it.
func TestReferencesAreNotSecrets(t *testing.T) {
	r := New()
	r.AddSetting("${input:api-key}", "{env:TOKEN}", "$ecret-password")
	r.AddHeader("Bearer ${input:token}")
	const text = `VS Code input variables like "${input:api-key}" or "${input:token}" are not supported; nor {env:TOKEN}`
	if got := r.String(text); got != text {
		t.Errorf("String = %q", got)
	}
	if got := r.String("pw $ecret-password"); got != "pw «redacted»" {
		t.Errorf("a value that starts with $ is still a secret: %q", got)
	}
}
