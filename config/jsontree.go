package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// This file reads a JSON document into a small tree that remembers where
// every value starts, so that errors can point at a line and column.
// encoding/json alone loses positions once a value is decoded.

// jsonKind is the type of a JSON value, named as error messages say it.
type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	switch k {
	case jsonNull:
		return "null"
	case jsonBool:
		return "boolean"
	case jsonNumber:
		return "number"
	case jsonString:
		return "string"
	case jsonArray:
		return "array"
	default:
		return "object"
	}
}

// jsonValue is one value and the byte offset of its first byte.
type jsonValue struct {
	kind    jsonKind
	off     int
	str     string // string contents, or a number's text
	b       bool
	elems   []*jsonValue
	members []jsonMember // object members in file order, duplicates kept
}

type jsonMember struct {
	key string
	off int // offset of the key's opening quote
	val *jsonValue
}

// member returns the value of the last member named key, as encoding/json
// would decode it, or nil.
func (v *jsonValue) member(key string) *jsonValue {
	var found *jsonValue
	for _, m := range v.members {
		if m.key == key {
			found = m.val
		}
	}
	return found
}

// positionError is an error at a byte offset of the input.
type positionError struct {
	off int
	msg string
}

func (e *positionError) Error() string { return e.msg }

// parseJSON checks data and reads it into a tree. data must hold exactly one
// value. Errors are *positionError.
func parseJSON(data []byte) (*jsonValue, error) {
	// json.Unmarshal checks the whole input before decoding anything and
	// reports the offset of the first bad byte; the decoder below would
	// report truncation as io.ErrUnexpectedEOF with no offset.
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		return nil, syntaxPosition(data, err)
	}
	r := &treeReader{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	r.dec.UseNumber()
	tok, off, err := r.next()
	if err != nil {
		return nil, r.fail(off, err)
	}
	return r.value(tok, off)
}

// syntaxPosition converts an encoding/json error into a positioned one.
func syntaxPosition(data []byte, err error) *positionError {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &positionError{off: 0, msg: err.Error()}
	}
	if isTruncation(err) {
		return truncated(data)
	}
	// Offset counts the bytes read including the offending one.
	return &positionError{off: int(se.Offset) - 1, msg: se.Error()}
}

// truncated points just after the last thing written: that is where the
// rest of the file is missing.
func truncated(data []byte) *positionError {
	return &positionError{off: len(trimJSONSpace(data)), msg: "unexpected end of input (is the file truncated?)"}
}

func isTruncation(err error) bool {
	var se *json.SyntaxError
	return errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.As(err, &se) && se.Error() == "unexpected end of JSON input"
}

// trimJSONSpace removes trailing JSON whitespace (not Unicode spaces, which
// are syntax errors in JSON).
func trimJSONSpace(data []byte) []byte {
	return bytes.TrimRight(data, " \t\r\n")
}

// isJSONBlank reports whether data holds only JSON whitespace.
func isJSONBlank(data []byte) bool {
	return len(bytes.TrimLeft(data, " \t\r\n")) == 0
}

type treeReader struct {
	data []byte
	dec  *json.Decoder
}

// next returns the next token and the offset where it starts.
func (r *treeReader) next() (json.Token, int, error) {
	off := int(r.dec.InputOffset())
	// The decoder's offset is the end of the previous token; separators
	// and whitespace come before the next one.
	for off < len(r.data) && strings.IndexByte(" \t\r\n,:", r.data[off]) >= 0 {
		off++
	}
	tok, err := r.dec.Token()
	return tok, off, err
}

func (r *treeReader) fail(off int, err error) error {
	if isTruncation(err) || errors.Is(err, io.EOF) {
		return truncated(r.data)
	}
	return &positionError{off: off, msg: err.Error()}
}

func (r *treeReader) value(tok json.Token, off int) (*jsonValue, error) {
	v := &jsonValue{off: off}
	switch t := tok.(type) {
	case nil:
		v.kind = jsonNull
	case bool:
		v.kind, v.b = jsonBool, t
	case json.Number:
		v.kind, v.str = jsonNumber, string(t)
	case string:
		v.kind, v.str = jsonString, t
	case json.Delim:
		switch t {
		case '[':
			v.kind = jsonArray
			for {
				tok, off, err := r.next()
				if err != nil {
					return nil, r.fail(off, err)
				}
				if tok == json.Delim(']') {
					return v, nil
				}
				e, err := r.value(tok, off)
				if err != nil {
					return nil, err
				}
				v.elems = append(v.elems, e)
			}
		case '{':
			v.kind = jsonObject
			for {
				tok, off, err := r.next()
				if err != nil {
					return nil, r.fail(off, err)
				}
				if tok == json.Delim('}') {
					return v, nil
				}
				key, ok := tok.(string)
				if !ok {
					return nil, &positionError{off: off, msg: "object key is not a string"}
				}
				vtok, voff, err := r.next()
				if err != nil {
					return nil, r.fail(voff, err)
				}
				val, err := r.value(vtok, voff)
				if err != nil {
					return nil, err
				}
				v.members = append(v.members, jsonMember{key: key, off: off, val: val})
			}
		default:
			return nil, &positionError{off: off, msg: fmt.Sprintf("unexpected %q", rune(t))}
		}
	default:
		return nil, &positionError{off: off, msg: fmt.Sprintf("unexpected token %v", tok)}
	}
	return v, nil
}
