package toolsearch

import (
	"maps"
	"slices"
	"strings"
)

// concepts are what the words people use for a task mean in the words
// tools use for it, where no dictionary says so: "ship it to origin" is a
// push to a remote, "bump nginx to 4 instances" a scale to replicas,
// "trash the doc" a delete of a page. Unlike synonymGroups they go one
// way (a "remote" is no "origin"), and they name what software does and
// is made of, across the kinds of server people use (files, git and its
// forges, chat, documents, browsers, clusters, databases, caches,
// memory), not the tools of one server. A word may imply several; each
// counts at conceptWeight, and, as for synonyms, a tool that says the
// query's own word ranks first. They are the first two rounds' words and
// the third round's families, below.
var concepts = func() map[string][]string {
	m := maps.Clone(wordConcepts)
	for _, more := range []map[string][]string{families, verbObjects, phrasings, plainPhrasings, everydayPhrasings, pageVerbs, pickVerbs, attrVerbs, statePhrases, viewWords, switchVerbs, dropVerbs, remarkVerbs, clusterApps, whoAmI, factVerbs, emojiNames, whoMay, earlierVersions, makingVerbs, evictWords, shorthandPhrasings, objectSenses} {
		for from, to := range more {
			if _, ok := m[from]; ok {
				panic("toolsearch: concept " + from + " twice")
			}
			m[from] = to
		}
	}
	return m
}()

// A family is one act's ways of being said (what), each a concept
// (words): plain.go's, everyday.go's and round7.go's.
type family struct {
	what  string
	words map[string][]string
}

// familyWords are families' words in one map; a phrasing said in two
// families is a mistake of the lists.
func familyWords(families []family) map[string][]string {
	m := map[string][]string{}
	for _, f := range families {
		for from, to := range f.words {
			if _, ok := m[from]; ok {
				panic("toolsearch: phrasing " + from + " twice")
			}
			m[from] = to
		}
	}
	return m
}

// verbObjects are pairs of a verb and its object where the object
// decides what the verb means: opening a work item of a forge creates
// it, closing one updates it, as opening a file reads it. A pair implies
// the verb's sense alone, and only the verb gives way to the pair
// (tuning.phrase): the object's own words say the rest.
var verbObjects = func() map[string][]string {
	m := map[string][]string{}
	items := []string{"pr", "mr", "issue", "bug", "ticket"}
	for verb, to := range map[string][]string{
		"open": {"create"}, "file": {"create"}, "raise": {"create"}, "log": {"create"}, "submit": {"create"},
		"close": {"update", "state"},
	} {
		for _, item := range items {
			m[verb+" "+item] = to
		}
	}
	return m
}()

// verbFirst are the keys of conceptTerms that verbObjects, pageVerbs,
// pickVerbs, the verbs of changes.go (attrVerbs, switchVerbs,
// dropVerbs, remarkVerbs, makingVerbs) and objectSenses (round7.go)
// made.
var verbFirst = func() map[string]bool {
	m := map[string]bool{}
	for _, vo := range []map[string][]string{verbObjects, pageVerbs, pickVerbs, attrVerbs, switchVerbs, dropVerbs, remarkVerbs, makingVerbs, objectSenses} {
		for from := range vo {
			m[conceptKey(from)] = true
		}
	}
	return m
}()

// conceptKey is the key of conceptTerms a concept of one word or two
// has.
func conceptKey(from string) string {
	if w := strings.Fields(from); len(w) == 2 {
		return pair(stem(w[0]), stem(w[1]))
	}
	return stem(from)
}

// wordConcepts are the first two rounds' concepts, each written for the
// words of the tuning needs it missed.
var wordConcepts = map[string][]string{
	// Doing away with things.
	"toss": {"delete", "remove"}, "trash": {"delete", "archive", "trash"}, "nuke": {"delete"},
	"kill": {"delete", "stop"}, "wipe": {"delete", "clear", "clean"}, "drop": {"delete", "remove"},
	"destroy": {"delete"}, "discard": {"delete", "reset"}, "purge": {"delete", "clean"},
	"forget": {"delete"}, "scrap": {"delete"}, "ditch": {"delete"}, "unlink": {"delete"},
	// Making and changing.
	"new": {"create"}, "add": {"create"}, "spin": {"create", "start"}, "setup": {"create", "init"},
	"bootstrap": {"init", "create"}, "rename": {"move", "update"}, "tweak": {"update", "edit"},
	"bump": {"scale", "update", "upgrade"}, "resize": {"resize", "scale"}, "grow": {"scale", "resize"},
	"shrink": {"scale", "resize"}, "tidy": {"clean"}, "revert": {"reset", "rollback", "undo"},
	"undo": {"reset", "revert", "rollback"}, "rollback": {"rollout", "undo"},
	// Reading and finding.
	"open": {"read", "get", "navigate"}, "see": {"get", "show", "list", "view"},
	"check": {"status", "get"}, "inspect": {"describe", "get"}, "peek": {"read", "get"},
	"whats": {"get", "show"}, "know": {"search", "open", "nodes", "knowledge", "graph"}, "recall": {"search", "read"},
	"lookup": {"search", "get"}, "dump": {"read", "get", "show"}, "grep": {"search"}, "locate": {"search", "find"},
	"tell": {"get", "search", "post", "send"},
	// Saying things to people.
	"say": {"post", "message", "send"}, "announce": {"post", "message"}, "shout": {"post", "message"},
	"ping": {"message", "post"}, "notify": {"message", "post"}, "dm": {"message", "post"},
	"chat": {"slack", "message", "channel"}, "team": {"users", "channel", "workspace"},
	"respond": {"reply"}, "answer": {"reply"}, "emoji": {"reaction"}, "react": {"reaction"},
	"thread": {"thread", "replies"}, "colleague": {"user", "member"}, "coworker": {"user"},
	// Git and its forges.
	"ship": {"push"}, "publish": {"push"}, "upload": {"push", "upload"}, "sync": {"pull", "fetch", "push"},
	"origin": {"remote", "push"}, "upstream": {"remote", "pull", "fetch"}, "download": {"clone", "fetch", "pull"},
	"land": {"merge"}, "squash": {"merge"}, "integrate": {"merge"}, "shelve": {"stash"},
	"hold": {"stash"}, "aside": {"stash"}, "stage": {"add"}, "unstage": {"reset"},
	"release": {"tag", "release"}, "version": {"tag", "version"}, "history": {"log", "commits"},
	"changed": {"diff", "status"}, "changes": {"diff", "status"}, "authored": {"blame", "log"},
	"wrote": {"blame", "log", "commit"}, "review": {"review"}, "approve": {"review", "approve"},
	"ci": {"status", "checks"}, "checks": {"status"}, "pr": {"request"}, "mr": {"request"},
	"project": {"repository", "project"}, "codebase": {"repository", "code"},
	// Documents and notes.
	"doc": {"page"}, "docs": {"page"}, "document": {"page"}, "note": {"page", "observation"}, "notes": {"page", "observations"},
	"paragraph": {"block", "children", "content"}, "section": {"block", "content"},
	"table": {"database", "data", "source", "query"}, "row": {"page", "query"},
	// Memory of facts.
	"remember": {"observations", "entities", "create"}, "fact": {"observation", "entity"},
	"facts": {"observations", "entities"}, "link": {"relation", "relations"},
	"connection": {"relation"}, "person": {"entity", "user"},
	// Thinking.
	"think": {"thought", "thinking"}, "reason": {"thought", "thinking"}, "plan": {"thought", "thinking"},
	"reflect": {"thought", "thinking"},
	// Browsers.
	"chrome": {"browser"}, "firefox": {"browser"}, "safari": {"browser"}, "website": {"page", "browser", "url"},
	"site": {"page", "url", "browser"}, "webpage": {"page", "browser"}, "screen": {"page", "screenshot"},
	"window": {"browser", "resize"}, "viewport": {"resize", "width", "height"},
	"visit": {"navigate", "url"}, "go": {"navigate"}, "load": {"navigate"},
	"type": {"type", "fill", "text"}, "enter": {"fill", "type"}, "box": {"input", "field"},
	"field": {"input", "field", "fill"}, "button": {"click"}, "tap": {"click"}, "press": {"click", "key"},
	"dropdown": {"select", "option"}, "choose": {"select"}, "popup": {"dialog"}, "alert": {"dialog"},
	"prompt": {"dialog"}, "capture": {"screenshot", "snapshot"}, "picture": {"screenshot", "image"},
	"devtools": {"console", "network"}, "xhr": {"network", "requests"}, "fetch": {"network", "request"},
	"js": {"evaluate", "javascript"}, "script": {"evaluate", "javascript"}, "wait": {"wait"},
	// Clusters.
	"cluster": {"kubernetes", "context", "kubectl"}, "k8s": {"kubernetes", "kubectl"},
	"kube": {"kubernetes", "kubectl"}, "deployment": {"deployment", "kubernetes"},
	"instances": {"replicas", "scale"}, "copies": {"replicas"}, "replica": {"replicas", "scale"},
	"container": {"pod", "container"}, "shell": {"exec", "command"}, "ssh": {"exec"},
	"crash": {"logs", "describe"}, "crashing": {"logs", "describe"}, "output": {"logs"},
	"print": {"logs"}, "printed": {"logs"}, "chart": {"helm", "chart"}, "maintenance": {"drain", "cordon"},
	"environment": {"context", "namespace"}, "prod": {"context"}, "staging": {"namespace", "context"},
	"localhost": {"port", "forward"}, "tunnel": {"port", "forward"}, "restart": {"rollout"},
	// Data.
	"sql": {"query", "sql"}, "database": {"query", "sql", "data source"}, "db": {"query", "sql"},
	"rows": {"query", "sql"}, "report": {"query"}, "count": {"query"}, "average": {"query", "sql"},
	"total": {"query", "sql", "sum"}, "cache": {"set", "get", "key"}, "expire": {"set", "expiration"},
	"stored": {"get", "key", "value"}, "entry": {"key", "value"},
	// Amounts and sizes.
	"several": {"multiple"}, "two": {"multiple"}, "three": {"multiple"}, "both": {"multiple"}, "many": {"multiple"}, "couple": {"multiple"},
	"big": {"size", "sizes"}, "biggest": {"size", "sizes"}, "large": {"size", "sizes"}, "largest": {"size", "sizes"},
	"small": {"size"}, "smallest": {"size", "sizes"}, "heavy": {"size"},
	"pixels": {"width", "height", "resize"}, "wide": {"width", "resize"}, "tall": {"height", "resize"},
	// Questions.
	"who": {"user", "users", "author"}, "where": {"search", "find"}, "when": {"time", "date", "modified", "metadata"},
	"like": {"pattern", "matching"}, "called": {"name", "named"},
	// Places and access.
	"relocate": {"move"}, "put": {"move", "write"}, "may": {"allowed"}, "permitted": {"allowed"},
	"access": {"allowed"}, "disk": {"file", "filesystem"}, "laptop": {"local"}, "locally": {"local"},
	"reach": {"forward", "port", "connect"}, "terminal": {"exec", "command", "shell"},
	"account": {"user", "users"}, "profile": {"profile", "user"}, "handle": {"user"}, "username": {"user"},
	"touch": {"changed", "modified", "diff"}, "touched": {"changed", "modified", "diff"},
	"combine": {"squash", "rebase", "merge"}, "version control": {"git", "init"},
	"catch up": {"history", "recent"}, "png": {"image", "media"}, "jpg": {"image", "media"},
	"photo": {"image", "media"}, "audio": {"media"}, "video": {"media"},
	// Looking, and what things look like.
	"glance": {"read", "view"}, "look": {"view", "read", "snapshot"}, "look like": {"screenshot", "snapshot"},
	"outline": {"tree", "structure"}, "structure": {"tree"}, "hierarchy": {"tree"},
	"record": {"observations", "add", "save"}, "hit": {"click", "press"}, "submit": {"click", "button"},
	"tear down": {"delete", "uninstall", "cleanup"}, "clean up": {"cleanup", "clean"}, "get rid": {"delete", "remove"},
	"rid": {"delete", "remove"}, "diff": {"changed", "changes", "files"},
	"kinds": {"resources", "types"}, "objects": {"resources"}, "column": {"property", "properties"},
	"columns": {"property", "properties"}, "spreadsheet": {"database", "data source"},
	// A cluster's kinds of resource: naming one is speaking of the cluster.
	"pod": {"pod", "kubernetes"}, "pods": {"pods", "kubernetes"}, "cronjob": {"kubernetes", "resource"},
	"job": {"kubernetes", "resource"}, "svc": {"service", "kubernetes"}, "service": {"kubernetes", "resource"},
	"configmap": {"kubernetes", "resource"}, "secret": {"kubernetes", "resource"}, "ingress": {"kubernetes", "resource"},
	"statefulset": {"kubernetes", "resource"}, "daemonset": {"kubernetes", "resource"}, "namespace": {"namespace", "kubernetes"},
	"together": {"multiple"}, "shove": {"move"}, "stick": {"move"}, "put up": {"create", "open"},
	"tick": {"click", "check"}, "untick": {"click"},
	"mobile": {"resize", "width", "height"}, "tablet": {"resize", "width", "height"}, "sized": {"size", "resize"},
	"calls": {"requests", "network"}, "wiki": {"page", "search"},
	// A business's records live in a database.
	"customer": {"query", "sql"}, "customers": {"query", "sql"}, "revenue": {"query", "sql"},
	"orders": {"query", "sql"}, "sales": {"query", "sql"}, "signups": {"query", "sql"},
	"mouse": {"hover", "click"}, "spec": {"describe", "get", "manifest"},
	"working copy": {"worktree", "clone"}, "before": {"previous", "history"},
	"add up": {"sum"}, "somewhere": {"search", "find"}, "own copy": {"fork"},
	"main": {"branch"}, "master": {"branch"}, "trunk": {"branch"},
	// People and organisations, and how they stand to each other: what a
	// knowledge graph keeps.
	"company": {"entity", "organization"}, "organisation": {"entity", "organization"}, "organization": {"entity"},
	"vendor": {"entity"}, "client": {"entity"}, "partner": {"entity"}, "supplier": {"entity"},
	"reports to": {"relation", "relations"}, "works at": {"relation", "relations"}, "works for": {"relation", "relations"},
	"leads": {"relation", "relations"}, "manages": {"relation", "relations"}, "belongs to": {"relation", "relations"},
	"part of": {"relation", "relations"}, "married": {"relation"}, "owns": {"relation"},
	"on file": {"search", "nodes", "entity"}, "about": {"search"},
	// Secrets and who may act.
	"credential": {"secret", "token", "key"}, "credentials": {"secret", "token", "key"},
	"password": {"secret", "fill", "type"}, "token": {"secret", "token"}, "apikey": {"secret", "key"},
	// Releases and versions.
	"semver": {"tag", "version"}, "changelog": {"changelog", "log", "tags"}, "release notes": {"changelog", "log"},
	// Time, asked of a thing.
	"last modified": {"modified", "metadata", "info"}, "was created": {"created", "metadata", "info"},
	"was changed": {"modified", "metadata", "info"}, "how old": {"created", "metadata", "info"},
	// Existence, asked: a search or a list answers it.
	"is there": {"search", "list"}, "are there": {"search", "list"}, "any": {"search", "list"},
	// Typing into a page.
	"key in": {"type", "fill"}, "email": {"fill", "type"},
	"failed": {"error", "status"}, "errors": {"error", "console"}, "broken": {"error", "status"},
	// Git's own words.
	"head": {"ref", "reflog"}, "points to": {"url", "remote"}, "switch": {"checkout"},
	"go back": {"checkout", "back", "previous"}, "look up": {"search", "get"},
	// Questions of when, which a thing's metadata answers.
	"when was": {"time", "metadata", "info", "modified"}, "when were": {"time", "metadata", "info", "modified"},
	// Boxes and calls on a page.
	"search box": {"input", "field", "fill", "type"}, "text box": {"input", "field", "fill", "type"},
	"text field": {"input", "fill", "type"}, "api calls": {"network", "requests"}, "api requests": {"network", "requests"},
	// Facts that stop being true, and things thrown away.
	"no longer": {"delete", "remove"}, "throw away": {"discard", "reset", "delete", "clean"},
	"teammates": {"relation", "relations"}, "colleagues": {"relation", "relations"},
	// Numbers.
	"plus": {"sum", "add"}, "total up": {"sum"}, "calculate": {"sum"}, "compress": {"gzip"}, "zip": {"gzip", "compress"},
}

// families are the third round's concepts (testdata/README.md): each
// the words people use for one thing tools do or hold, written for a
// domain from the tools' own verbs and objects, not for one need.
var families = map[string][]string{
	// A terminal's commands, said as if to a shell.
	"mkdir": {"create", "directory"}, "ls": {"list", "directory"}, "cat": {"read", "file"}, "rm": {"delete", "remove"},
	"rmdir": {"delete", "directory"}, "mv": {"move"}, "cp": {"copy"}, "du": {"size", "sizes"}, "pwd": {"working", "directory"},
	"chmod": {"permissions"}, "curl": {"request", "url", "navigate"}, "wget": {"download", "url"}, "sed": {"edit", "replace"},
	"vim": {"edit"}, "nano": {"edit"}, "kubectx": {"context"}, "kubens": {"namespace"}, "kubeconfig": {"context", "kubernetes"},
	// Waiting for a page, or for time to pass.
	"until": {"wait"}, "sleep": {"wait", "time"}, "pause": {"wait"}, "appear": {"wait", "text"}, "disappear": {"wait", "gone"},
	"vanish": {"wait", "gone"}, "goes away": {"wait", "gone"}, "shows up": {"wait", "appear"}, "loading": {"wait"},
	"spinner": {"wait", "gone"},
	// Lengths of time: how long a thing is kept, or waited for.
	"second": {"seconds", "time", "expiration"}, "minute": {"seconds", "time", "expiration"},
	"hour": {"seconds", "time", "expiration"}, "day": {"seconds", "time", "expiration"},
	"ttl": {"expiration", "expire", "seconds"}, "temporary": {"expiration"}, "temporarily": {"expiration"},
	// Arithmetic.
	"minus": {"sum"}, "math": {"sum", "numbers"}, "arithmetic": {"sum", "numbers"}, "compute": {"sum"},
	// Reactions to a message.
	"thumbs": {"reaction", "emoji"}, "thumbsup": {"reaction", "emoji"}, "upvote": {"reaction"}, "heart": {"reaction", "emoji"},
	// What a thing holds.
	"inside": {"contents", "read"}, "what in": {"contents", "list", "read"}, "contents": {"contents", "read"},
	// Looking for things.
	"look for": {"search", "find"}, "hunt": {"search", "find"}, "seek": {"search", "find"}, "track down": {"search", "find"},
	"reopen": {"update", "state"}, "assign": {"assignees", "update"},
	// A page's controls.
	"dismiss": {"dialog", "handle"}, "confirm": {"dialog", "accept"}, "pick": {"select", "option"},
	"attach": {"upload", "file"}, "escape": {"press", "key"}, "esc": {"press", "key"}, "keystroke": {"press", "key"},
	"shortcut": {"press", "key"}, "dark mode": {"emulate", "media", "color", "scheme"}, "light mode": {"emulate", "media", "color", "scheme"},
}

// conceptWeight scales a word a query gains from concepts: below the
// query's own words, as a concept is what the word often means, not what
// it says. With the second round's concepts the tuning needs' recall@5
// rose from 0.949 at 0.4 to 0.957 at 0.7 and 0.8 (best MRR), 0.951 at 1.
const conceptWeight = 0.8

// conceptTerms maps a query word (stemmed), or two side by side (a
// pair), to the words (stemmed) its concept adds. Words of one stem
// share it ("calls" and "called", "stage" and "staging"); conceptForms
// tells them apart.
var conceptTerms = conceptMap(func(from string) bool { return true })

// conceptForms maps a one-word concept as written, lower-cased, to the
// words (stemmed) it adds: a query that says "called" means a name, not
// the network's calls, and "staging" a namespace, not git's index. A
// word with no concept of its own form takes its stem's.
var conceptForms = func() map[string][]string {
	m := map[string][]string{}
	for from := range concepts {
		if !strings.Contains(from, " ") {
			m[from] = conceptMap(func(f string) bool { return f == from })[stem(from)]
		}
	}
	return m
}()

// conceptOf is the concept of a query's word: of its form as written,
// else of its stem.
func conceptOf(w, said string) []string {
	if to, ok := conceptForms[said]; ok {
		return to
	}
	return conceptTerms[w]
}

// conceptMap is conceptTerms of the concepts keep says.
func conceptMap(keep func(from string) bool) map[string][]string {
	m := map[string][]string{}
	for from, to := range concepts {
		if !keep(from) {
			continue
		}
		// One word is its stem, as tokens keeps a word cut at a
		// digit whole too (k8s); two are a pair.
		f := tokens(from)
		var key string
		switch {
		case !strings.Contains(from, " "):
			key = stem(from)
		case len(f) == 2:
			key = pair(f[0], f[1])
		case len(strings.Fields(from)) == 2:
			// A phrase with a stop word ("reports to", "on file"):
			// its words as written, stemmed (stopPairs finds it).
			w := strings.Fields(from)
			key = pair(stem(w[0]), stem(w[1]))
		default:
			continue
		}
		for _, w := range to {
			ts := tokens(w)
			if len(ts) == 2 {
				// "create comment": the two words side by side, as a
				// tool's name or description says them, and each.
				ts = append(ts, pair(ts[0], ts[1]))
			}
			for _, t := range ts {
				if !slices.Contains(f, t) && !slices.Contains(m[key], t) {
					m[key] = append(m[key], t)
				}
			}
		}
		slices.Sort(m[key]) // map order must not reach the index
	}
	return m
}

// stopPairs are the query's two words side by side where one is a stop
// word, stemmed, as said, and where each starts: "reports to" and "on
// file" say what neither word says alone, and tokens drops the stop word.
func stopPairs(query string) (pairs, said []string, at []int) {
	var raw []string
	for w := range strings.FieldsFuncSeq(strings.ToLower(query), notWordRune) {
		raw = append(raw, w)
	}
	for j := 1; j < len(raw); j++ {
		if stopWords[raw[j-1]] != stopWords[raw[j]] {
			pairs = append(pairs, pair(stem(raw[j-1]), stem(raw[j])))
			said = append(said, pair(raw[j-1], raw[j]))
			at = append(at, j-1)
		}
	}
	return pairs, said, at
}
