// Package redact masks secret values in the text switchboard lets out —
// errors, log lines, events, statuses, its own log — as CI systems mask
// secrets in build logs (DESIGN.md F44).
//
// Servers and libraries quote what they were given: a url with its api_key
// in an HTTP error, a bearer token in a 403, a whole environment on stderr.
// Rather than hunt each such path, a Redactor is told every value the host
// resolved (env and header values, substituted variables, url query values
// and userinfo, tokens got at run time) and masks each occurrence, whole,
// wherever it appears in a text, as Mask. It depends on the standard
// library alone, so whatever prints can use it.
//
// # What counts as a secret
//
// A value shorter than MinLen bytes is never masked: masking "1" or "on"
// would mask every occurrence of it in every line. Beyond that there are
// two kinds of value:
//
//   - Credentials (Add, AddHeader, and the password and query values of
//     AddURL) are masked whenever they are at least MinLen bytes long.
//   - Settings that are usually, but not always, secret (AddSetting: env
//     values, substituted variables, the user name of a url) are masked
//     unless they are also a common configuration word ("true", "debug",
//     "production", … see commonWords), a number of at most five digits
//     (a port, a count), or the absolute path of a file or directory that
//     exists (a place, which errors must be able to name).
//
// Each value is also masked in the forms a server is likely to echo it
// in: URL-encoded (query and path escaping), JSON-escaped, trimmed of
// surrounding space, and line by line when it has several lines (a key
// file printed to stderr arrives a line at a time). A header's
// credentials are masked without their scheme ("Bearer «redacted»" still
// says what kind was sent), and a Basic header's or a url's user:password
// in its base64 form and decoded.
//
// Values are only ever added: a token replaced by a reload may still be
// valid, and a line logged before the reload may still be printed.
package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"

	"github.com/switchboard-mcp/switchboard/internal/httpsyntax"
)

// Mask replaces every secret. It is plain to a person reading a log, and
// no config value or token is likely to contain it.
const Mask = "«redacted»"

// MinLen is the length, in bytes, below which a value is not a secret.
const MinLen = 4

// maxDigits is the longest number a setting may be and not be a secret:
// ports and counts, not account numbers.
const maxDigits = 5

// commonWords are setting values that are configuration, never secrets,
// compared case-insensitively. Only settings are checked against them; a
// credential is a credential, however it is spelt.
var commonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		true false yes no on off null nil none undefined
		enable enabled disable disabled
		debug info information notice warn warning error fatal trace verbose quiet silent
		production prod development dev staging stage test testing local localhost default
		auto always never stdio http https json text utf8 utf-8 c.utf-8 en_us.utf-8
		root admin user guest 127.0.0.1 0.0.0.0`) {
		commonWords[w] = true
	}
}

// A Redactor masks the secrets it has been told. The zero value and nil
// mask nothing; it is safe for concurrent use, and String takes no lock.
type Redactor struct {
	mu     sync.Mutex
	known  map[string]bool
	active atomic.Pointer[matcher]
}

// New returns a Redactor that knows no secrets.
func New() *Redactor { return &Redactor{} }

// String returns s with every occurrence of every secret masked.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	m := r.active.Load()
	if m == nil || s == "" {
		return s
	}
	return m.replace(s, Mask)
}

// Error returns err with its message masked: an error whose Error is
// String(err.Error()) and that unwraps to err, so errors.Is and errors.As
// still see what it wraps. An error with nothing to mask is returned as
// it is, and nil as nil.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	masked := r.String(msg)
	if masked == msg {
		return err
	}
	return &maskedError{err: err, msg: masked}
}

type maskedError struct {
	err error
	msg string
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }

// Add records credentials: each value is masked from now on when it is at
// least MinLen bytes long. It is how a token got at run time (OAuth) is
// made a secret.
func (r *Redactor) Add(values ...string) {
	var vs valueSet
	for _, v := range values {
		vs.add(credential, v)
	}
	r.learn(vs)
}

// AddSetting records values that are secret unless they look like plain
// configuration: env values, substituted variables, user names (see the
// package comment).
func (r *Redactor) AddSetting(values ...string) {
	var vs valueSet
	for _, v := range values {
		vs.add(setting, v)
	}
	r.learn(vs)
}

// AddHeader records an HTTP header value: its credentials without their
// scheme ("Bearer x": "x", or the whole value when it has no scheme or
// the credentials are too short), and for Basic credentials the
// user:password they encode and the password.
func (r *Redactor) AddHeader(value string) {
	var vs valueSet
	vs.header(value)
	r.learn(vs)
}

// AddURL records the secret parts of a url: the user name and password
// (alone, as user:password, and in the base64 form of the Basic
// Authorization header an HTTP client makes of them) and every query
// value, as written and decoded. A url that does not parse still has its
// query values recorded.
func (r *Redactor) AddURL(raw string) {
	var vs valueSet
	vs.url(raw)
	r.learn(vs)
}

// Values is what one server's config holds that may be secret, for
// AddConfig.
type Values struct {
	Env     map[string]string // env values, after "!command"s ran
	Headers map[string]string // header values, likewise
	URL     string
	// Variables are the variables substituted into the config, by name;
	// those that name places, people or locales (HOME, USER, LANG, …) are
	// not secrets.
	Variables map[string]string
}

// AddConfig records everything in v that may be secret, at once.
func (r *Redactor) AddConfig(v Values) {
	var vs valueSet
	for _, val := range v.Env {
		vs.add(setting, val)
	}
	for _, val := range v.Headers {
		vs.header(val)
	}
	vs.url(v.URL)
	for name, val := range v.Variables {
		if !ordinaryVariable(name) {
			vs.add(setting, val)
		}
	}
	r.learn(vs)
}

// valueSet gathers values to learn in one go: the matcher is rebuilt once
// per call, not once per value.
type valueSet []value

type value struct {
	k kind
	v string
}

func (vs *valueSet) add(k kind, v string) { *vs = append(*vs, value{k, v}) }

// header is AddHeader's rule. With a scheme, only the credentials are
// masked: "Bearer «redacted»" still says which kind was sent.
func (vs *valueSet) header(v string) {
	scheme, creds, ok := strings.Cut(strings.TrimSpace(v), " ")
	creds = strings.TrimSpace(creds)
	if !ok || !httpsyntax.IsToken(scheme) || len(creds) < MinLen {
		vs.add(credential, v)
		return
	}
	vs.add(credential, creds)
	if strings.EqualFold(scheme, "Basic") {
		if pair, err := base64.StdEncoding.DecodeString(creds); err == nil {
			user, pass, _ := strings.Cut(string(pair), ":")
			vs.add(credential, string(pair))
			vs.add(credential, pass)
			vs.add(setting, user)
		}
	}
}

// url is AddURL's rule.
func (vs *valueSet) url(raw string) {
	if raw == "" {
		return
	}
	// The query and userinfo as written, which may escape more or less
	// than package url would, and are there even when the url does not
	// parse.
	rest := raw
	if _, after, ok := strings.Cut(raw, "://"); ok {
		rest = after
		authority := after
		if i := strings.IndexAny(after, "/?#"); i >= 0 {
			authority = after[:i]
		}
		if i := strings.LastIndex(authority, "@"); i >= 0 {
			userinfo := authority[:i]
			if user, pass, ok := strings.Cut(userinfo, ":"); ok {
				vs.add(credential, userinfo)
				vs.add(credential, pass)
				vs.add(setting, user)
			} else {
				vs.add(setting, userinfo)
			}
		}
	}
	_, query, _ := strings.Cut(rest, "?")
	query, fragment, _ := strings.Cut(query, "#")
	if !strings.Contains(rest, "?") {
		_, fragment, _ = strings.Cut(rest, "#")
	}
	// A fragment carries parameters the way a query does
	// (#access_token=…, as OAuth's implicit flow writes it).
	params := query + "&" + fragment
	for _, kv := range strings.FieldsFunc(params, func(c rune) bool { return c == '&' || c == ';' }) {
		_, v, _ := strings.Cut(kv, "=")
		vs.add(credential, v)
		if dec, err := url.QueryUnescape(v); err == nil {
			vs.add(credential, dec)
		}
	}
	// Decoded, and as net/http sends userinfo: a Basic Authorization
	// header.
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		user := u.User.Username()
		vs.add(setting, user)
		pass, hasPass := u.User.Password()
		pair := user + ":" + pass
		if hasPass {
			vs.add(credential, pass)
			vs.add(credential, pair)
		}
		vs.add(credential, base64.StdEncoding.EncodeToString([]byte(pair)))
	}
}

// ordinaryVariable reports whether a variable names a place, a person or
// a locale: its value is in every path and message, and no secret.
func ordinaryVariable(name string) bool {
	switch name {
	case "HOME", "USER", "LOGNAME", "USERNAME", "PWD", "OLDPWD", "PATH", "SHELL", "TERM",
		"TMPDIR", "TMP", "TEMP", "LANG", "HOSTNAME", "USERPROFILE", "APPDATA", "LOCALAPPDATA":
		return true
	}
	return strings.HasPrefix(name, "XDG_") || strings.HasPrefix(name, "LC_")
}

type kind int

const (
	credential kind = iota
	setting
)

// isSecret is the rule of the package comment.
func isSecret(k kind, v string) bool {
	if len(v) < MinLen || isReference(v) {
		return false
	}
	if k == credential {
		return true
	}
	if commonWords[strings.ToLower(v)] || isPlace(v) {
		return false
	}
	return !(len(v) <= maxDigits && strings.Trim(v, "0123456789") == "")
}

// isReference reports whether v is nothing but a variable reference left
// as written (${input:token}, ${env:NAME}, {env:NAME}): the name of a
// value, which an error about it must show, not the value. A bare $NAME
// is not taken for one: a password may start with $.
func isReference(v string) bool {
	switch {
	case strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}"):
		v = v[2 : len(v)-1]
	case strings.HasPrefix(v, "{env:") && strings.HasSuffix(v, "}"):
		v = v[5 : len(v)-1]
	default:
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == ':' || c == '-' || c == '.') {
			return false
		}
	}
	return v != ""
}

// isPlace reports whether a setting names a file or directory that
// exists: a place on this machine, which a person needs to read in an
// error ("the command runs /home/ada/bin/x"), not a secret. A credential's
// path (GOOGLE_APPLICATION_CREDENTIALS) is not the credential.
func isPlace(v string) bool {
	if !filepath.IsAbs(v) || strings.ContainsAny(v, "\n\r") {
		return false
	}
	_, err := os.Stat(v)
	return err == nil
}

// learn records values, with the forms they are echoed in, and rebuilds
// the matcher when one is new.
func (r *Redactor) learn(vs valueSet) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fresh := false
	for _, v := range vs {
		for _, form := range forms(v.v) {
			if isSecret(v.k, form) && !r.known[form] {
				if r.known == nil {
					r.known = map[string]bool{}
				}
				r.known[form] = true
				fresh = true
			}
		}
	}
	if !fresh {
		return
	}
	all := make([]string, 0, len(r.known))
	for s := range r.known {
		all = append(all, s)
	}
	slices.Sort(all) // the same secrets make the same matcher
	r.active.Store(newMatcher(all))
}

// forms are the ways a value may appear in a text: as it is, trimmed,
// each of its lines, and escaped for a url or a JSON string.
func forms(v string) []string {
	out := []string{v, strings.TrimSpace(v)}
	if strings.ContainsAny(v, "\r\n") {
		for _, line := range strings.FieldsFunc(v, func(c rune) bool { return c == '\n' || c == '\r' }) {
			out = append(out, line, strings.TrimSpace(line))
		}
	}
	n := len(out)
	for _, s := range out[:n] {
		j := jsonEscape(s, false)
		out = append(out, url.QueryEscape(s), url.PathEscape(s), jsonEscape(s, true), j,
			// Other encoders' habits: PHP's "\/" and Python's ASCII-only
			// "\u00e4".
			strings.ReplaceAll(j, "/", `\/`), asciiJSON(j))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// asciiJSON is a JSON string's inside with every non-ASCII character as
// a \u escape (surrogate pairs beyond the BMP), as Python's json.dumps
// writes it by default.
func asciiJSON(j string) string {
	var b strings.Builder
	for _, r := range j {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// jsonEscape is s as it appears inside a JSON string, with <, > and &
// escaped (encoding/json's default) or not.
func jsonEscape(s string, html bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		return s
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}
