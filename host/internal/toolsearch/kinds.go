package toolsearch

import (
	"slices"
	"strings"
)

// webTLDs are the endings that make a dotted word a web address rather
// than a file's name: "google.com" is a site, "main.go" a file.
var webTLDs = map[string]bool{
	"com": true, "org": true, "net": true, "io": true, "dev": true, "app": true,
	"ai": true, "edu": true, "gov": true, "co": true, "uk": true, "de": true,
}

// kinds are the words a query implies by the form of what it names but
// does not say: a URL or a web address implies "url", a file name with
// an extension implies "file". "go to https://example.com" is about a
// URL, and "show me package.json" about a file, though neither says so.
func kinds(query string) []string {
	var out []string
	for _, f := range strings.Fields(query) {
		f = strings.TrimRight(strings.Trim(f, "\"'`()[]{}<>,;:!?"), ".")
		if k := kind(f); k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func kind(f string) string {
	if strings.Contains(f, "://") || strings.HasPrefix(f, "www.") {
		return "url"
	}
	if strings.ContainsAny(f, "@\\") { // an address, a Windows path
		return ""
	}
	host, _, _ := strings.Cut(f, "/")
	if dot := strings.LastIndexByte(host, '.'); dot > 0 && webTLDs[host[dot+1:]] {
		return "url" // google.com, github.com/owner/repo
	}
	name := f[strings.LastIndexByte(f, '/')+1:]
	dot := strings.LastIndexByte(name, '.')
	if dot < 2 || len(name)-dot-1 > 4 || !lowerAlnum(name[dot+1:]) {
		return "" // e.g, .env, os.Exit, v1.2, no dot
	}
	return "file"
}

// lowerAlnum says whether s is lower-case letters and digits, with one
// letter at least.
func lowerAlnum(s string) bool {
	letter := false
	for i := range len(s) {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}
