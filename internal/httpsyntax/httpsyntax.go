// Package httpsyntax holds the one check of HTTP's grammar that both the
// config's validation and the redactor need: what a token is.
package httpsyntax

import "strings"

// IsToken reports whether s is an RFC 9110 token: what an HTTP field name
// or an auth scheme ("Bearer") must be.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c <= ' ' || strings.IndexByte("\"(),/:;<=>?@[\\]{}\x7f", c) >= 0 {
			return false
		}
	}
	return true
}
