package gateway

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// A request's params are read here for modernHandler's checks (the
// protocol version in _meta, the name it calls) without decoding them
// into maps: they are valid JSON (host.DecodeMessage checked the body),
// and anything out of the ordinary (an escaped or repeated member name)
// says false, which leaves the request to go-sdk's handler.

// maxMembers bounds the members objectMembers reads of one object (the
// check for a repeated name compares each with those before it): params
// and their _meta have a handful; more go to go-sdk's handler.
const maxMembers = 32

// objectMembers calls member with each member name of the JSON object in
// raw and its value, raw, in order; false if raw is not one object, a
// name is escaped or repeated, it has more than maxMembers members, or
// member says false.
func objectMembers(raw []byte, member func(name, value []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	var seen [8][]byte
	names := seen[:0]
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for i < len(raw) {
		if raw[i] != '"' {
			return false
		}
		end, ok := skipString(raw, i)
		if !ok || bytes.IndexByte(raw[i+1:end-1], '\\') >= 0 {
			return false
		}
		name := raw[i+1 : end-1]
		if len(names) == maxMembers {
			return false
		}
		for _, n := range names {
			if bytes.Equal(n, name) {
				return false
			}
		}
		names = append(names, name)
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = skipSpace(raw, i+1)
		vend, ok := skipValue(raw, i)
		if !ok || !member(name, raw[i:vend]) {
			return false
		}
		i = skipSpace(raw, vend)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return skipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString is the end of the string starting at b[i] (its quote).
func skipString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// skipValue is the end of the valid JSON value starting at b[i].
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := skipString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j, j > i
}

// stringValue reads value as json.Unmarshal into a string does: a string
// (a plain one read in place), null as "" and present, anything else not
// a string.
func stringValue(value []byte) (s string, ok bool) {
	switch {
	case string(value) == "null":
		return "", true
	case len(value) >= 2 && value[0] == '"':
		in := value[1 : len(value)-1]
		if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
			return string(in), true
		}
		return s, json.Unmarshal(value, &s) == nil
	}
	return "", false
}
