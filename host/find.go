package host

import (
	"fmt"
	"slices"
	"strings"
)

// NameError is a name that names no tool or prompt: nothing, or the own
// name of several.
type NameError struct {
	Kind Kind
	Name string
	// Near are the closest names to Name, best first ("did you mean");
	// for an ambiguous Name, all it names.
	Near      []Named
	Ambiguous bool
}

func (e *NameError) Error() string {
	names := make([]string, len(e.Near))
	for i, n := range e.Near {
		names[i] = n.Exposed
	}
	switch {
	case e.Ambiguous:
		return fmt.Sprintf("%s name %q is ambiguous: %s", e.Kind, e.Name, strings.Join(names, ", "))
	case len(names) > 0:
		return fmt.Sprintf("no %s named %q; did you mean %s?", e.Kind, e.Name, strings.Join(quotedAll(names), " or "))
	}
	return fmt.Sprintf("no %s named %q", e.Kind, e.Name)
}

// Is makes an unknown tool's NameError ErrUnknownTool.
func (e *NameError) Is(target error) bool { return target == ErrUnknownTool && e.Kind == KindTool }

func quotedAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// DownError is a name of a server that has no list to look it up in: it
// is not connected and knows no tools (no cache), or no prompts.
type DownError struct {
	Server string
	State  State
	Err    error // the server's own error, secrets masked; nil when it has none
}

func (e *DownError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("server %q is %s", e.Server, e.State)
	}
	return fmt.Sprintf("server %q is %s: %v", e.Server, e.State, e.Err)
}

func (e *DownError) Unwrap() error { return e.Err }

// Find is what a person's name for a tool or prompt names (DESIGN.md
// F20): its exposed name, or another spelling a person sees of it, under
// the default prefix or none (mcp__everything__echo, everything__echo)
// and server/name (everything/echo), or its server's own name for it when
// no other server has that name. A resource or template is named by its
// URI alone. A name that names nothing is a *NameError with the nearest
// names; a name of a server that has no list to look in, a *DownError.
func (h *Host) Find(kind Kind, name string) (Named, error) {
	return h.View(ViewFilter{}).Find(kind, name)
}

// Find is Host.Find among what the view shows.
func (v *View) Find(kind Kind, name string) (Named, error) {
	h := v.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.flushLocked(kind)
	book := &h.names[kind]
	if k, ok := book.index[name]; ok && v.showsName(kind, k.server, name) {
		return Named{name, Ref{k.server, k.tool}}, nil
	}
	var all []Named
	for exposed, k := range book.index {
		if v.showsName(kind, k.server, exposed) {
			all = append(all, Named{exposed, Ref{k.server, k.tool}})
		}
	}
	slices.SortFunc(all, func(a, b Named) int { return strings.Compare(a.Exposed, b.Exposed) })
	if kind == KindTool || kind == KindPrompt {
		for _, match := range []func(Named) bool{
			func(n Named) bool { return slices.Contains(h.spellings(n), name) },
			func(n Named) bool { return n.Name == name },
		} {
			var found []Named
			for _, n := range all {
				if match(n) {
					found = append(found, n)
				}
			}
			switch len(found) {
			case 0:
				continue
			case 1:
				return found[0], nil
			}
			return Named{}, &NameError{Kind: kind, Name: name, Near: found, Ambiguous: true}
		}
		if s := v.serverOfLocked(kind, name); s != nil && !s.listsLocked(kind) {
			return Named{}, &DownError{Server: s.cfg.Name, State: s.stateLocked(), Err: h.redactor.Error(s.err)}
		}
	}
	return Named{}, &NameError{Kind: kind, Name: name, Near: near(all, name, h.spellings)}
}

// spellings are the names a person may see for n besides its exposed
// name: server/name, and the exposed name under the default prefix and
// under none, each with the server's and the tool's names as they are
// and as naming makes them valid.
func (h *Host) spellings(n Named) []string {
	valid := sanitizeNamePart(n.Server) + "__" + sanitizeNamePart(n.Name)
	raw := n.Server + "__" + n.Name
	bare := strings.TrimPrefix(n.Exposed, h.opts.ToolPrefix)
	return []string{n.Server + "/" + n.Name, valid, DefaultToolPrefix + valid, h.opts.ToolPrefix + valid,
		raw, DefaultToolPrefix + raw, bare, DefaultToolPrefix + bare}
}

// serverOfLocked is the server a name of a thing that is not there
// belongs to: the server of a departed name, or the one whose name
// starts it in a spelling of spellings (the longest such).
func (v *View) serverOfLocked(kind Kind, name string) *server {
	h := v.h
	if k, ok := h.names[kind].departed[name]; ok && v.showsName(kind, k.server, name) {
		return h.servers[k.server]
	}
	var best *server
	longest := 0
	for server, s := range h.servers {
		if !v.f.ShowsServer(server) {
			continue
		}
		valid := sanitizeNamePart(server)
		for _, prefix := range []string{h.opts.ToolPrefix + valid + "__", valid + "__", DefaultToolPrefix + valid + "__",
			server + "__", DefaultToolPrefix + server + "__", server + "/"} {
			if len(name) > len(prefix) && strings.HasPrefix(name, prefix) && len(prefix) > longest {
				best, longest = s, len(prefix)
			}
		}
	}
	return best
}

// listsLocked reports whether the server has a list of kind to look a
// name up in: tools live or cached, prompts of a connection.
func (s *server) listsLocked(kind Kind) bool {
	if kind == KindTool {
		return s.offerLocked() != offerNone
	}
	return s.session != nil
}

// nearMax is how many names a "did you mean" offers.
const nearMax = 3

// near are the names of all closest to name, when close enough to be a
// slip (an edit or two, more in a long name), best first.
func near(all []Named, name string, spellings func(Named) []string) []Named {
	limit := max(2, len(name)/5)
	best := limit + 1
	var out []Named
	for _, n := range all {
		d := editDistance(name, n.Exposed)
		for _, s := range append(spellings(n), n.Name) {
			d = min(d, editDistance(name, s))
		}
		switch {
		case d < best:
			best, out = d, []Named{n}
		case d == best && len(out) < nearMax:
			out = append(out, n)
		}
	}
	return out
}

// editDistance counts the insertions, deletions, substitutions and swaps
// of neighbours that make a into b (optimal string alignment), by bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// NearNames are those of names closest to name when close enough to be a
// slip, best first, at most three: the "did you mean" of a name that names
// nothing, such as a server a command was told to narrow to.
func NearNames(names []string, name string) []string {
	all := make([]Named, len(names))
	for i, n := range names {
		all[i] = Named{Exposed: n, Ref: Ref{Name: n}}
	}
	var out []string
	for _, n := range near(all, name, func(Named) []string { return nil }) {
		out = append(out, n.Exposed)
	}
	return out
}
