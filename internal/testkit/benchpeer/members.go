package benchpeer

import "errors"

// errNotObject is what Members says of anything but one JSON object.
var errNotObject = errors.New("not a JSON object")

// Members calls f with each member of the JSON object data, in order: the
// key as written between its quotes (escapes are not undone) and the value
// as written, with no space around it. It checks structure (quotes,
// brackets, commas, colons), not the spelling of numbers and literals,
// and does not allocate. It is how the floor server and the harness's raw
// client find a message's id and method without decoding it.
func Members(data []byte, f func(key, value []byte)) error {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return errNotObject
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		if skipSpace(data, i+1) != len(data) {
			return errNotObject
		}
		return nil
	}
	for {
		if i == len(data) || data[i] != '"' {
			return errNotObject
		}
		end, err := skipString(data, i)
		if err != nil {
			return err
		}
		key := data[i+1 : end-1]
		i = skipSpace(data, end)
		if i == len(data) || data[i] != ':' {
			return errNotObject
		}
		i = skipSpace(data, i+1)
		end, err = skipValue(data, i)
		if err != nil {
			return err
		}
		f(key, data[i:end])
		i = skipSpace(data, end)
		if i == len(data) {
			return errNotObject
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			if skipSpace(data, i+1) != len(data) {
				return errNotObject
			}
			return nil
		default:
			return errNotObject
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index after the string that starts at data[i].
func skipString(data []byte, i int) (int, error) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errNotObject
}

// skipValue returns the index after the value that starts at data[i]. Nested
// objects and arrays are skipped by counting brackets, not by recursion, so
// no depth of nesting can overflow the stack.
func skipValue(data []byte, i int) (int, error) {
	if i == len(data) {
		return 0, errNotObject
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		var stack []byte // the closers awaited; small values never grow it
		var small [32]byte
		stack = small[:0]
		for j := i; j < len(data); j++ {
			switch c := data[j]; c {
			case '"':
				end, err := skipString(data, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{':
				stack = append(stack, '}')
			case '[':
				stack = append(stack, ']')
			case '}', ']':
				if len(stack) == 0 || stack[len(stack)-1] != c {
					return 0, errNotObject
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errNotObject
	case ',', ':', '}', ']':
		return 0, errNotObject
	}
	// A number or a literal: up to the next delimiter.
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n', '"', '{', '[', ':':
			return j, nil
		}
		j++
	}
	return j, nil
}
