package toolsearch

// plainFamilies are the fifth round's phrasings (testdata/README.md):
// how people new to the tools, in a hurry, or writing an agent's
// sub-task say an act the tools name in their own words, read from the
// blind batches 4 and 6. Each is a family of one act's ways of being
// said, not one need's words; concepts takes them all.
var plainFamilies = []family{
	{"a span of time asked of a history", map[string][]string{
		"this week": {"history", "since", "log"}, "this month": {"history", "since", "log"},
		"past week": {"history", "since", "log"}, "past month": {"history", "since", "log"},
		"last days": {"history", "since"}, "past days": {"history", "since"}, "landed": {"commit", "commits", "merged"},
	}},
	{"work lost and dug up again", map[string][]string{
		"dig up": {"recovering", "lost", "reflog"}, "vanished": {"recovering", "lost", "reflog"},
		"disappeared": {"recovering", "lost", "reflog"}, "lost": {"recovering", "lost", "reflog"},
		"get back": {"recovering", "lost"}, "uncommit": {"reset", "undo"},
	}},
	{"a node emptied for upkeep", map[string][]string{
		"stop scheduling": {"cordon", "drain"}, "unschedulable": {"cordon"}, "kernel": {"drain", "cordon", "node"},
		"reboot": {"drain", "cordon", "node"}, "evacuate": {"drain"}, "workloads off": {"drain"},
	}},
	{"a workload that keeps falling over", map[string][]string{
		"restarting": {"describe", "logs", "pod"}, "keep restart": {"describe", "logs", "pod"},
		"keeps crashing": {"describe", "logs", "pod"}, "flapping": {"describe", "logs", "pod"},
	}},
	{"code that others publish", map[string][]string{
		"library": {"repositories", "repository"}, "libraries": {"repositories", "repository"},
		"open source": {"repositories", "repository"}, "popular": {"repositories", "search"},
		"well liked": {"repositories", "search"},
	}},
	{"a complaint already made", map[string][]string{
		"complain": {"issue", "issues"}, "complained": {"issue", "issues"}, "complaint": {"issue", "issues"},
		"complaints": {"issue", "issues"}, "reported": {"issue", "issues"},
	}},
	{"approval given", map[string][]string{
		"thumbs up": {"review", "approve", "reaction"}, "lgtm": {"review", "approve"}, "sign off": {"review", "approve"},
		"approval": {"review", "approve"}, "blessing": {"review", "approve"}, "okayed": {"review", "approve"},
	}},
	{"things seen side by side", map[string][]string{
		"next to": {"compare", "multiple"}, "side by": {"compare", "multiple"}, "what differs": {"compare", "diff"},
		"at once": {"multiple", "simultaneously"},
	}},
	{"the whole of a folder, however deep", map[string][]string{
		"layout": {"tree", "recursive"}, "deep": {"recursive", "tree"}, "nested": {"recursive", "tree"},
		"everything under": {"recursive", "tree", "search"},
	}},
	{"a file found by its name", map[string][]string{
		"name has": {"search", "pattern"}, "name contains": {"search", "pattern"}, "named like": {"search", "pattern"},
		"somewhere under": {"search", "recursively"},
	}},
	{"a key found by how it begins", map[string][]string{
		"begins with": {"pattern", "prefix"}, "begin with": {"pattern", "prefix"}, "start with": {"pattern", "prefix"},
		"starts with": {"pattern", "prefix"}, "starting with": {"pattern", "prefix"}, "prefixed": {"pattern", "prefix"},
	}},
	{"a second copy of the work", map[string][]string{
		"alongside": {"parallel", "worktree"}, "second checkout": {"worktree"}, "another checkout": {"worktree"},
		"extra checkout": {"worktree"}, "separate checkout": {"worktree"},
	}},
	{"short words for things", map[string][]string{
		"pic": {"screenshot", "image"}, "pics": {"screenshot", "image"}, "md": {"markdown"},
		"tracker": {"database", "data source"}, "board": {"database", "data source"},
	}},
	{"a work item's state", map[string][]string{
		"resolved": {"update", "state", "closed"}, "resolve": {"update", "state", "closed"},
		"wontfix": {"update", "state", "closed"}, "mark fixed": {"update", "state", "closed"},
	}},
	{"the cluster one talks to", map[string][]string{
		"talking to": {"context"}, "talk to": {"context"}, "connected to": {"context"}, "which cluster": {"context"},
	}},
	{"all a memory holds of a thing", map[string][]string{
		"everything about": {"entities", "observations", "knowledge"}, "all about": {"entities", "observations", "knowledge"},
	}},
	{"how much room a thing takes", map[string][]string{
		"space": {"size", "sizes"}, "heaviest": {"size", "sizes"}, "disk usage": {"size", "sizes"},
		"takes up": {"size", "sizes"}, "room": {"size", "sizes"},
	}},
	{"counting rows", map[string][]string{
		"how many": {"query", "count"}, "signed up": {"users", "query"},
	}},
}

// plainPhrasings are plainFamilies in one map.
var plainPhrasings = familyWords(plainFamilies)
