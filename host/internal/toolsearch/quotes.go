package toolsearch

import (
	"strings"
	"unicode/utf8"
)

// quotePairs are the quotes people open a text with, and their closers.
var quotePairs = map[rune]rune{'\'': '\'', '"': '"', '‘': '’', '“': '”', '`': '`'}

// quotedFields are the fields inside quotes: a text given as it is, to
// be written, set or looked for ("leave 'looks good to me' as a remark",
// "mark the 'Migrate auth' row as Done"). A quote opens at a field's
// start and closes at a field's end; an apostrophe inside a word
// ("Dana's", "don't") does neither.
func quotedFields(fields []string) []bool {
	var in []bool
	// unclosed are the closers no field after an opener closed: a later
	// opener of the same quote reads only its own field, so quotes left
	// open cost a query's length once, not once each.
	var unclosed map[rune]bool
	for i := 0; i < len(fields); i++ {
		f := strings.TrimLeft(fields[i], "([{")
		q, size := utf8.DecodeRuneInString(f)
		closer, ok := quotePairs[q]
		if !ok {
			continue
		}
		end := len(fields)
		if unclosed[closer] {
			end = i + 1
		}
		closed := false
		for j := i; j < end; j++ {
			g := strings.TrimRight(fields[j], ".,;:!?)]}")
			if j == i {
				g = f[size:]
			}
			if r, _ := utf8.DecodeLastRuneInString(g); r == closer && g != "" {
				if in == nil {
					in = make([]bool, len(fields))
				}
				for k := i; k <= j; k++ {
					in[k] = true
				}
				i, closed = j, true
				break
			}
		}
		if !closed && end == len(fields) {
			if unclosed == nil {
				unclosed = map[rune]bool{}
			}
			unclosed[closer] = true
		}
	}
	return in
}

// titleFields are the fields inside quotes of two fields or more: a
// title given as it is ("the 'Draft v1' doc").
func titleFields(fields []string) []bool {
	in := quotedFields(fields)
	if in == nil {
		return nil
	}
	title := make([]bool, len(fields))
	for i := range in {
		title[i] = in[i] && (i > 0 && in[i-1] || i+1 < len(in) && in[i+1])
	}
	return title
}

// quotedWords are the words (stemmed) a query says only inside quotes.
func quotedWords(query string) map[string]bool {
	fields := strings.Fields(query)
	in := quotedFields(fields)
	if in == nil {
		return nil
	}
	out := map[string]bool{}
	for i, f := range fields {
		if in[i] {
			for _, w := range tokens(f) {
				out[w] = true
			}
		}
	}
	for i, f := range fields {
		if !in[i] {
			for _, w := range tokens(f) {
				delete(out, w)
			}
		}
	}
	return out
}

// surface is a field as a word said: lower-cased, its punctuation
// trimmed.
func surface(f string) string {
	return strings.ToLower(strings.Trim(f, "\"'`()[]{}<>,;:!.?"))
}

// acrossQuotes are the pairs of words that stand side by side once a
// quoted text between them is taken out, stemmed, as said, and where
// the first is among the query's words: "leave 'looks good to me' as a
// remark" leaves a remark, "move the 'Done' card" moves a card. A
// quoted text is what the act is done with; the words around it say the
// act.
func acrossQuotes(query string) (pairs, said []string, at []int) {
	fields := strings.Fields(query)
	in := quotedFields(fields)
	if in == nil {
		return nil, nil, nil
	}
	pos := 0 // the query's words before fields[i]
	for i := 0; i < len(fields); i++ {
		if !in[i] {
			pos += len(tokens(fields[i]))
			continue
		}
		end := i
		for end+1 < len(fields) && in[end+1] {
			end++
		}
		var a, b []string
		var ka, kb int
		// Stop words may stand between: "move the 'Done' card", "leave
		// 'x' as a remark".
		for k := i - 1; len(a) == 0 && k >= 0 && !in[k]; k-- {
			a, ka = tokens(fields[k]), k
		}
		for k := end + 1; len(b) == 0 && k < len(fields) && !in[k]; k++ {
			b, kb = tokens(fields[k]), k
		}
		if len(a) > 0 && len(b) > 0 {
			pairs = append(pairs, pair(a[len(a)-1], b[0]))
			said = append(said, pair(surface(fields[ka]), surface(fields[kb])))
			at = append(at, max(pos-1, 0))
		}
		i = end
	}
	return pairs, said, at
}
