package toolsearch

import "strings"

// stem is the Porter2 ("Snowball English") stemmer of Martin Porter,
// as algorithms/english.sbl of the Snowball project has it today: it
// folds "directory" and "directories", "relation" and "relations",
// "recursive" and "recursively" to one word. It takes a lower-case word;
// a word with a letter outside a-z, or of two letters or fewer, is kept
// (so the algorithm's apostrophe rules have nothing to do).
func stem(w string) string {
	if len(w) <= 2 || !asciiLower(w) {
		return w
	}
	if s, ok := stemExceptions[w]; ok {
		return s
	}
	b := []byte(w)
	// A y that starts the word or follows a vowel is a consonant: Y.
	for i := range b {
		if b[i] == 'y' && (i == 0 || isVowel(b[i-1])) {
			b[i] = 'Y'
		}
	}
	s := &stemmer{b: b}
	s.regions()
	s.step1a()
	s.step1b()
	s.step1c()
	s.step2()
	s.step3()
	s.step4()
	s.step5()
	return strings.ToLower(string(s.b))
}

// stemExceptions are the algorithm's irregular words.
var stemExceptions = map[string]string{
	"skis": "ski", "skies": "sky", "idly": "idl", "gently": "gentl", "ugly": "ugli",
	"early": "earli", "only": "onli", "singly": "singl", "sky": "sky", "news": "news",
	"howe": "howe", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

func asciiLower(w string) bool {
	for i := range len(w) {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

type stemmer struct {
	b      []byte
	r1, r2 int // where the regions R1 and R2 start; len(b) when empty
}

// regions sets R1, the part after the first non-vowel that follows a
// vowel, and R2, the same taken again inside R1.
func (s *stemmer) regions() {
	after := func(from int) int {
		for i := from + 1; i < len(s.b); i++ {
			if !isVowel(s.b[i]) && isVowel(s.b[i-1]) {
				return i + 1
			}
		}
		return len(s.b)
	}
	s.r1 = -1
	for _, p := range []string{"gener", "commun", "arsen", "past", "univers", "later", "emerg", "organ", "inter"} {
		if len(s.b) >= len(p) && string(s.b[:len(p)]) == p {
			s.r1 = len(p)
		}
	}
	if s.r1 < 0 {
		s.r1 = after(0)
	}
	s.r2 = after(s.r1)
	s.r1 = min(s.r1, len(s.b))
	s.r2 = min(max(s.r2, s.r1), len(s.b))
}

// has says whether the word ends with suffix; the comparison of a
// converted slice does not allocate.
func (s *stemmer) has(suffix string) bool {
	n := len(s.b) - len(suffix)
	return n >= 0 && string(s.b[n:]) == suffix
}

// longest is the longest of suffixes the word ends with, or "".
func (s *stemmer) longest(suffixes ...string) string {
	best := ""
	for _, x := range suffixes {
		if len(x) > len(best) && s.has(x) {
			best = x
		}
	}
	return best
}

func (s *stemmer) inR1(suffix string) bool { return len(s.b)-len(suffix) >= s.r1 }
func (s *stemmer) inR2(suffix string) bool { return len(s.b)-len(suffix) >= s.r2 }

func (s *stemmer) replace(suffix, with string) {
	s.b = append(s.b[:len(s.b)-len(suffix)], with...)
}

// vowelIn says whether b[:end] has a vowel.
func (s *stemmer) vowelIn(end int) bool {
	for i := range end {
		if isVowel(s.b[i]) {
			return true
		}
	}
	return false
}

// shortSyllableAt says whether the word ends, at end, in a short
// syllable: a non-vowel, a vowel, then a non-vowel other than w, x or Y;
// or, at the word's start, a vowel then a non-vowel; or "past".
func (s *stemmer) shortSyllableAt(end int) bool {
	b := s.b[:end]
	n := len(b)
	switch {
	case n >= 4 && string(b[n-4:]) == "past": // pasted, pasting
		return true
	case n >= 3:
		c := b[n-1]
		return !isVowel(b[n-3]) && isVowel(b[n-2]) && !isVowel(c) && c != 'w' && c != 'x' && c != 'Y'
	case n == 2:
		return isVowel(b[0]) && !isVowel(b[1])
	}
	return false
}

func (s *stemmer) step1a() {
	switch x := s.longest("sses", "ied", "ies", "s", "us", "ss"); x {
	case "sses":
		s.replace(x, "ss")
	case "ied", "ies":
		if len(s.b) > 4 {
			s.replace(x, "i")
		} else {
			s.replace(x, "ie")
		}
	case "s":
		// Only when a vowel comes before the letter before the s: gaps
		// → gap, but gas and this stay.
		if s.vowelIn(len(s.b) - 2) {
			s.replace(x, "")
		}
	}
}

func (s *stemmer) step1b() {
	x := s.longest("eed", "eedly", "ed", "edly", "ing", "ingly")
	stem := string(s.b[:len(s.b)-len(x)])
	switch x {
	case "":
		return
	case "eed", "eedly":
		if s.inR1(x) && stem != "proc" && stem != "exc" && stem != "succ" {
			s.replace(x, "ee")
		}
		return
	case "ing":
		// dying → die; inning, outing and evening stay.
		if len(stem) == 2 && stem[1] == 'y' && !isVowel(stem[0]) {
			s.replace("ying", "ie")
			return
		}
		switch stem {
		case "inn", "out", "cann", "herr", "earr", "even":
			return
		}
	}
	if !s.vowelIn(len(stem)) {
		return
	}
	s.b = s.b[:len(stem)]
	n := len(s.b)
	switch {
	case s.has("at") || s.has("bl") || s.has("iz"):
		s.b = append(s.b, 'e')
	case s.endsDouble():
		// add, ebb and err keep theirs.
		if n != 3 || strings.IndexByte("aeo", s.b[0]) < 0 {
			s.b = s.b[:n-1]
		}
	case s.r1 == n && s.shortSyllableAt(n):
		s.b = append(s.b, 'e')
	}
}

func (s *stemmer) endsDouble() bool {
	n := len(s.b)
	if n < 2 || s.b[n-1] != s.b[n-2] {
		return false
	}
	return strings.IndexByte("bdfgmnprt", s.b[n-1]) >= 0
}

func (s *stemmer) step1c() {
	n := len(s.b)
	if n > 2 && (s.b[n-1] == 'y' || s.b[n-1] == 'Y') && !isVowel(s.b[n-2]) {
		s.b[n-1] = 'i'
	}
}

var step2Rules = map[string]string{
	"tional": "tion", "enci": "ence", "anci": "ance", "abli": "able", "entli": "ent",
	"izer": "ize", "ization": "ize", "ational": "ate", "ation": "ate", "ator": "ate",
	"alism": "al", "aliti": "al", "alli": "al", "fulness": "ful", "ousli": "ous",
	"ousness": "ous", "iveness": "ive", "iviti": "ive", "biliti": "ble", "bli": "ble",
	"ogist": "og", "ogi": "og", "fulli": "ful", "lessli": "less", "li": "",
}

var step2Suffixes = keys(step2Rules)

func (s *stemmer) step2() {
	x := s.longest(step2Suffixes...)
	if x == "" || !s.inR1(x) {
		return
	}
	before := byte(0)
	if n := len(s.b) - len(x); n > 0 {
		before = s.b[n-1]
	}
	switch x {
	case "ogi":
		if before != 'l' {
			return
		}
	case "li":
		if strings.IndexByte("cdeghkmnrt", before) < 0 {
			return
		}
	}
	s.replace(x, step2Rules[x])
}

var step3Rules = map[string]string{
	"tional": "tion", "ational": "ate", "alize": "al", "icate": "ic", "iciti": "ic",
	"ical": "ic", "ful": "", "ness": "", "ative": "",
}

var step3Suffixes = keys(step3Rules)

func (s *stemmer) step3() {
	x := s.longest(step3Suffixes...)
	if x == "" || !s.inR1(x) || x == "ative" && !s.inR2(x) {
		return
	}
	s.replace(x, step3Rules[x])
}

var step4Suffixes = []string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ism", "ate", "iti", "ous", "ive", "ize", "ion",
}

func (s *stemmer) step4() {
	x := s.longest(step4Suffixes...)
	if x == "" || !s.inR2(x) {
		return
	}
	if x == "ion" {
		n := len(s.b) - len(x)
		if n == 0 || s.b[n-1] != 's' && s.b[n-1] != 't' {
			return
		}
	}
	s.replace(x, "")
}

func (s *stemmer) step5() {
	n := len(s.b)
	switch {
	case s.has("e"):
		if s.inR2("e") || s.inR1("e") && !s.shortSyllableAt(n-1) {
			s.b = s.b[:n-1]
		}
	case s.has("ll"):
		if s.inR2("l") {
			s.b = s.b[:n-1]
		}
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
