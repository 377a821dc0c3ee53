package config

// blankJSONComments turns JSON with comments (JSONC: VS Code's mcp.json,
// Gemini's settings.json) into JSON by overwriting "//" and "/* */"
// comments and trailing commas with spaces. Every other byte, newlines
// included, stays where it was, so the byte offsets the JSON tree reports
// are positions in the original file. data is not modified.
func blankJSONComments(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	inString := false
	// lastComma is the offset of a comma not yet followed by a value, or
	// -1: if the next significant byte closes an object or array, that
	// comma is a trailing one.
	lastComma := -1
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			lastComma = -1
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			end := i
			for end < len(out) && out[end] != '\n' {
				end++
			}
			blank(i, end)
			i = end - 1
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := i + 2
			for end+1 < len(out) && !(out[end] == '*' && out[end+1] == '/') {
				end++
			}
			end = min(end+2, len(out))
			blank(i, end)
			i = end - 1
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			lastComma = -1
		}
	}
	return out
}
