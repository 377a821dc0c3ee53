package toolsearch

import (
	"slices"
	"strings"
	"unicode"
)

// Shapes are kinds (kinds.go) that a query's form says across its words
// or in characters that are no words (the fourth round of issue 28,
// testdata/README.md): a statement in SQL is a query of a database
// ("run SELECT count(*) FROM users"), an emoji put on something is a
// reaction ("give Dana's announcement a 👍"), and a commit's hash is a
// commit ("grab abc123 onto release-2.4"). People paste these as they
// are; no tool's words say them.

// sqlVerbs start a statement and sqlClauses go on one: a statement is
// a verb followed by a clause, both in capitals as SQL is written ("drop
// the staging table" is no statement), or "select * from" and "select
// count(" in any case.
var (
	sqlVerbs   = map[string]bool{"SELECT": true, "INSERT": true, "UPDATE": true, "DELETE": true, "CREATE": true, "ALTER": true, "DROP": true, "WITH": true, "EXPLAIN": true, "TRUNCATE": true}
	sqlClauses = map[string]bool{"FROM": true, "INTO": true, "SET": true, "TABLE": true, "WHERE": true, "VALUES": true, "JOIN": true, "BY": true, "INDEX": true, "AS": true}
)

// statement is where a statement in SQL starts among a query's fields,
// and -1 where it has none. Its words (from there to the end) are said
// inside a kind: "users" and "plan" of "SELECT ... FROM users WHERE plan
// = 'pro'" are the database's, not the request's.
func statement(fields []string) int {
	for i, f := range fields {
		w := strings.Trim(f, "\"'`(),;")
		if sqlVerbs[w] {
			for _, g := range fields[i+1:] {
				if sqlClauses[strings.Trim(g, "\"'`(),;")] {
					return i
				}
			}
		}
		if strings.EqualFold(w, "select") && i+1 < len(fields) && (fields[i+1] == "*" || strings.HasPrefix(strings.ToLower(fields[i+1]), "count(")) {
			return i
		}
	}
	return -1
}

// emoji says whether f has a pictograph or a symbol a chat can react
// with: 👍, ❤️, 🎉, ✅.
func emoji(f string) bool {
	for _, r := range f {
		if r >= 0x1F000 || unicode.Is(unicode.So, r) {
			return true
		}
	}
	return false
}

// shortcode says whether f is an emoji as a chat writes it by name,
// between colons (":tada:", ":white_check_mark:"): put on a message, it
// is a reaction, as the emoji itself is.
func shortcode(f string) bool {
	if len(f) < 3 || f[0] != ':' || f[len(f)-1] != ':' {
		return false
	}
	name := f[1 : len(f)-1]
	for i := range len(name) {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

// dimensions says whether f is a width by a height in pixels, as people
// give a screen's size ("390x844", "1280×720"): a window or a viewport
// made that size, whatever device the need names.
func dimensions(f string) bool {
	w, h, ok := strings.Cut(f, "x")
	if !ok {
		w, h, ok = strings.Cut(f, "×")
	}
	digits := func(s string) bool {
		return len(s) >= 3 && len(s) <= 5 && strings.Trim(s, "0123456789") == ""
	}
	return ok && digits(w) && digits(h)
}

// commitHash says whether f is a commit's hash as people write it: 6 to
// 12 hex digits, or all 40, with a letter and a digit ("abc123",
// "9f2c1e7"), not a word ("decade") nor a number; 32 are a UUID, which
// Notion and others name things by.
func commitHash(f string) bool {
	if n := len(f); n < 6 || n > 12 && n != 40 {
		return false
	}
	letter, digit := false, false
	for i := range len(f) {
		switch c := f[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f':
			letter = true
		default:
			return false
		}
	}
	return letter && digit
}

// shapesOf are the kinds of shapes a query has, each once.
func shapesOf(query string) []named {
	var out []named
	fields := strings.Fields(query)
	if i := statement(fields); i >= 0 {
		out = append(out, named{"sql", fields[i]})
	}
	hash, pict, media, size := false, false, false, false
	for _, f := range fields {
		code := shortcode(strings.Trim(f, "\"'`()[]{}<>,;!.?"))
		f = strings.Trim(f, "\"'`()[]{}<>,;:!.?")
		switch {
		case !pict && code:
			pict = true
			out = append(out, named{"reaction", f})
		case !size && dimensions(f):
			size = true
			out = append(out, named{"resize", f})
		case !hash && commitHash(f):
			hash = true
			out = append(out, named{"commit", f})
			// One commit put onto a branch is a cherry-pick: a rebase
			// puts a branch, named, onto another ("grab a1b2c3d
			// onto release-1.4").
			if slices.ContainsFunc(fields, func(g string) bool { return strings.EqualFold(g, "onto") }) {
				out = append(out, named{"cherry pick", f})
			}
		case !media && mediaFile(f):
			media = true
			out = append(out, named{"media", f})
		case !pict && emoji(f):
			pict = true
			out = append(out, named{"reaction", f})
		}
	}
	if f, ok := changedValue(fields); ok && slices.ContainsFunc(kindsOf(query), func(n named) bool { return n.kind == "file" }) {
		out = append(out, named{"edit", f})
	}
	if f, ok := pastQuestion(fields); ok && slices.ContainsFunc(kindsOf(query), func(n named) bool { return n.kind == "file" }) {
		out = append(out, named{"log history", f})
	}
	if f, ok := landedItem(fields); ok {
		out = append(out, named{"merge", f})
	}
	if f, ok := timeSpan(fields); ok {
		out = append(out, named{"history since", f})
	}
	if f, ok := runsCommand(fields); ok {
		out = append(out, named{"command", f})
	}
	if f, ok := newFile(fields); ok {
		out = append(out, named{"write", f})
	}
	if f, ok := packedFile(fields); ok {
		out = append(out, named{"compress", f})
	}
	if f, ok := headcount(fields); ok {
		out = append(out, named{"replicas", f})
	}
	if f, ok := everyOfType(fields); ok {
		out = append(out, named{"pattern", f})
	}
	if f, ok := meaningQuestion(fields); ok {
		out = append(out, named{"explain documentation", f})
	}
	return out
}

// meaningQuestion finds a question of what a thing means ("what does
// the tolerations setting of a pod mean", "what do these fields mean"):
// its documentation answers it, whatever the thing is.
func meaningQuestion(fields []string) (string, bool) {
	for i := 0; i+2 < len(fields); i++ {
		if !strings.EqualFold(fields[i], "what") || !strings.EqualFold(fields[i+1], "does") && !strings.EqualFold(fields[i+1], "do") {
			continue
		}
		for _, f := range fields[i+2:] {
			if w := strings.ToLower(strings.TrimRight(f, "?.!")); w == "mean" {
				return f, true
			}
		}
	}
	return "", false
}

// mediaExts are the endings of pictures and sound, which a file server
// reads as media, not as text ("show me what logo.png looks like").
var mediaExts = map[string]bool{"png": true, "jpg": true, "jpeg": true, "gif": true, "webp": true, "bmp": true, "svg": true, "ico": true, "tiff": true, "heic": true, "mp3": true, "wav": true, "ogg": true, "flac": true, "m4a": true}

// mediaFile says whether f is a file's name with a picture's or a
// sound's ending.
func mediaFile(f string) bool {
	dot := strings.LastIndexByte(f, '.')
	return dot > 0 && !strings.Contains(f, "://") && mediaExts[strings.ToLower(f[dot+1:])]
}

// fromTo finds one value changed to another, "from 8080 to 9090": in a
// file it named, a need that says so edits the file, whatever its verb
// ("bump the port in nginx.conf from 8080 to 9090").
func fromTo(fields []string) (string, bool) {
	for i := 0; i+3 < len(fields); i++ {
		if strings.EqualFold(fields[i], "from") && strings.EqualFold(fields[i+2], "to") && !stopWords[strings.ToLower(fields[i+1])] && !stopWords[strings.ToLower(fields[i+3])] {
			return fields[i+1], true
		}
	}
	return "", false
}

// runVerbs say a command line is to be run.
var runVerbs = map[string]bool{"run": true, "running": true, "execute": true, "executing": true, "exec": true}

// commandLine finds a command line to run, a program and its flag
// after a verb of running ("by running df -h there"): the need runs a
// command somewhere, whatever the program is. A command line alone
// ("mkdir -p build/out") says what to do, not that a command runs.
func commandLine(fields []string) (string, bool) {
	for i := 0; i+2 < len(fields); i++ {
		prog, flag := fields[i+1], strings.TrimRight(fields[i+2], ",;.")
		if runVerbs[strings.ToLower(fields[i])] && lowerAlnum(prog) && len(flag) > 1 && flag[0] == '-' && lowerAlnum(strings.TrimLeft(flag, "-")) {
			return prog, true
		}
	}
	return "", false
}

// makeVerbs make a thing new.
var makeVerbs = map[string]bool{"create": true, "make": true, "start": true, "write": true, "save": true}

// intoFile are the words that lead from what is written to the file it
// goes into: "write hello to greet.txt", "save it as todo.txt", "a new
// file called notes.md"; "from" or "in" lead to a file that is read.
var intoFile = map[string]bool{"a": true, "an": true, "the": true, "new": true, "file": true, "to": true, "as": true, "called": true, "named": true}

// newFile finds a file made new: a verb of making and a file's name
// right after it, or after words that lead into it ("create notes.md
// with a todo list", "save this text as todo.txt"). The file is
// written, whatever else the need says it holds.
func newFile(fields []string) (string, bool) { return verbFile(fields, makeVerbs) }

// packVerbs make a thing smaller.
var packVerbs = map[string]bool{"shrink": true, "squeeze": true, "pack": true, "zip": true, "compress": true}

// packedFile finds a file made smaller: a verb of packing and a file's
// name right after it ("shrink report.csv down before I mail it"): a
// file is compressed, where a window or a viewport is resized.
func packedFile(fields []string) (string, bool) { return verbFile(fields, packVerbs) }

// verbFile finds one of verbs and a file's name right after it, or
// after words that lead into it.
func verbFile(fields []string, verbs map[string]bool) (string, bool) {
	for i, f := range fields {
		if !verbs[strings.ToLower(f)] {
			continue
		}
		for j := i + 1; j < min(len(fields), i+5); j++ {
			g := strings.TrimRight(strings.Trim(fields[j], "\"'`()[]{}<>,;:!"), ".?")
			if kind(g) == "file" {
				if j == i+1 || intoFile[strings.ToLower(fields[j-1])] {
					return g, true
				}
				break
			}
		}
	}
	return "", false
}

// countWords are the numbers people spell out for a count of copies.
var countWords = map[string]bool{"one": true, "two": true, "three": true, "four": true, "five": true, "six": true, "seven": true, "eight": true, "nine": true, "ten": true, "zero": true}

// copyUnits are what a workload runs copies of.
var copyUnits = map[string]bool{"pod": true, "pods": true, "replica": true, "replicas": true, "instance": true, "instances": true, "copy": true, "copies": true}

// headcount finds a count of a workload's copies ("6 pods", "three more
// copies", "2 extra replicas"): how many of it should run is its
// replicas, however the need says the rest ("web needs 6 pods not 3").
func headcount(fields []string) (string, bool) {
	for i, f := range fields {
		n := strings.ToLower(strings.Trim(f, "\"'`(),;:!.?"))
		if n == "" || !countWords[n] && strings.Trim(n, "0123456789") != "" {
			continue
		}
		j := i + 1
		for j < len(fields) && (fields[j] == "more" || fields[j] == "fewer" || fields[j] == "extra" || fields[j] == "additional") {
			j++
		}
		unit := func(j int) bool {
			return j < len(fields) && copyUnits[strings.ToLower(strings.Trim(fields[j], ",;:!.?"))]
		}
		// One name may stand between: "5 api pods", "3 more web
		// replicas"; a state is no name ("the 2 failing pods").
		if unit(j) || j+1 < len(fields) && workloadName(fields[j]) && unit(j+1) {
			return f, true
		}
	}
	return "", false
}

// workloadName says whether f may be a workload's name before a count's
// unit: a word, not a small word nor a state ("failing", "crashed",
// "new").
func workloadName(f string) bool {
	w := strings.ToLower(f)
	return lowerAlnum(w) && !stopWords[w] && !podStates[w] && !strings.HasSuffix(w, "ing") && !strings.HasSuffix(w, "ed")
}

// podStates are words of a workload's state that end in neither -ing
// nor -ed.
var podStates = map[string]bool{"new": true, "old": true, "bad": true, "dead": true, "idle": true, "healthy": true, "unhealthy": true, "ready": true, "broken": true, "stuck": true}

// pastAsks open a question.
var pastAsks = map[string]bool{"what": true, "how": true, "who": true, "when": true, "why": true, "where": true}

// pastQuestion finds a question asked in the past ("what did Priya
// change in auth/session.go", "how did config.yaml look back then"):
// of a file, it asks the file's history.
func pastQuestion(fields []string) (string, bool) {
	for i := 0; i+1 < len(fields); i++ {
		if pastAsks[strings.ToLower(fields[i])] && strings.EqualFold(fields[i+1], "did") {
			return fields[i+1], true
		}
	}
	return "", false
}

// everyOf are the words that ask for all things of a kind.
var everyOf = map[string]bool{"every": true, "all": true, "each": true, "any": true}

// everyOfType finds files asked for by their ending alone ("dig up every
// .yaml under charts", "each .proto file"): a pattern of names, which a
// search matches, as *.yaml is (kinds.go).
func everyOfType(fields []string) (string, bool) {
	for i := 0; i+1 < len(fields); i++ {
		f := strings.TrimRight(fields[i+1], ",;:!?")
		if everyOf[strings.ToLower(fields[i])] && len(f) > 1 && len(f) <= 6 && f[0] == '.' && lowerAlnum(f[1:]) {
			return f, true
		}
	}
	return "", false
}
