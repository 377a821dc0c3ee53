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
// an extension implies "file", a path that ends in a slash "directory",
// a word with a wildcard "pattern", "#name" a "channel", "@name" a
// "user", "prefix:id" a store's "key", an absolute path with no
// extension a "directory", words joined by slashes a "path", numbers
// joined by + or * a "sum", code (document.title, os.Exit) "code", and
// a version (v2, 2.0.1) a "tag".
// "go to https://example.com" is about a URL, and "show me package.json"
// about a file, though neither says so.
func kinds(query string) []string {
	var out []string
	for _, k := range kindsOf(query) {
		out = append(out, k.kind)
	}
	return out
}

// A named is a kind of thing a query names, and the first word that
// named it, to say why a tool matched.
type named struct {
	kind, word string
}

// kindsOf is kinds with the words that named them.
// A version inside a quoted title of several words is the title's ("the
// 'Draft v1' doc", "'Roadmap 2027'"), not a tag.
func kindsOf(query string) []named {
	var out []named
	fields := strings.Fields(query)
	title := titleFields(fields)
	for i, f := range fields {
		f = strings.TrimRight(strings.Trim(f, "\"'`()[]{}<>,;:!"), ".?")
		k := kind(f)
		if k == versionKind && title != nil && title[i] {
			continue
		}
		if k != "" && !slices.ContainsFunc(out, func(n named) bool { return n.kind == k }) {
			out = append(out, named{k, f})
		}
	}
	return out
}

func kind(f string) string {
	if k := pastedKind(f); k != "" {
		return k
	}
	if gitAddress(f) {
		return "remote url" // git@github.com:acme/api.git, https://host/acme/api.git
	}
	if strings.Contains(f, "://") || strings.HasPrefix(f, "www.") {
		return "url"
	}
	if _, n, ok := strings.Cut(f, "#"); ok && n != "" && strings.Trim(n, "0123456789") == "" && !strings.Contains(f, "://") {
		return "number" // web#57, which pastedKind leaves: an issue's or a pull request's number
	}
	if len(f) > 1 && (f[0] == '#' || f[0] == '@') && lowerAlnum(strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "").Replace(f[1:]))) {
		if f[0] == '#' {
			return "channel" // #general
		}
		return "user" // @alice
	}
	if arithmetic(f) {
		return "sum" // 2+2, 17*3
	}
	if version(f) {
		return versionKind // v2, v1.4, 2.0.1
	}
	if strings.ContainsAny(f, "*?") && strings.Trim(f, "*?") != "" {
		return "pattern" // *.go, cache:*
	}
	if strings.ContainsAny(f, "@\\") { // an address, a Windows path
		return ""
	}
	host, _, _ := strings.Cut(f, "/")
	if h, port, ok := strings.Cut(host, ":"); ok && port != "" && strings.Trim(port, "0123456789") == "" && (h == "localhost" || strings.Count(h, ".") > 0) {
		return "url" // localhost:3000, example.com:8080, 10.0.0.5:80
	}
	if prefix, id, ok := strings.Cut(f, ":"); ok && lowerAlnum(strings.NewReplacer("_", "", "-", "").Replace(prefix)) && id != "" && !strings.ContainsAny(id, ":/") {
		return "key" // user:7, session:42: a store's key
	}
	if dot := strings.LastIndexByte(host, '.'); dot > 0 && webTLDs[host[dot+1:]] {
		return "url" // google.com, github.com/owner/repo
	}
	if len(f) > 1 && strings.HasSuffix(f, "/") {
		return "directory" // backup/, src/app/
	}
	if (strings.HasPrefix(f, "/") || strings.HasPrefix(f, "~/")) && !strings.Contains(f[strings.LastIndexByte(f, '/'):], ".") {
		return "directory" // /var/data, ~/projects: a path with no extension
	}
	if first, rest, ok := strings.Cut(f, "."); ok && objectFields[first] && identWord(strings.ReplaceAll(rest, ".", "_")) && (len(rest) > 4 || !lowerAlnum(rest)) {
		return "field" // spec.replicas, metadata.labels: a manifest's field
	}
	if expression(f) {
		if first, _, _ := strings.Cut(f, "."); pageObjects[first] {
			return "javascript code" // document.title: a page's script
		}
		return exprKind // os.Exit, el.click()
	}
	name := f[strings.LastIndexByte(f, '/')+1:]
	if wellKnownFiles[strings.ToLower(name)] {
		return "file"
	}
	// A name of one letter takes an ending of two or more (a.go, b.py),
	// so that e.g and i.e are no files.
	dot := strings.LastIndexByte(name, '.')
	if dot < 1 || dot == 1 && len(name)-dot-1 < 2 || len(name)-dot-1 > 4 || !lowerAlnum(name[dot+1:]) {
		if relPath(f) {
			return "path" // build/out, acme/web: a folder's or a repository's
		}
		return "" // e.g, .env, os.Exit, v1.2, no dot
	}
	return "file"
}

// gitAddress says whether f is where a repository is fetched from, as
// git writes it: user@host:path, or any address ending in .git.
func gitAddress(f string) bool {
	if strings.HasSuffix(f, ".git") && strings.ContainsAny(f, "/:") {
		return true
	}
	user, rest, ok := strings.Cut(f, "@")
	host, path, ok2 := strings.Cut(rest, ":")
	return ok && ok2 && user != "" && strings.Contains(host, ".") && path != "" && !strings.Contains(path, "//")
}

// objectFields are where a manifest's fields start (Kubernetes', and
// any API that writes objects so): "spec.jobTemplate" is a field of one,
// not code; status.md, whose ending could be a file's, is a file.
var objectFields = map[string]bool{"spec": true, "metadata": true, "status": true}

// wellKnownFiles are the files every project has that are named with no
// extension: "open the changelog and the readme", "where is the
// Makefile".
var wellKnownFiles = map[string]bool{
	"readme": true, "changelog": true, "license": true, "makefile": true, "dockerfile": true,
	"gemfile": true, "procfile": true, "jenkinsfile": true, "vagrantfile": true, "containerfile": true,
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

// kindWeight scales the word a kind implies: the query names the thing,
// so it says as much as the word would (0.5 and 0.75 measured no
// better on the tuning needs).
const kindWeight = 1.0

// arithmetic says whether f is numbers joined by +, *, / or ×: a sum to
// work out.
func arithmetic(f string) bool {
	op, digit := false, false
	for i, r := range f {
		switch {
		case r >= '0' && r <= '9' || r == '.':
			digit = true
		case strings.ContainsRune("+*/×", r) && i > 0 && digit:
			op, digit = true, false
		default:
			return false
		}
	}
	return op && digit
}

var exprKind = "code"

// expression says whether f is code: a call ("el.click()"), a name in
// camelCase after a dot ("os.Exit", "window.innerWidth") or a property
// of a page's own objects ("document.title").
func expression(f string) bool {
	if strings.HasSuffix(f, ")") && strings.Contains(f, "(") {
		return true
	}
	f = uncall(f)
	dot := strings.LastIndexByte(f, '.')
	if dot <= 0 || dot == len(f)-1 || strings.ContainsAny(f, "/:") {
		return false
	}
	for _, part := range strings.Split(f, ".") {
		if part == "" || !identWord(part) {
			return false
		}
	}
	last := f[dot+1:]
	first, _, _ := strings.Cut(f, ".")
	return strings.ToLower(last) != last || pageObjects[first]
}

// uncall is f with its calls' arguments left out, so that a property
// of a call's result is code as the property of a name is:
// "document.querySelectorAll('a').length" is document.querySelectorAll.length.
func uncall(f string) string {
	var b strings.Builder
	depth := 0
	for _, r := range f {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pageObjects are the objects a page's script starts from: "document.title"
// is code, "data.jsonl" a file.
var pageObjects = map[string]bool{
	"document": true, "window": true, "navigator": true, "location": true, "console": true,
	"localStorage": true, "sessionStorage": true, "history": true, "screen": true, "performance": true,
}

// identWord says whether s is a programming language's name: letters,
// digits and _, not starting with a digit.
func identWord(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// relPath says whether f is words joined by slashes, as a relative path
// or a repository's owner/name is written: "build/out", "acme/web", not
// "and/or".
func relPath(f string) bool {
	parts := strings.Split(f, "/")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || stopWords[strings.ToLower(p)] || strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != "" || !strings.ContainsAny(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			return false
		}
	}
	return true
}

var versionKind = "tag"

// version says whether f is a release's version: v and a number
// ("v2", "v1.4.0") or three numbers with dots ("2.0.1").
func version(f string) bool {
	if len(f) > 1 && (f[0] == 'v' || f[0] == 'V') {
		f = f[1:]
	} else if strings.Count(f, ".") < 2 {
		return false
	}
	if f == "" || f[0] == '.' || f[len(f)-1] == '.' || strings.Contains(f, "..") {
		return false
	}
	return strings.Trim(f, "0123456789.") == ""
}
