package redact

import "strings"

// matcher finds every occurrence of a fixed set of strings in one pass
// (Aho–Corasick): the time to mask a text is linear in its length however
// many secrets there are and however they overlap, and no input can make
// it slower. A matcher is immutable once built; Redactor swaps in a new
// one when it learns a value.
type matcher struct {
	// edges is the trie: (state<<8 | byte) -> next state. A map rather
	// than a table per state: secrets are long and few, so most states
	// have one edge.
	edges map[uint64]int32
	// root is the root's edges as a table (-1: none), since every byte of
	// every text starts at the root.
	root [256]int32
	// fail is the state for the longest proper suffix of a state's string
	// that is also in the trie.
	fail []int32
	// longest is the length of the longest secret that ends at a state:
	// its own string, or one of its suffixes. 0 when none does.
	longest []int32
}

func newMatcher(secrets []string) *matcher {
	m := &matcher{edges: map[uint64]int32{}, fail: []int32{0}, longest: []int32{0}}
	for i := range m.root {
		m.root[i] = -1
	}
	for _, s := range secrets {
		state := int32(0)
		for i := 0; i < len(s); i++ {
			next, ok := m.edge(state, s[i])
			if !ok {
				next = int32(len(m.fail))
				m.fail = append(m.fail, 0)
				m.longest = append(m.longest, 0)
				m.setEdge(state, s[i], next)
			}
			state = next
		}
		m.longest[state] = max(m.longest[state], int32(len(s)))
	}
	// Failure links, breadth first: a state's link is found from its
	// parent's, which is shallower and so already known.
	var queue []int32
	for c := range 256 {
		if next := m.root[c]; next >= 0 {
			queue = append(queue, next) // depth 1 fails to the root
		}
	}
	children := m.children()
	for len(queue) > 0 {
		state := queue[0]
		queue = queue[1:]
		for _, ch := range children[state] {
			f := m.fail[state]
			for {
				if next, ok := m.edge(f, ch.b); ok {
					m.fail[ch.to] = next
					break
				}
				if f == 0 {
					m.fail[ch.to] = 0
					break
				}
				f = m.fail[f]
			}
			m.longest[ch.to] = max(m.longest[ch.to], m.longest[m.fail[ch.to]])
			queue = append(queue, ch.to)
		}
	}
	return m
}

type child struct {
	b  byte
	to int32
}

// children lists each state's edges, for the breadth-first pass.
func (m *matcher) children() [][]child {
	out := make([][]child, len(m.fail))
	for c := range 256 {
		if next := m.root[c]; next >= 0 {
			out[0] = append(out[0], child{byte(c), next})
		}
	}
	for k, to := range m.edges {
		from := int32(k >> 8)
		out[from] = append(out[from], child{byte(k), to})
	}
	return out
}

func (m *matcher) edge(state int32, b byte) (int32, bool) {
	if state == 0 {
		next := m.root[b]
		return next, next >= 0
	}
	next, ok := m.edges[uint64(state)<<8|uint64(b)]
	return next, ok
}

func (m *matcher) setEdge(state int32, b byte, next int32) {
	if state == 0 {
		m.root[b] = next
		return
	}
	m.edges[uint64(state)<<8|uint64(b)] = next
}

// span is a half-open byte range of a text to mask.
type span struct{ start, end int }

// replace returns s with every occurrence of a secret replaced by mask.
// Occurrences that overlap or touch are one range and get one mask, so a
// secret that is a prefix, a suffix or a part of another, or that
// straddles another, is masked whole with it.
func (m *matcher) replace(s, mask string) string {
	var spans []span
	state := int32(0)
	for i := 0; i < len(s); i++ {
		for {
			if next, ok := m.edge(state, s[i]); ok {
				state = next
				break
			}
			if state == 0 {
				break
			}
			state = m.fail[state]
		}
		n := int(m.longest[state])
		if n == 0 {
			continue
		}
		// Ranges arrive by their end; a new one swallows every earlier
		// one it reaches.
		sp := span{i + 1 - n, i + 1}
		for len(spans) > 0 && sp.start <= spans[len(spans)-1].end {
			sp.start = min(sp.start, spans[len(spans)-1].start)
			spans = spans[:len(spans)-1]
		}
		spans = append(spans, sp)
	}
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.start])
		b.WriteString(mask)
		at = sp.end
	}
	b.WriteString(s[at:])
	return b.String()
}
