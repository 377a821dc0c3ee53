package host

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/switchboard-mcp/switchboard/host/internal/toolsearch"
)

// searchCache is the search index of one version of the tool set, built
// on the first search after the version moves (DESIGN.md, "Tool search").
type searchCache struct {
	mu      sync.Mutex // held while an index is built, so one search builds it
	built   bool
	version uint64
	ix      *toolsearch.Index
	byName  map[string]Tool
}

// SearchTools returns up to k of the host's tools that match query, best
// first (equal scores by name); k <= 0 means every match. A tool matches
// when its name, its parameters or its description has a word of the
// query, or a word one of them implies (DESIGN.md, "Tool search"). The
// index is built once per version of the tool set.
func (h *Host) SearchTools(query string, k int) []Tool {
	return hitTools(h.SearchToolHits(query, k))
}

// SearchTools is Host.SearchTools over the tools the view shows.
func (v *View) SearchTools(query string, k int) []Tool {
	return hitTools(v.SearchToolHits(query, k))
}

// A ToolHit is one tool a search found, and why: the words it matched,
// so an agent can refine its query. As JSON it is the tool's object with
// "why" beside its fields, so a reader of tools reads a hit as a tool.
type ToolHit struct {
	Tool Tool
	Why  []SearchMatch
}

// hitJSON is a ToolHit's JSON: the tool's fields (a type without
// ToolHit's methods, embedded, so they sit at the top) and why.
type hitJSON struct {
	*toolFields
	Why []SearchMatch `json:"why,omitempty"`
}

type toolFields Tool

// MarshalJSON writes the tool's fields and "why".
func (h ToolHit) MarshalJSON() ([]byte, error) {
	return json.Marshal(hitJSON{(*toolFields)(&h.Tool), h.Why})
}

// UnmarshalJSON reads what MarshalJSON writes, or a tool alone.
func (h *ToolHit) UnmarshalJSON(b []byte) error {
	v := hitJSON{toolFields: (*toolFields)(&h.Tool)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	h.Why = v.Why
	return nil
}

// A SearchMatch is one reason a tool matched: a word of the query
// (Query), the tool's word it met (Word) and how they are related:
// Relation is "" for the same word, "joined" for two words a tool
// writes as one ("clean up", cleanup), "synonym", "means" (what the word
// means in software), "related", "broader" or "narrower" (WordNet's
// relations), "similar" (a word used where the query's word is, by word
// vectors), "learned" (a tool's word that past queries saying the word
// wanted), or "kind" (what the query names, such as a URL or a file).
type SearchMatch struct {
	Query    string `json:"query"`
	Word     string `json:"word"`
	Relation string `json:"relation,omitempty"`
}

// String is the match as a model reads it: "tag ← label (synonym)", or
// the word alone when the query said it.
func (m SearchMatch) String() string {
	return toolsearch.Match{Query: m.Query, Word: m.Word, Relation: m.Relation}.String()
}

// SearchToolHits is SearchTools with why each tool matched.
func (h *Host) SearchToolHits(query string, k int) []ToolHit {
	return h.search.find(h.Tools(), query, k, nil)
}

// SearchToolHits is Host.SearchToolHits over the tools the view shows.
func (v *View) SearchToolHits(query string, k int) []ToolHit {
	return v.h.search.find(v.h.Tools(), query, k, v.shows)
}

func hitTools(hits []ToolHit) []Tool {
	var out []Tool
	for _, h := range hits {
		out = append(out, h.Tool)
	}
	return out
}

// find searches set's index, building it when set is newer than the one
// indexed, and keeps the first k hits that keep accepts (nil keeps all).
func (c *searchCache) find(set ToolSet, query string, k int, keep func(Tool) bool) []ToolHit {
	ix, byName := c.index(set)
	limit := k
	if keep != nil {
		limit = 0 // a view may hide any of the first k
	}
	var out []ToolHit
	for _, hit := range ix.Search(query, limit) {
		t := byName[hit.ID]
		if keep != nil && !keep(t) {
			continue
		}
		why := make([]SearchMatch, len(hit.Why))
		for i, m := range hit.Why {
			why[i] = SearchMatch{Query: m.Query, Word: m.Word, Relation: m.Relation}
		}
		out = append(out, ToolHit{Tool: t, Why: why})
		if k > 0 && len(out) == k {
			break
		}
	}
	return out
}

func (c *searchCache) index(set ToolSet) (*toolsearch.Index, map[string]Tool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.built && c.version == set.Version {
		return c.ix, c.byName
	}
	docs := make([]toolsearch.Doc, len(set.Tools))
	byName := make(map[string]Tool, len(set.Tools))
	for i, t := range set.Tools {
		docs[i] = toolsearch.Doc{ID: t.Name, Name: t.Name, Server: t.Server, Description: titles(t) + t.Description, Params: params(t.InputSchema)}
		byName[t.Name] = t
	}
	ix := toolsearch.New(docs)
	// A search that read an older tool set than the one indexed gets its
	// own index but leaves the newer one in place.
	if !c.built || set.Version >= c.version {
		c.built, c.version, c.ix, c.byName = true, set.Version, ix, byName
	}
	return ix, byName
}

// titles are a tool's human titles, each on a line: its own and its
// annotations' (older servers put it there), once when they are one.
func titles(t Tool) string {
	out := t.Title + "\n"
	if a := t.Annotations; a != nil && a.Title != "" && a.Title != t.Title {
		out += a.Title + "\n"
	}
	return out
}

// params reads the top-level properties of an input schema: whatever
// shape it came in (a decoded map from a server, or the cache's JSON).
func params(schema any) []toolsearch.Param {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
			Items       struct {
				Enum []any `json:"enum"`
			} `json:"items"`
		} `json:"properties"`
	}
	switch v := schema.(type) {
	case nil:
		return nil
	case map[string]any:
		props, _ := v["properties"].(map[string]any)
		out := make([]toolsearch.Param, 0, len(props))
		for name, p := range props {
			m, _ := p.(map[string]any)
			desc, _ := m["description"].(string)
			enum, _ := m["enum"].([]any)
			if items, ok := m["items"].(map[string]any); ok {
				more, _ := items["enum"].([]any)
				enum = append(slices.Clip(enum), more...)
			}
			out = append(out, toolsearch.Param{Name: name, Description: desc, Enum: enumWords(enum)})
		}
		return sortParams(out)
	case json.RawMessage:
		if json.Unmarshal(v, &s) != nil {
			return nil
		}
	default:
		b, err := json.Marshal(v)
		if err != nil || json.Unmarshal(b, &s) != nil {
			return nil
		}
	}
	out := make([]toolsearch.Param, 0, len(s.Properties))
	for name, p := range s.Properties {
		out = append(out, toolsearch.Param{Name: name, Description: p.Description, Enum: enumWords(append(p.Enum, p.Items.Enum...))})
	}
	return sortParams(out)
}

// enumWords are an enum's string values: a tool's modes ("list",
// "create", "delete") say what it does; numbers and objects say little.
func enumWords(enum []any) []string {
	var out []string
	for _, v := range enum {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// sortParams orders params by name: map order must not reach the index.
func sortParams(ps []toolsearch.Param) []toolsearch.Param {
	slices.SortFunc(ps, func(a, b toolsearch.Param) int { return strings.Compare(a.Name, b.Name) })
	return ps
}
