package toolsearch

// everydayFamilies are the sixth round's phrasings (testdata/README.md):
// everyday words for what a browser, a chat, a memory or a small tool
// does, read from the blind batches 5, 7 and 8, whose writers said them
// apart. Like plainFamilies, each is one act's ways of being said, not
// one need's words: a family is here only where two writers or more of
// the tuning sets said its words (one writer's words were dropped).
var everydayFamilies = []family{
	{"a card moved across a board on a page", map[string][]string{
		"card": {"drag"}, "cards": {"drag"}, "kanban": {"drag"}, "trello": {"drag"}, "move card": {"drag"},
	}},
	{"words said back", map[string][]string{
		"repeat": {"echo"}, "verbatim": {"echo"}, "parrot": {"echo"}, "say back": {"echo"}, "word word": {"echo"},
	}},
	{"a box on a page that asks", map[string][]string{
		"popped up": {"dialog"}, "pop up": {"dialog"}, "pops up": {"dialog"}, "confirm box": {"dialog"},
		"confirmation": {"dialog", "accept"}, "sure want": {"dialog", "accept"}, "hit ok": {"dialog", "accept"},
		"click ok": {"dialog", "accept"}, "press ok": {"dialog", "accept"}, "say yes": {"dialog", "accept"},
	}},
	{"what a memory was given", map[string][]string{
		"stored about": {"graph", "knowledge", "read"}, "saved about": {"graph", "knowledge", "read"},
		"kept about": {"graph", "knowledge", "read"},
	}},
	{"a team's document by what it holds", map[string][]string{
		"checklist": {"page"}, "checklists": {"pages"},
	}},
	{"a tie that has ended", map[string][]string{
		"anymore": {"delete", "remove"}, "no more": {"delete", "remove"},
	}},
	{"a page that moves less", map[string][]string{
		"animation": {"emulate", "media", "reduced motion"}, "animations": {"emulate", "media", "reduced motion"},
		"motion": {"emulate", "media", "reduced motion"},
	}},
	{"thinking a problem through", map[string][]string{
		"step by": {"sequential", "thinking", "thought"}, "stage time": {"sequential", "thinking", "thought"},
		"step time": {"sequential", "thinking", "thought"}, "work out": {"thinking", "thought"},
		"reason through": {"sequential", "thinking", "thought"}, "think through": {"sequential", "thinking", "thought"},
	}},
}

// everydayPhrasings are everydayFamilies in one map.
var everydayPhrasings = familyWords(everydayFamilies)
