package redact

import (
	"strings"
	"testing"
)

// FuzzString: for any text and secrets, the matcher masks exactly what
// masking every occurrence of every secret, one by one, masks; no secret of
// at least MinLen bytes is left whole outside a mask; and a text without a
// secret comes back unchanged. The first secret is learnt by each of the
// ways to add one, the others as credentials.
func FuzzString(f *testing.F) {
	f.Add("TOKEN=abcdef and abcdef", "abcdef", "cdefgh", "x", uint8(0))
	f.Add("aaaaaaaaa", "aaaa", "aaaaa", "aa", uint8(1))
	f.Add("xxabcdefghixx", "abcdef", "defghi", "bcd", uint8(0))
	f.Add("k=a+b%2Fc", "a b/c", "", "", uint8(0))
	f.Add("nothing to see", "secret", "other", "", uint8(1))
	f.Add("«redacted»abc", "»abc", "d»ab", "«red", uint8(0))
	f.Add("Authorization: Basic YWxpY2U6aHVudGVyMjI=", "Basic YWxpY2U6aHVudGVyMjI=", "", "", uint8(2))
	f.Add("Post http://u:p%40ss@h/?k=v4lue&x", "http://u:p%40ss@h/?k=v4lue&x", "", "", uint8(3))
	f.Fuzz(func(t *testing.T, text, s1, s2, s3 string, how uint8) {
		r := New()
		switch how % 4 {
		case 0:
			r.Add(s1)
		case 1:
			r.AddSetting(s1)
		case 2:
			r.AddHeader(s1)
		case 3:
			r.AddURL(s1)
		}
		r.Add(s2, s3)
		got := r.String(text)
		for _, s := range []string{s2, s3} {
			if len(s) >= MinLen && !r.known[s] {
				t.Fatalf("credential %q not learnt", s)
			}
		}

		var known []string
		for k := range r.known {
			known = append(known, k)
		}
		if want := naive(text, known); got != want {
			t.Fatalf("String(%q) with %q = %q, want %q", text, known, got, want)
		}
		covered := maskCover(got)
		for _, s := range known {
			for i := 0; ; {
				j := strings.Index(got[i:], s)
				if j < 0 {
					break
				}
				at := i + j
				if !overlaps(covered, at, at+len(s)) {
					t.Fatalf("secret %q survives in %q (from %q)", s, got, text)
				}
				i = at + 1
			}
		}
		if !containsAny(text, known) && got != text {
			t.Fatalf("text without secrets changed: %q -> %q", text, got)
		}
	})
}

// naive masks by finding every occurrence of every secret separately.
func naive(s string, secrets []string) string {
	mark := make([]bool, len(s)) // byte i is in a secret; touching ranges are one run
	for _, sec := range secrets {
		for i := 0; i+len(sec) <= len(s); i++ {
			if s[i:i+len(sec)] == sec {
				for k := i; k < i+len(sec); k++ {
					mark[k] = true
				}
			}
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if !mark[i] {
			b.WriteByte(s[i])
			i++
			continue
		}
		for i < len(s) && mark[i] {
			i++
		}
		b.WriteString(Mask)
	}
	return b.String()
}

func maskCover(s string) [][2]int {
	var out [][2]int
	for i := 0; ; {
		j := strings.Index(s[i:], Mask)
		if j < 0 {
			return out
		}
		out = append(out, [2]int{i + j, i + j + len(Mask)})
		i += j + 1
	}
}

func overlaps(spans [][2]int, start, end int) bool {
	for _, sp := range spans {
		if start < sp[1] && sp[0] < end {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
