// Package glob is the one pattern matcher switchboard uses for names and
// addresses people write in configs: tool filters, autoApprove, excludes
// and policy rules (DESIGN.md, "Globs").
//
// The rules are deliberately few: "*" matches any run of characters,
// "/" included; "?" matches any one character; every other character,
// "[" and "\" among them, stands for itself. So "github*" matches
// "github-enterprise", "https://*.example.com/*" matches any path on any
// subdomain, and "http://[::1]:*" needs no escaping. There is no bad
// pattern.
package glob

// Match reports whether s matches pattern. It runs in
// O(len(pattern)·len(s)) however the stars fall, so a hostile pattern
// cannot make it slow.
func Match(pattern, s string) bool {
	p, n := []rune(pattern), []rune(s)
	pi, ni := 0, 0
	star, mark := -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ni
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			ni = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// First returns the first of patterns that s matches, or "".
func First(patterns []string, s string) string {
	for _, p := range patterns {
		if Match(p, s) {
			return p
		}
	}
	return ""
}
