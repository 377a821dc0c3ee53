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
// when its name, its parameters or its description shares a word with
// the query. The index is built once per version of the tool set.
func (h *Host) SearchTools(query string, k int) []Tool {
	return h.search.find(h.Tools(), query, k, nil)
}

// SearchTools is Host.SearchTools over the tools the view shows.
func (v *View) SearchTools(query string, k int) []Tool {
	return v.h.search.find(v.h.Tools(), query, k, v.shows)
}

// find searches set's index, building it when set is newer than the one
// indexed, and keeps the first k hits that keep accepts (nil keeps all).
func (c *searchCache) find(set ToolSet, query string, k int, keep func(Tool) bool) []Tool {
	ix, byName := c.index(set)
	limit := k
	if keep != nil {
		limit = 0 // a view may hide any of the first k
	}
	var out []Tool
	for _, hit := range ix.Search(query, limit) {
		t := byName[hit.ID]
		if keep != nil && !keep(t) {
			continue
		}
		out = append(out, t)
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
		docs[i] = toolsearch.Doc{ID: t.Name, Name: t.Name, Description: t.Title + "\n" + t.Description, Params: params(t.InputSchema)}
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

// params reads the top-level properties of an input schema: whatever
// shape it came in (a decoded map from a server, or the cache's JSON).
func params(schema any) []toolsearch.Param {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
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
			out = append(out, toolsearch.Param{Name: name, Description: desc})
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
		out = append(out, toolsearch.Param{Name: name, Description: p.Description})
	}
	return sortParams(out)
}

// sortParams orders params by name: map order must not reach the index.
func sortParams(ps []toolsearch.Param) []toolsearch.Param {
	slices.SortFunc(ps, func(a, b toolsearch.Param) int { return strings.Compare(a.Name, b.Name) })
	return ps
}
