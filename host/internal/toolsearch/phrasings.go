package toolsearch

// phrasings are the fourth round's concepts (testdata/README.md): how
// people who never saw a tool's words say a software task, read from
// the three batches written blind. Each is a family: the ways of saying
// one act or one thing that a tool names, not one need's words.
var phrasings = map[string][]string{
	// Giving a thing another name.
	"change name": {"rename", "move"}, "new name": {"rename", "move"}, "call it": {"rename", "move"},
	// Setting work aside for later.
	"park": {"stash"}, "stow": {"stash"}, "put away": {"stash"}, "set aside": {"stash"}, "wip": {"stash"},
	"for later": {"stash"}, "save for": {"stash"},
	// What one may reach.
	"get at": {"allowed", "access"}, "have access": {"allowed", "access"}, "off limits": {"allowed"},
	"sandbox": {"allowed", "directories"}, "sandboxed": {"allowed", "directories"},
	// What a memory holds.
	"memorize": {"graph", "knowledge", "entities", "observations"}, "memorise": {"graph", "knowledge", "entities", "observations"},
	"memorized": {"graph", "knowledge", "entities", "observations"}, "memorised": {"graph", "knowledge", "entities", "observations"},
	"learned": {"graph", "knowledge", "observations"}, "learnt": {"graph", "knowledge", "observations"},
	"you know": {"graph", "knowledge", "read"}, "you remember": {"graph", "knowledge", "read"},
	// Pictures of a page.
	"snap": {"screenshot"}, "screencap": {"screenshot"}, "screengrab": {"screenshot"}, "snapshot": {"snapshot", "screenshot"},
	"shot": {"screenshot"},
	// Remarks on a thing.
	"remark": {"comment"}, "remarks": {"comments"}, "annotate": {"comment"}, "feedback": {"comment", "review"},
	// Adding at the end.
	"tack": {"append"}, "end of": {"append"}, "bottom": {"append"}, "underneath": {"append", "children"},
	"tack on": {"append"}, "stick on": {"append"},
	// Order.
	"highest": {"sort", "sorts"}, "lowest": {"sort", "sorts"}, "newest": {"sort", "sorts"}, "oldest": {"sort", "sorts"},
	"sorted": {"sort", "sorts"}, "ordered": {"sort", "sorts"}, "order by": {"sort", "sorts"}, "ranked": {"sort", "sorts"},
	// Taking one commit over to another branch.
	"backport": {"cherry", "pick"}, "bring over": {"cherry", "pick"}, "carry over": {"cherry", "pick"},
	"port over": {"cherry", "pick"},
	// Putting one text for another.
	"swap": {"replace", "edit"}, "substitute": {"replace", "edit"}, "swap out": {"replace", "edit"},
	// A workload that does not come up.
	"crashloopbackoff": {"describe", "logs", "pod"}, "crashloop": {"describe", "logs", "pod"},
	"imagepullbackoff": {"describe", "events", "pod"}, "errimagepull": {"describe", "events", "pod"},
	"oomkilled": {"describe", "logs", "pod"}, "evicted": {"describe", "pod"}, "stuck": {"describe", "status", "logs"},
	// The past, asked of a thing's history.
	"yesterday": {"history", "since", "previous"}, "ago": {"history", "since"}, "earlier": {"history", "previous"},
	"last week": {"history", "since"}, "monday": {"since", "history"}, "tuesday": {"since", "history"},
	"wednesday": {"since", "history"}, "thursday": {"since", "history"}, "friday": {"since", "history"},
	"saturday": {"since", "history"}, "sunday": {"since", "history"}, "anyone": {"author", "user"},
	// What a person's profile says.
	"job title": {"profile", "user", "title"}, "role": {"profile", "title"}, "timezone": {"profile", "tz"},
	"time zone": {"profile", "tz"}, "pronouns": {"profile"}, "phone": {"profile"}, "display name": {"profile", "user"},
	"real name": {"profile", "user"}, "bio": {"profile"},
	// Throwing a thing away.
	"bin": {"delete", "trash", "archive"}, "chuck": {"delete", "trash"}, "junk": {"clean", "delete"},
	"axe": {"delete", "remove"},
	// Packed files.
	"gz": {"gzip", "compress"}, "tgz": {"gzip", "compress"}, "tar": {"gzip", "compress", "archive"},
	"gzipped": {"gzip", "compress"}, "shrink file": {"compress", "gzip"},
}

// pageVerbs are verbs that, with a page or a doc as their object, make
// one: "start a page for today's standup", "draft a doc". Like
// verbObjects (concepts.go), only the verb gives way to the pair.
var pageVerbs = func() map[string][]string {
	m := map[string][]string{}
	for _, verb := range []string{"start", "draft", "begin", "jot", "write"} {
		for _, item := range []string{"page", "doc", "document", "wiki"} {
			m[verb+" "+item] = []string{"create", "post", "page"}
		}
	}
	return m
}()

// pickVerbs are verbs that, with a commit or a fix as their object, take
// it over to another branch: "grab hotfix abc123 onto release-2.4",
// "bring that commit over".
var pickVerbs = func() map[string][]string {
	m := map[string][]string{}
	for _, verb := range []string{"grab", "take", "bring", "copy", "port", "apply"} {
		for _, item := range []string{"commit", "commits", "fix", "hotfix", "patch"} {
			m[verb+" "+item] = []string{"cherry pick"}
		}
	}
	return m
}()

// quantifiers are words of how much that a server is also named by:
// each stands for the word a tool says (stemmed).
var quantifiers = map[string]string{"everyth": "all"}
