package toolsearch

// The seventh round (testdata/README.md): a thing that exists is changed,
// not made. A tool set has create and update of one object side by side,
// and the words of a need name the object either way; what tells them
// apart is what is done to it.

// attrVerbs are a verb of adding, setting or taking away with one of a
// thing's attributes as its object: "add the label tier=frontend to the
// web service", "add a 'Due date' column to the calendar", "set the
// assignee", "change the image". The attribute belongs to a thing that
// exists, so the thing is updated; an attribute is never made alone.
// Like verbObjects, only the verb gives way to the pair.
var attrVerbs = func() map[string][]string {
	m := map[string][]string{}
	for _, verb := range []string{"add", "set", "put", "attach", "change", "remove", "drop", "edit", "rename"} {
		for _, attr := range []string{"label", "labels", "column", "columns", "field", "fields", "property", "properties",
			"assignee", "assignees", "milestone", "status", "priority", "image", "annotation", "annotations"} {
			m[verb+" "+attr] = []string{"update", "patch"}
		}
	}
	return m
}()

// statePhrases set a thing's state: "mark the row as Done", "move the
// ticket to done", "flag it as blocked". The thing is there already;
// its state is updated.
var statePhrases = func() map[string][]string {
	m := map[string][]string{}
	for _, state := range []string{"done", "complete", "completed", "finished", "blocked", "closed", "resolved", "read", "unread", "archived", "shipped"} {
		m["as "+state] = []string{"update", "patch", "state", "status", "properties"}
		// "to read" and "to complete" are also a purpose ("I need to
		// read config.yaml", "how long the job takes to complete").
		if state != "read" && state != "unread" && state != "complete" {
			m["to "+state] = []string{"update", "patch", "state", "status", "properties"}
		}
	}
	return m
}()

// viewWords are the views a team keeps its records in, as a document
// tool shows a database: a calendar or a gallery of its rows, as a
// tracker and a board are (plain.go).
var viewWords = map[string][]string{
	"calendar": {"database", "data source"}, "calendars": {"databases", "data sources"},
	"gallery": {"database", "data source"},
}

// switchVerbs are verbs that make a cluster or a context the one in
// use: "use the staging context", "switch to the prod cluster".
var switchVerbs = func() map[string][]string {
	m := map[string][]string{}
	for _, verb := range []string{"use", "switch", "select", "activate"} {
		for _, item := range []string{"context", "cluster", "kubeconfig"} {
			m[verb+" "+item] = []string{"context", "set"}
		}
	}
	return m
}()

// dropVerbs are verbs that take commits off a branch: "drop my last two
// commits", "undo the last commit": a reset.
var dropVerbs = func() map[string][]string {
	m := map[string][]string{}
	for _, verb := range []string{"drop", "undo", "discard", "scrap", "remove", "delete"} {
		for _, item := range []string{"commit", "commits"} {
			m[verb+" "+item] = []string{"reset"}
		}
	}
	return m
}()

// remarkVerbs are the ways of putting a remark on a thing: "leave a
// note on the spec page", "drop a remark on the checklist", "post
// feedback on the PR". A remark left is a comment made (the fourth and
// fifth rounds had some of them as phrasings).
var remarkVerbs = func() map[string][]string {
	m := map[string][]string{}
	for _, verb := range []string{"leave", "drop", "post", "write", "add", "put"} {
		for _, item := range []string{"note", "remark", "comment", "feedback"} {
			m[verb+" "+item] = []string{"comment", "create comment"}
		}
	}
	return m
}()

// clusterApps are the web apps people run inside a cluster and open
// from their own machine through a forwarded port: "let me hit grafana
// on localhost:3000" forwards a port; naming the app says where it
// runs.
var clusterApps = func() map[string][]string {
	m := map[string][]string{}
	for _, app := range []string{"grafana", "prometheus", "kibana", "alertmanager", "argocd", "jaeger"} {
		m[app] = []string{"port forward", "service"}
	}
	return m
}()

// whoAmI are the ways of asking who the caller is to a service: "who am
// I connected as in notion", "which integration am I signed in as". A
// token's own user answers it. ("which branch am I on" asks no such
// thing, nor "log in": a page's form.)
var whoAmI = map[string][]string{
	"who am": {"self", "bot user", "token"}, "whoami": {"self", "bot user", "token"},
	"signed in": {"self", "bot user", "bot", "token"}, "connected as": {"self", "bot user", "token"},
}

// factVerbs are a verb of keeping and then "that" and a fact: "remember
// that Alice works at Acme", "note that Bob prefers tea", "keep in mind
// that Priya runs billing", "jot down that the meeting moved". What is
// kept is a fact about things, which a memory keeps as observations.
var factVerbs = func() map[string][]string {
	m := map[string][]string{}
	for _, verb := range []string{"note", "remember", "record", "store", "mind", "down"} {
		m[verb+" that"] = []string{"observations", "entities", "knowledge"}
	}
	return m
}()

// emojiNames are emoji as people name them in words, which a chat puts
// on a message as a reaction ("give Priya's post a party popper"), as
// it does 👍 and :tada: (shapes.go).
var emojiNames = map[string][]string{
	"popper": {"reaction", "emoji"}, "tada": {"reaction", "emoji"}, "confetti": {"reaction", "emoji"},
	"rocket": {"reaction", "emoji"}, "clap": {"reaction", "emoji"}, "smiley": {"reaction", "emoji"},
	"thumbs down": {"reaction", "emoji"}, "thumbsdown": {"reaction", "emoji"},
}

// whoMay ask who may act on a thing: "who may read it", "who can write
// to /srv", "is it readable": its permissions answer.
var whoMay = map[string][]string{
	"who may": {"permissions"}, "who can": {"permissions"}, "readable": {"permissions"}, "writable": {"permissions"},
}

// earlierVersions are the ways of naming a thing as it was before: "go
// back to the previous version of web", "utils.go as it was in
// yesterday's commit". A deployment's earlier revision is undone to; a
// file's is restored.
var earlierVersions = map[string][]string{
	"previous version": {"revision", "undo", "restore"}, "previous revision": {"revision", "undo", "restore"},
	"earlier version": {"revision", "undo", "restore"}, "older version": {"revision", "undo", "restore"},
	"last version": {"revision", "undo", "restore"}, "as was": {"revision", "restore"},
}

// makingVerbs are a verb of making with a thing a tool creates as its
// object: "make a folder out/reports", "make the folders reports/q1 and
// q2", "make a branch off main". "make" alone is no "create" ("make my
// own copy" is a fork); with its object it is.
var makingVerbs = func() map[string][]string {
	m := map[string][]string{}
	for _, item := range []string{"folder", "folders", "directory", "directories", "dir", "branch", "page", "repo", "repository", "project", "issue", "ticket", "tag", "channel"} {
		m["make "+item] = []string{"create"}
	}
	return m
}()

// evictWords do away with an entry or a workload: "evict cart:991 from
// the cache" deletes a key, "evict the pods from node-3" drains it. Said,
// they ask for a tool that does away with things (destroyWords).
var evictWords = map[string][]string{
	"evict": {"delete", "remove", "drain"}, "expunge": {"delete", "remove"}, "invalidate": {"delete", "remove"},
}
