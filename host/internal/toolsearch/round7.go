package toolsearch

import "strings"

// The seventh round's forms (testdata/README.md): what people paste as
// it is written in a terminal, a forge or an editor, read from the blind
// batches 12, 13 and 15, each a form two writers or more used apart.

// pastedKind is the kind a word's form says that kind does not read:
// a forge's numbered work item ("acme/api#88", "#412") is an issue or a
// pull request, a file at a line ("src/router.ts:88") a file's line, a
// path relative to here ("./services", "../api") a directory, a key of
// several parts ("rate:user:42") a store's key, and a name as code
// writes it ("parseConfig", "ErrImagePull", "STRIPE_SECRET_OLD") code.
func pastedKind(f string) string {
	switch {
	case workItem(f):
		return "issue pull" // not "request": a pull request would count twice
	case fileAtLine(f):
		return "file line"
	case hereRelative(f):
		return "directory"
	case nestedKey(f):
		return "key"
	case codeName(f):
		return exprKind
	}
	return ""
}

// workItem says whether f is a forge's issue or pull request by its
// number: "#88", or after its repository, "acme/api#88".
func workItem(f string) bool {
	repo, num, ok := strings.Cut(f, "#")
	if !ok || num == "" || strings.Trim(num, "0123456789") != "" {
		return false
	}
	return repo == "" || relPath(repo)
}

// fileAtLine says whether f is a file's name and a line in it, as
// compilers and editors write it: "main.go:12", "src/router.ts:88:5".
func fileAtLine(f string) bool {
	name, at, ok := strings.Cut(f, ":")
	if !ok || at == "" || strings.Trim(at, "0123456789:-") != "" {
		return false
	}
	return kind(name) == "file"
}

// hereRelative says whether f is a folder named from where one is,
// "./services" or "../api-review", with no file's ending.
func hereRelative(f string) bool {
	rest, ok := strings.CutPrefix(f, "./")
	if !ok {
		rest, ok = strings.CutPrefix(f, "../")
	}
	return ok && rest != "" && lowerAlnum(strings.ToLower(strings.NewReplacer("-", "", "_", "", "/", "").Replace(rest)))
}

// nestedKey says whether f is a key of three parts or more joined by
// colons, as caches name things ("rate:user:42", "feature:flags:beta"),
// not a time ("10:30:00") nor letters ("a:b:c").
func nestedKey(f string) bool {
	parts := strings.Split(f, ":")
	if len(parts) < 3 || len(parts[0]) < 2 || !lowerAlnum(parts[0]) {
		return false
	}
	for _, p := range parts[1:] {
		if p = strings.NewReplacer("_", "", "-", "").Replace(p); p == "" || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
			return false
		}
	}
	return true
}

// codeName says whether f is a name as code writes it and prose does
// not: camelCase ("parseConfig"), three capitalised words run together
// ("ErrImagePull"; "GitHub" is a brand), or capitals joined by
// underscores ("STRIPE_SECRET_OLD").
func codeName(f string) bool {
	if !identWord(f) || len(f) < 6 {
		return false
	}
	lower, upper, humps, under := 0, 0, 0, strings.Contains(f, "_")
	for i := range len(f) {
		switch c := f[i]; {
		case c >= 'a' && c <= 'z':
			lower++
		case c >= 'A' && c <= 'Z':
			upper++
			if i+1 < len(f) && f[i+1] >= 'a' && f[i+1] <= 'z' {
				humps++
			}
		}
	}
	switch {
	case under:
		return lower == 0 && upper > 0 && !strings.HasPrefix(f, "_") && !strings.HasSuffix(f, "_")
	case f[0] >= 'a' && f[0] <= 'z':
		return f[1] >= 'a' && f[1] <= 'z' && upper > 0
	default:
		return humps >= 3
	}
}
