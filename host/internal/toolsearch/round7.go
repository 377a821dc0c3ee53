package toolsearch

import (
	"slices"
	"strings"
)

// The seventh round's forms (testdata/README.md): what people paste as
// it is written in a terminal, a forge or an editor, read from the blind
// batches 12, 13 and 15, each a form two writers or more used apart.

// pastedKind is the kind a word's form says that kind does not read:
// a forge's numbered work item ("acme/api#88", "#412") is an issue or a
// pull request, a file at a line ("src/router.ts:88") a file's line, a
// path relative to here ("./services", "../api") a directory, a key of
// several parts ("rate:user:42") a store's key, a name as code writes
// it ("parseConfig", "ErrImagePull", "STRIPE_SECRET_OLD") code, and a
// chat's timestamp and IDs ("1712345678.000200", "C04ABCD",
// "U024BE7LH") a message, a channel and a user.
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
	case chatStamp(f):
		return "message ts"
	case chatID(f, 'C'):
		return "channel"
	case chatID(f, 'U'):
		return "user"
	}
	return ""
}

// chatStamp says whether f is a chat message's timestamp, which names
// it: seconds since 1970, a dot and a fraction ("1712345678.000200").
func chatStamp(f string) bool {
	sec, frac, ok := strings.Cut(f, ".")
	return ok && len(sec) == 10 && len(frac) >= 3 && len(frac) <= 6 && strings.Trim(sec+frac, "0123456789") == ""
}

// chatID says whether f is a chat's ID of a channel (C...) or a user
// (U...), as chats write them: the letter, then six or more capitals
// and digits with a digit first ("C04ABCD", "U024BE7LH").
func chatID(f string, letter byte) bool {
	if len(f) < 7 || f[0] != letter || f[1] < '0' || f[1] > '9' {
		return false
	}
	return strings.Trim(f[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == ""
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
	if strings.Count(f, ":") < 2 {
		return false // most words: no need to split them
	}
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

// shorthandFamilies are the seventh round's phrasings: the short words
// of a terminal and the plain words of people who are not engineers for
// an act the tools name in their own words, read from the blind batches
// 12, 13 and 15. As in plainFamilies, each is one act's ways of being
// said, and is here where two writers or more of the tuning sets said
// its words, or where it is a tool's own shorthand (gh for GitHub, ns
// for a namespace, git's dirty tree).
var shorthandFamilies = []family{
	{"a terminal's short names", map[string][]string{
		"gh": {"github"}, "ns": {"namespace"}, "dirty": {"status", "modified", "changes"},
		"production": {"context"},
	}},
	{"a thing put back as it was", map[string][]string{
		"put back": {"restore", "undo", "rollback"}, "back how": {"restore", "undo"}, "from before": {"previous", "undo", "rollback"},
	}},
	{"what people said on a work item or a doc", map[string][]string{
		"discussion": {"comment", "comments"}, "anyone say": {"comments"}, "say anything": {"comments"},
	}},
	{"a work item's state set", map[string][]string{
		"mark done": {"update", "properties", "state"}, // "as done" and the like: statePhrases
	}},
	{"the pointer rested on a thing", map[string][]string{
		"cursor": {"hover"}, "pointer": {"hover"},
	}},
	{"a folder's shape", map[string][]string{
		"laid out": {"tree", "recursive"},
	}},
	{"who broke a line", map[string][]string{
		"whose fault": {"blame"}, "who broke": {"blame", "log"},
	}},
}

// shorthandPhrasings are shorthandFamilies in one map.
var shorthandPhrasings = familyWords(shorthandFamilies)

// objectSenses are pairs of a verb and its object where the object
// decides the verb's sense, as verbObjects are: saying something on a
// work item or a doc is a comment ("post on issue 482", "chime in on
// ticket 88"), where posting alone is a message; marking or flipping a task or a row sets its state ("mark
// the 'Homepage redesign' task as Done"); pulling a doc or a page reads
// it ("pull the onboarding doc out as md"), where pulling a branch is
// git's.
var objectSenses = func() map[string][]string {
	m := map[string][]string{}
	for _, sense := range []struct {
		verbs, objects, to []string
	}{
		{[]string{"post", "chime", "weigh"}, []string{"issue", "ticket", "bug", "pr", "mr", "doc", "page"}, []string{"comment"}},
		{[]string{"mark", "flip"}, []string{"task", "row", "item", "ticket", "issue", "bug"}, []string{"update", "properties", "state"}},
		{[]string{"pull"}, []string{"doc", "page", "document", "wiki"}, []string{"retrieve", "get"}},
	} {
		for _, verb := range sense.verbs {
			for _, object := range sense.objects {
				m[verb+" "+object] = sense.to
			}
		}
	}
	return m
}()

// madeNew are the terms of a thing a command makes new: "new" and,
// within the three words after it, a thing some tool creates ("a new
// meeting notes page": create page), or a thing a concept of the word
// names ("set up a new table": create database). A thing's own words
// find the tools that read or change it as well; "new" says it is made.
// They are one group, at conceptWeight; words are the query's, in order.
func (ix *Index) madeNew(words []string, said func(string) string, group int) []term {
	var out []term
	made := stem("create")
	for i, w := range words {
		if w != "new" {
			continue
		}
		for _, thing := range words[i+1 : min(len(words), i+4)] {
			for _, t := range append([]string{thing}, conceptTerms[thing]...) {
				p := pair(made, t)
				if ix.postings[p] != nil && !slices.ContainsFunc(out, func(o term) bool { return o.word == p }) {
					out = append(out, term{word: p, weight: conceptWeight, group: group, from: pair(said(w), said(thing)), rel: "means", pos: i})
				}
			}
		}
	}
	return out
}

// runsCommand finds a command line that is to be run: after a verb of
// running (commandLine), in backquotes after one ("run `env` inside
// redis-0"), or a program and its flag after with, using or via ("check
// how full the disk is with df -h").
func runsCommand(fields []string) (string, bool) {
	if f, ok := commandLine(fields); ok {
		return f, true
	}
	for i := 0; i+1 < len(fields); i++ {
		verb, next := strings.ToLower(fields[i]), fields[i+1]
		if runVerbs[verb] && len(next) > 2 && next[0] == '`' {
			return strings.Trim(next, "`,;.?!"), true
		}
		if (verb == "with" || verb == "using" || verb == "via") && i+2 < len(fields) {
			flag := strings.TrimRight(fields[i+2], ",;.")
			if lowerAlnum(next) && len(flag) > 1 && flag[0] == '-' && lowerAlnum(strings.TrimLeft(flag, "-")) {
				return next, true
			}
		}
	}
	return "", false
}

// spanUnits are the units of a span of time back from now.
var spanUnits = map[string]bool{"days": true, "weeks": true, "months": true, "hours": true, "years": true, "day": true, "week": true, "month": true}

// months are the months as people write dates ("after Nov 23"), but
// May, which is a verb too.
var months = map[string]bool{
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true, "sep": true, "sept": true,
	"oct": true, "nov": true, "dec": true, "january": true, "february": true, "march": true, "april": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
}

// timeSpan finds a span of time a need asks about: the last or past few
// days, weeks or months ("over the last two weeks"), or a date after
// since, after or before ("after Nov 23"): what happened in it is a
// history from a date.
func timeSpan(fields []string) (string, bool) {
	for i, f := range fields {
		w := strings.ToLower(strings.Trim(f, ",;.?!()"))
		switch w {
		case "last", "past", "previous":
			j := i + 1
			for j < len(fields) && j < i+4 {
				n := strings.ToLower(strings.Trim(fields[j], ",;.?!()"))
				if spanUnits[n] && j > i+1 {
					return f, true
				}
				if !countWords[n] && strings.Trim(n, "0123456789") != "" && n != "few" && n != "couple" && n != "of" {
					break
				}
				j++
			}
		case "since", "after", "before":
			if i+1 < len(fields) && months[strings.ToLower(strings.TrimRight(fields[i+1], ".,"))] {
				return f, true
			}
		}
	}
	return "", false
}

// changedValue finds a value changed, "from A to B" (fromTo), or set
// to a version ("bump version in package.json to 2.4.0"): in a file the
// need names, it is an edit of the file, not a release's tag.
func changedValue(fields []string) (string, bool) {
	if f, ok := fromTo(fields); ok {
		return f, true
	}
	for i := 0; i+1 < len(fields); i++ {
		if strings.EqualFold(fields[i], "to") && version(strings.TrimRight(fields[i+1], ",;.?!")) {
			return fields[i+1], true
		}
	}
	return "", false
}

// landVerbs are the verbs of landing work on a branch.
var landVerbs = map[string]bool{"ship": true, "land": true, "squash": true, "squash-land": true, "merge": true}

// landedItem finds a pull request landed by its number ("ship #140 on
// octo/widgets", "squash-land acme/web#412"): with a work item for its
// object a verb of landing is a merge, where "ship it" alone is a push.
func landedItem(fields []string) (string, bool) {
	for i := 0; i+1 < len(fields); i++ {
		if landVerbs[strings.ToLower(fields[i])] && workItem(strings.Trim(fields[i+1], ",;.?!")) {
			return fields[i+1], true
		}
	}
	return "", false
}

// objectVerbs are the verbs (stemmed) of verbFirst's pairs, so that a
// query's other words build no pair to look up.
var objectVerbs = func() map[string]bool {
	m := map[string]bool{}
	for p := range verbFirst {
		v, _, _ := strings.Cut(p, " ")
		m[v] = true
	}
	return m
}()

// verbReach is how many words a verb's object may stand after it, with
// the object's modifiers between: "open a draft PR", "start a new
// meeting notes page", "post a short note on issue 482".
const verbReach = 4

// reachedObjects are the terms of a verb and its object that stand
// apart (verbFirst's pairs are read side by side), one group each, and
// the verbs they take: as for a pair side by side, the verb gives way to
// the pair (tuning.phrase). A quoted title's words are no verb ("the
// 'Draft v1' doc").
func (ix *Index) reachedObjects(query string, words []string, said func(string) string, group int) (out []term, verbs []string) {
	var quoted map[string]bool
	for i, v := range words {
		if !objectVerbs[v] {
			continue
		}
		if quoted == nil {
			quoted = quotedWords(query)
		}
		if quoted[v] {
			continue
		}
		if i+1 < len(words) && verbFirst[pair(v, words[i+1])] {
			continue // side by side: the pair has it
		}
		for j := i + 2; j < min(len(words), i+1+verbReach); j++ {
			p := pair(v, words[j])
			if !verbFirst[p] {
				continue
			}
			added := false
			for _, s := range conceptTerms[p] {
				if ix.postings[s] != nil {
					out = append(out, term{word: s, weight: conceptWeight, group: group, from: pair(said(v), said(words[j])), rel: "means", pos: i})
					added = true
				}
			}
			if added {
				verbs = append(verbs, v)
				group++
			}
			break
		}
	}
	return out, verbs
}

// purposeOpeners follow "so" where it opens why a task is asked: "so we
// can patch it", "so I can paste it into the repo", "so the menu pops
// out".
var purposeOpeners = map[string]bool{
	"that": true, "we": true, "i": true, "you": true, "it": true, "they": true, "the": true, "its": true,
	"people": true, "nobody": true, "everyone": true,
}

// purposeWords are the words (stemmed) said only in a clause that says
// why a task is asked, from "so" and its opener to the end of the
// sentence: its words tell the task's reason, not its tool, so they
// weigh purposeWeight of a word (query.go). A word said outside the
// clause too weighs in full.
func purposeWords(query string) map[string]bool {
	if !strings.Contains(strings.ToLower(query), "so ") {
		return nil
	}
	fields := strings.Fields(query)
	in := make([]bool, len(fields))
	found := false
	for i := 0; i+1 < len(fields); i++ {
		if !strings.EqualFold(fields[i], "so") || !purposeOpeners[strings.ToLower(fields[i+1])] {
			continue
		}
		// The clause runs to the end of its sentence; the next "so"
		// is looked for after it, so each word is read once.
		for ; i < len(fields); i++ {
			in[i], found = true, true
			if strings.ContainsAny(fields[i], ".;") {
				break
			}
		}
	}
	if !found {
		return nil
	}
	var inside, outside []string
	for i, f := range fields {
		if in[i] {
			inside = append(inside, f)
		} else {
			outside = append(outside, f)
		}
	}
	m := map[string]bool{}
	for _, w := range tokens(strings.Join(inside, " ")) {
		m[w] = true
	}
	for _, w := range tokens(strings.Join(outside, " ")) {
		delete(m, w)
	}
	return m
}

// purposeWeight weighs a word said only in a clause of purpose.
const purposeWeight = 0.7
