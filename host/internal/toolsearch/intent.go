package toolsearch

import (
	"slices"
	"strings"
)

// What a need asks to have done against what a tool's name says it does
// (the seventh round, testdata/README.md): a tool that deletes is wanted
// when the need says so; one that creates or changes unless the need
// asks to read (asksToRead) and says no word of change; one that only
// reads unless the need opens with a change and says no word of looking;
// and a server the need names is the one it asks of. Each is a
// factor on the score of the tools the rule is against, so the words
// still rank them among themselves.

// What a tool's name says it does, as bits of Index.does.
const (
	doesDestroy uint8 = 1 << iota // deletes, removes, cleans, resets...
	doesChange                    // creates, updates, sets, writes...
	doesRead                      // gets, lists, reads, searches... and nothing of the two above
)

// destroyWords are the verbs (stemmed) of a tool's name that do away
// with things. Such a tool is what a need wants only when it says so, in
// its words or in a word they imply ("toss", "no longer", "anymore"):
// "Sam reports to Lena" adds a relation, whatever else delete_entities'
// description shares with it.
var destroyWords = map[string]bool{"delet": true, "remov": true, "uninstal": true, "clean": true, "clear": true, "reset": true, "destroy": true, "purg": true}

// changeWords are the verbs (stemmed) of a tool's name that make or
// change things. A need that asks to read ("what do you remember about
// Dana?", "show the reviews on PR 3") is answered by such a tool only
// when it says the change. Not "post": Notion's names say it for HTTP's
// POST (post-search).
var changeWords = map[string]bool{"creat": true, "updat": true, "set": true, "add": true, "write": true, "edit": true, "move": true,
	"push": true, "merg": true, "send": true, "patch": true, "fork": true, "append": true, "upload": true, "instal": true, "upgrad": true}

// lookWords are the verbs (stemmed) of a tool's name that read; a tool
// whose name says one and no verb of change or destruction only reads.
var lookWords = map[string]bool{"get": true, "list": true, "read": true, "search": true, "show": true, "view": true, "retriev": true, "find": true, "describ": true}

// nameDoes is what a tool's name (its words, stemmed) says it does.
func nameDoes(name []string) uint8 {
	var does uint8
	for _, w := range name {
		switch {
		case destroyWords[w]:
			does |= doesDestroy
		case changeWords[w]:
			does |= doesChange
		case lookWords[w]:
			does |= doesRead
		}
	}
	if does&(doesDestroy|doesChange) != 0 {
		does &^= doesRead
	}
	return does
}

// readingWords open a need that asks to read: a question word, or a verb
// of looking.
var readingWords = map[string]bool{"what": true, "which": true, "who": true, "whose": true, "when": true, "where": true, "why": true, "how": true,
	"show": true, "list": true, "display": true, "view": true, "read": true, "see": true, "check": true, "find": true, "search": true, "look": true, "print": true, "dump": true}

// changingWords open a need that asks to make or change a thing. Not
// "put": "put a.yaml and b.yaml next to each other" reads them.
var changingWords = map[string]bool{"add": true, "create": true, "make": true, "set": true, "update": true, "delete": true, "remove": true,
	"rename": true, "post": true, "send": true, "write": true, "edit": true, "move": true, "drop": true, "approve": true,
	"answer": true, "reply": true, "leave": true, "mark": true, "change": true, "close": true, "merge": true, "push": true, "tag": true,
	"comment": true, "assign": true, "fork": true, "upload": true, "install": true, "upgrade": true, "uninstall": true, "clear": true,
	"reset": true, "scale": true, "restart": true, "kill": true, "stop": true, "start": true, "store": true, "record": true, "save": true}

// firstWord is a query's first word, lower-cased, as queryTerms reads
// words: after unclitic ("what's" is "what is"), split at any space, and
// without the punctuation around it ("List:").
// Only the query's first field is read: a search pays for one word.
func firstWord(query string) string {
	for f := range strings.FieldsSeq(query) {
		for g := range strings.FieldsSeq(unclitic(f)) {
			return strings.ToLower(strings.Trim(g, "'\"`,.:;!?()[]{}<>"))
		}
	}
	return ""
}

// placeWords say where a task is done: a server's name that is also a
// word of English ("memory", "notion", "slack", "everything") names the
// server only after one ("in notion", "on our slack"); "how much memory
// does the pod use" names none.
var placeWords = map[string]bool{"in": true, "on": true, "from": true, "to": true, "into": true, "via": true, "using": true, "with": true, "through": true}

// saidAfterPlace are the words (stemmed) a query says right after a
// place word, or after a place word and a determiner ("in our notion").
func saidAfterPlace(query string) map[string]bool {
	out := map[string]bool{}
	fields := strings.Fields(strings.ToLower(unclitic(query)))
	for i := 0; i+1 < len(fields); i++ {
		if !placeWords[fields[i]] {
			continue
		}
		j := i + 1
		if determiners[fields[j]] && j+1 < len(fields) {
			j++
		}
		for _, w := range tokens(fields[j]) {
			out[w] = true
		}
	}
	return out
}

// determiners may stand between a place word and a server's name.
var determiners = map[string]bool{"the": true, "my": true, "our": true, "your": true, "their": true, "a": true, "this": true, "that": true}

// asksToRead says whether a query asks to read: it opens with a
// question word or a verb of looking, or ends with a question mark.
func asksToRead(query string) bool {
	return strings.HasSuffix(strings.TrimSpace(query), "?") || readingWords[firstWord(query)]
}

// asksToChange says whether a query opens with a verb of making or
// changing.
func asksToChange(query string) bool { return changingWords[firstWord(query)] }

// weighIntent scales the touched docs' scores by what the query asks to
// have done against what each doc's name says it does, and by the
// servers it names.
func (ix *Index) weighIntent(query string, terms []term, touched []int32, scores []float64) {
	var destroy, change, read bool // what the query's terms say
	var named []int32              // servers it names by a word of its own
	var afterPlace map[string]bool // its words said after "in", "on"...
	wn := wordNet()
	for _, t := range terms {
		destroy = destroy || destroyWords[t.word]
		change = change || changeWords[t.word]
		read = read || lookWords[t.word] && t.rel == ""
		// A server's name said as a word of its own ("in notion", "on
		// github"; not inside a path or an address) names it.
		if s, ok := ix.serverNamed[t.word]; ok && t.rel == "" && t.weight >= 1 && !slices.Contains(named, s) {
			if len(wn[t.word]) > 0 {
				if afterPlace == nil {
					afterPlace = saidAfterPlace(query)
				}
				if !afterPlace[t.word] {
					continue
				}
			}
			named = append(named, s)
		}
	}
	asksRead, asksChange := asksToRead(query), asksToChange(query)
	var factor [doesRead << 1]float64
	for does := range factor {
		f := 1.0
		if does&int(doesDestroy) != 0 && !destroy {
			f *= ix.tune.destroyUnsaid
		}
		if does&int(doesChange) != 0 && !change && !destroy && asksRead {
			f *= ix.tune.changeOnRead
		}
		if does&int(doesRead) != 0 && !read && asksChange {
			f *= ix.tune.readOnChange
		}
		factor[does] = f
	}
	naming := len(named) > 0 && ix.tune.otherServer != 1
	for _, d := range touched {
		f := factor[ix.does[d]]
		if naming && !slices.Contains(named, ix.server[d]) {
			f *= ix.tune.otherServer
		}
		scores[d] *= f
	}
}
