package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// MaxMessageDepth is the deepest nesting of arrays and objects a message may have
// (DESIGN.md F24). go-sdk decodes every message with a depth limit of 1000
// (its internal/json defaultMaxDepth, counted over the whole message), and
// a message it cannot decode ends the session for every call on it, so no
// deeper message may reach it; a reply that is deeper fails its own call
// instead. encoding/json's own limit, 10000, is above it.
const MaxMessageDepth = 1000

// maxField bounds the id and method kept from a frame's top level: an id
// or a method name longer than that is not one worth answering for.
const maxField = 256

// scanState is where a frameScan is in the top-level object.
type scanState uint8

const (
	wantKey scanState = iota
	inKey
	wantColon
	wantValue
	inValue
)

// span is where a top-level value is in the line, kept without its bytes:
// params, result and error, which the message is decoded with in place.
type span struct {
	start, end int64
	seen       bool
}

// field is a top-level value kept as it was written, up to maxField bytes.
type field struct {
	raw  []byte
	seen bool
	bad  bool // too long, or an object or array
}

func (f *field) add(c byte) {
	if len(f.raw) < maxField {
		f.raw = append(f.raw, c)
	} else {
		f.bad = true
	}
}

// frameScan follows one line as it streams past, a chunk at a time, and
// keeps what the filter decides on without holding the line: how deep it
// nests (counted as go-sdk counts it: brackets outside strings), the
// top-level jsonrpc, id and method of an object, and where its params,
// result and error are, so that a line passed on is decoded from this one
// scan (decode). It does not validate; json.Valid does that for a line
// that is passed on.
type frameScan struct {
	depth, maxDepth     int
	inStr, esc          bool
	top                 byte // the first bracket: '{' for a message, '[' for a batch
	st                  scanState
	key                 []byte
	keyLong             bool
	val                 *field // where the current top-level value goes, if kept
	version, id, method field
	// pos is how many bytes were fed, so the offset of what comes next;
	// sig is the offset just past the last byte outside strings that is
	// not white space, or past a string's closing quote: where a value
	// that ends at the next ',' or '}' ends.
	pos, sig             int64
	cur                  *span // the span of the current top-level value, if kept
	params, result, errv span
	// pauseAtMethod makes feed return as soon as the top-level method
	// has been read, once a line, so the filter can drop a log line over
	// its budget without scanning the rest of it.
	pauseAtMethod bool
}

func (s *frameScan) reset() {
	*s = frameScan{
		key:     s.key[:0],
		version: field{raw: s.version.raw[:0]},
		id:      field{raw: s.id.raw[:0]},
		method:  field{raw: s.method.raw[:0]},
	}
}

// feed scans the next chunk of the line. It returns how much of p it
// scanned: all of it, unless pauseAtMethod and the method ended within p,
// when the caller feeds the rest.
func (s *frameScan) feed(p []byte) int {
	n := s.scan(p)
	s.pos += int64(n)
	return n
}

func (s *frameScan) scan(p []byte) int {
	// The next quote and backslash at or after i, found by IndexByte and
	// kept until passed, so the inside of a string that is not kept (a
	// large text result, mostly) is skipped at memchr speed, in time
	// linear in the chunk however many escapes it has.
	quote, slash := -1, -1
	for i := 0; i < len(p); i++ {
		top := s.depth == 1 && s.top == '{'
		if s.inStr && !s.esc && !(top && (s.st == inKey || s.st == inValue && s.val != nil)) {
			if quote < i {
				quote = nextByte(p, i, '"')
			}
			if slash < i {
				slash = nextByte(p, i, '\\')
			}
			i = min(quote, slash)
			if i == len(p) {
				return len(p)
			}
		}
		c := p[i]
		if s.inStr {
			closing := false
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.inStr, closing = false, true
				s.sig = s.pos + int64(i) + 1
			}
			if top {
				switch {
				case s.st == inKey && closing:
					s.st = wantColon
				case s.st == inKey:
					if len(s.key) < maxField {
						s.key = append(s.key, c)
					} else {
						s.keyLong = true
					}
				case s.st == inValue && s.val != nil:
					s.val.add(c)
				}
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		before := s.sig
		s.sig = s.pos + int64(i) + 1
		if top {
			if s.st == wantValue {
				s.startValue(c, s.pos+int64(i))
			} else if s.st == inValue && s.val != nil && c != ',' && c != '}' {
				s.val.add(c)
			}
		}
		switch c {
		case '"':
			s.inStr = true
			if top && s.st == wantKey {
				s.st, s.key, s.keyLong = inKey, s.key[:0], false
			}
		case '{', '[':
			s.depth++
			s.maxDepth = max(s.maxDepth, s.depth)
			if s.depth == 1 {
				if s.top == 0 {
					s.top = c
				}
				s.st = wantKey
			}
		case '}', ']':
			if top {
				s.endValue(before)
			}
			if s.depth > 0 {
				s.depth--
			}
		case ':':
			if top && s.st == wantColon {
				s.st = wantValue
			}
		case ',':
			if top {
				s.endValue(before)
				ended := s.val == &s.method
				s.st, s.val = wantKey, nil
				if ended && s.pauseAtMethod {
					s.pauseAtMethod = false
					return i + 1
				}
			}
		}
	}
	return len(p)
}

// nextByte is the index of the first c in p at or after i, or len(p).
func nextByte(p []byte, i int, c byte) int {
	if j := bytes.IndexByte(p[i:], c); j >= 0 {
		return i + j
	}
	return len(p)
}

// startValue begins a top-level member's value with its first byte c, at
// offset at. A member given twice is read as decoders read it: the last
// one counts.
func (s *frameScan) startValue(c byte, at int64) {
	s.st, s.val, s.cur = inValue, nil, nil
	if s.keyLong {
		return
	}
	key := string(s.key)
	if bytes.IndexByte(s.key, '\\') >= 0 {
		key = unquote(append(append([]byte{'"'}, s.key...), '"'))
	}
	switch key {
	case "jsonrpc":
		s.val = &s.version
	case "id":
		s.val = &s.id
	case "method":
		s.val = &s.method
	case "params":
		s.cur = &s.params
	case "result":
		s.cur = &s.result
	case "error":
		s.cur = &s.errv
	}
	if s.cur != nil {
		*s.cur = span{start: at, seen: true}
	}
	if s.val == nil {
		return
	}
	*s.val = field{raw: s.val.raw[:0], seen: true, bad: c == '{' || c == '['}
	s.val.add(c)
}

// endValue ends the current top-level value, whose last byte ends at end.
func (s *frameScan) endValue(end int64) {
	if s.cur != nil && s.st == inValue {
		s.cur.end = end
	}
	s.cur = nil
}

// unquote is the text of a JSON string, or "" when raw is no string.
func unquote(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	if text, ok := plainText(raw); ok {
		return text
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v
}

// plainText is the text of a quoted JSON string written plainly: no
// escapes, valid UTF-8 (a decoder reads an invalid byte as U+FFFD).
func plainText(raw []byte) (string, bool) {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return "", false
	}
	return string(inner), true
}

// text is a string field's text, or "" when it is absent or no string.
func (f *field) text() string {
	if !f.seen || f.bad {
		return ""
	}
	if r := f.raw; len(r) >= 2 && r[0] == '"' {
		if m, ok := methods[string(r[1:len(r)-1])]; ok {
			return m
		}
	}
	return unquote(f.raw)
}

// methods are MCP's method names, so that reading one, as text does for
// every message with a method, allocates nothing.
var methods = func() map[string]string {
	m := map[string]string{}
	for _, name := range []string{
		"initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/read",
		"resources/templates/list", "resources/subscribe", "resources/unsubscribe", "prompts/list",
		"prompts/get", "completion/complete", "logging/setLevel", "roots/list", "sampling/createMessage",
		"elicitation/create", "notifications/initialized", "notifications/cancelled",
		"notifications/progress", "notifications/message", "notifications/tools/list_changed",
		"notifications/resources/list_changed", "notifications/resources/updated",
		"notifications/prompts/list_changed", "notifications/roots/list_changed",
		"notifications/elicitation/complete",
	} {
		m[name] = name
	}
	return m
}()

// is reports whether a field is the string s, without allocating when it
// is written plainly, as it nearly always is.
func (f *field) is(s string) bool {
	r := f.raw
	if !f.seen || f.bad || len(r) < 2 || r[0] != '"' {
		return false
	}
	if bytes.IndexByte(r, '\\') >= 0 {
		return unquote(r) == s
	}
	return string(r[1:len(r)-1]) == s
}

// message reports whether the line is an object with the "jsonrpc" member
// a JSON-RPC message has: a line worth answering for when it is refused.
func (s *frameScan) message() bool { return s.top == '{' && s.version.seen }

// decodable reports whether go-sdk can decode the line as a message, on
// what its top level says (the line being valid JSON): version "2.0", a
// method that is a string, an id that is a number, a string or null, and
// one of a method or an id. go-sdk ends the session on a message it cannot
// decode, so no other reaches it. A batch is passed as it was.
func (s *frameScan) decodable() bool {
	if s.top == '[' {
		return true
	}
	if s.top != '{' || !s.version.is("2.0") {
		return false
	}
	if s.method.seen && (s.method.bad || s.method.raw[0] != '"') {
		return false
	}
	if s.id.seen {
		if _, ok := s.requestID(); !ok && string(s.id.raw) != "null" {
			return false
		}
	}
	if s.method.seen {
		return true
	}
	_, ok := s.requestID()
	return ok
}

// requestID is the line's top-level id, if it has a usable one: a number
// or a string, as go-sdk reads it.
func (s *frameScan) requestID() (jsonrpc.ID, bool) {
	if !s.id.seen || s.id.bad {
		return jsonrpc.ID{}, false
	}
	return parseID(s.id.raw)
}

// parseID reads an id as go-sdk does (jsonrpc.MakeID of what encoding/json
// reads into an any): a string, or a number, whose fraction is dropped.
// Anything else, null included, is no usable id.
func parseID(raw []byte) (jsonrpc.ID, bool) {
	if len(raw) == 0 {
		return jsonrpc.ID{}, false
	}
	if raw[0] == '"' {
		if len(raw) < 2 || raw[len(raw)-1] != '"' {
			return jsonrpc.ID{}, false
		}
		text, ok := plainText(raw)
		if !ok && json.Unmarshal(raw, &text) != nil {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(text)
		return id, err == nil
	}
	// Only what a JSON number is made of: ParseFloat also reads "inf",
	// "nan", hexadecimal and underscores, which are not JSON.
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return jsonrpc.ID{}, false
	}
	for _, c := range raw {
		if (c < '0' || c > '9') && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			return jsonrpc.ID{}, false
		}
	}
	n, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(n)
	return id, err == nil
}

// refusal says what is wrong with a message too large or too deep to pass
// on: "is 100.0 MiB, over the 64 MiB limit (maxMessageSize)". size is the
// line's length, depth its nesting.
func refusal(size, limit int64, depth int) string {
	if size > limit {
		return fmt.Sprintf("is %s, over the %s limit (maxMessageSize)", config.FormatSize(size), config.FormatSize(limit))
	}
	return fmt.Sprintf("nests %d levels deep, over the limit of %d", depth, MaxMessageDepth)
}

// verdict is what stands in for a message the limits refuse: an error reply
// for its id when it is a reply (nil otherwise), and the line for the
// server's log. A line that is no JSON-RPC message at all has message false.
func verdict(scan *frameScan, size, limit int64, calls *calls) (reply *jsonrpc.Response, note string, message bool) {
	why := refusal(size, limit, scan.maxDepth)
	if !scan.message() {
		return nil, why, false
	}
	method := scan.method.text()
	id, hasID := scan.requestID()
	switch {
	case hasID && !scan.method.seen:
		what := "reply to request " + idText(id)
		if m := calls.method(id); m != "" {
			what = "reply to " + m
		}
		calls.done(id)
		return errorReply(id, what+" "+why), what + " " + why + "; the call fails with this error", true
	case hasID:
		return nil, fmt.Sprintf("request %s (id %s) %s; dropped, and the server gets no answer", clip.Text(method), idText(id), why), true
	case method != "":
		return nil, fmt.Sprintf("notification %s %s; dropped", clip.Text(method), why), true
	}
	return nil, "message " + why + ", with no id to answer; dropped", true
}

func idText(id jsonrpc.ID) string {
	if s, ok := id.Raw().(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(id.Raw())
}

// errorReply is the response that stands in for a reply the filter
// refused, so the call it answers fails at once with why instead of
// waiting out its timeout.
func errorReply(id jsonrpc.ID, msg string) *jsonrpc.Response {
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}}
}

// wireReply is reply as a line on the wire, encoded by go-sdk as any
// message is, for the HTTP filters; nil for none.
func wireReply(reply *jsonrpc.Response) []byte {
	if reply == nil {
		return nil
	}
	b, err := jsonrpc.EncodeMessage(reply)
	if err != nil {
		return nil // an id go-sdk decoded always encodes; nothing to stand in otherwise
	}
	return append(b, '\n')
}
