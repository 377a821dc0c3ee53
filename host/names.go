package host

// The host owns every exposed name (DESIGN.md F20, "Names"): a tool's
// and a prompt's (prefix + server + "__" + its own name, made valid and
// unique by naming.go), and a resource's or template's (its URI, owned by
// one server). A name stays with what it named while that is listed, and
// comes back with its server after a reconnect. A gateway and the command
// line ask: Resolve, Exposed, Find.

// Kind is what an exposed name names.
type Kind int

const (
	KindTool Kind = iota
	KindPrompt
	KindResource // named by its URI
	KindTemplate // a resource template, named by its URI template
	kinds
)

var kindNames = [...]string{"tool", "prompt", "resource", "resource template"}

func (k Kind) String() string { return kindNames[k] }

// Ref is what an exposed name stands for: a server, and its own name for
// the tool or prompt (a resource's URI, a template's URI template).
type Ref struct {
	Server string
	Name   string
}

// Named is an exposed name and what it stands for.
type Named struct {
	Exposed string
	Ref
}

// nameBook holds the exposed names of one kind.
type nameBook struct {
	index    map[string]toolKey // exposed name → what it stands for
	byKey    map[toolKey]string // the other way
	departed map[string]toolKey // names that left while their server stayed configured
	shadowed map[toolKey]bool   // a URI another server owns (resources, templates)
}

// prev is every name the book gave, departed ones too: a server that
// comes back gets its names back.
func (b *nameBook) prev() map[toolKey]string {
	prev := make(map[toolKey]string, len(b.index)+len(b.departed))
	for name, k := range b.departed {
		prev[k] = name
	}
	for name, k := range b.index {
		prev[k] = name
	}
	return prev
}

// putLocked makes next the book's names. A name that leaves while its
// server stays configured (stays) is kept as departed, so a call to it
// can say why it is gone and the server gets it back; a departed name
// back in next, or whose server went, is forgotten. Only the catalog's
// writer calls it (changeCatalogLocked).
func (b *nameBook) putLocked(next map[string]toolKey, stays func(server string) bool) {
	if b.departed == nil {
		b.departed = map[string]toolKey{}
	}
	for name, k := range b.index {
		if _, still := next[name]; !still {
			b.departed[name] = k
		}
	}
	for name, k := range b.departed {
		if _, back := next[name]; back || !stays(k.server) {
			delete(b.departed, name)
		}
	}
	b.index = next
	b.byKey = make(map[toolKey]string, len(next))
	for name, k := range next {
		b.byKey[k] = name
	}
}

// staysLocked reports whether server is configured and not on its way out.
func (h *Host) staysLocked(server string) bool {
	s := h.servers[server]
	return s != nil && !s.phase.removed()
}

// rebuildNamesLocked names the prompts, resources and templates of every
// connected server, each keeping the name it had. Only the catalog's
// writer calls it, when a reader needs the names (flushNamesLocked).
func (h *Host) rebuildNamesLocked() {
	h.namesDirty = false
	var prompts, resources, templates []toolKey
	for name, s := range h.servers {
		x, _ := s.extrasLocked() // what Prompts and Resources show
		for _, p := range x.Prompts {
			prompts = append(prompts, toolKey{name, p.Name})
		}
		for _, r := range x.Resources {
			resources = append(resources, toolKey{name, r.URI})
		}
		for _, t := range x.Templates {
			templates = append(templates, toolKey{name, t.URITemplate})
		}
	}
	names, collisions := assignNamesAs(KindPrompt, h.opts.ToolPrefix, h.opts.PassThroughNames, prompts, h.names[KindPrompt].prev())
	for _, c := range collisions {
		h.log.Warn("prompt name collision resolved", "detail", c)
	}
	h.names[KindPrompt].putLocked(byName(names), h.staysLocked)
	// A URI stays its owner's while the owner reconnects, though another
	// server lists it meanwhile.
	away := func(server string) bool { return h.staysLocked(server) && h.servers[server].session == nil }
	for kind, keys := range map[Kind][]toolKey{KindResource: resources, KindTemplate: templates} {
		b := &h.names[kind]
		owners, shadowed := assignOwners(keys, b.prev(), away)
		was := b.shadowed
		b.shadowed = make(map[toolKey]bool, len(shadowed))
		for _, k := range shadowed {
			b.shadowed[k] = true
			if !was[k] { // said once
				h.log.Warn(kind.String()+" left out: another server has its URI", "server", k.server, "uri", k.tool)
			}
		}
		b.putLocked(byName(owners), h.staysLocked)
	}
}

// byName turns names by key into keys by name.
func byName(names map[toolKey]string) map[string]toolKey {
	out := make(map[string]toolKey, len(names))
	for k, name := range names {
		out[name] = k
	}
	return out
}

// flushNamesLocked names what was listed since the names were last made,
// for a reader about to look at them.
func (h *Host) flushNamesLocked() { h.changeCatalogLocked(nil, catalogChange{op: catalogFlushNames}) }

// flushLocked publishes what is pending of kind's names.
func (h *Host) flushLocked(kind Kind) {
	if kind == KindTool {
		h.flushToolsLocked()
	} else {
		h.flushNamesLocked()
	}
}

// Resolve is what an exposed name stands for: a tool's or a prompt's
// exposed name, a resource's URI, a template's URI template.
func (h *Host) Resolve(kind Kind, exposed string) (Ref, bool) {
	return h.View(ViewFilter{}).Resolve(kind, exposed)
}

// Exposed is the exposed name of a server's tool, prompt, resource or
// template: Resolve the other way.
func (h *Host) Exposed(kind Kind, ref Ref) (string, bool) {
	return h.View(ViewFilter{}).Exposed(kind, ref)
}

// Resolve is Host.Resolve for what the view shows.
func (v *View) Resolve(kind Kind, exposed string) (Ref, bool) {
	h := v.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.flushLocked(kind)
	k, ok := h.names[kind].index[exposed]
	if !ok || !v.showsName(kind, k.server, exposed) {
		return Ref{}, false
	}
	return Ref{Server: k.server, Name: k.tool}, true
}

// Exposed is Host.Exposed for what the view shows.
func (v *View) Exposed(kind Kind, ref Ref) (string, bool) {
	h := v.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.flushLocked(kind)
	name, ok := h.names[kind].byKey[toolKey{ref.Server, ref.Name}]
	if !ok || !v.showsName(kind, ref.Server, name) {
		return "", false
	}
	return name, true
}
