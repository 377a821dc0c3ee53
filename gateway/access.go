package gateway

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// Access maps the users a token verifier names to the profiles they may
// see and call (DESIGN.md F65). It applies to requests whose context has
// an *auth.TokenInfo (go-sdk's auth.RequireBearerToken puts it there):
// a caller with the shared HTTPOptions.Token, or none on loopback, is
// the gateway's operator and sees HTTPOptions.Filter whole.
type Access struct {
	// Profiles are the views by name.
	Profiles map[string]host.ViewFilter
	// Users and Groups name each user's (TokenInfo.UserID) and each
	// group's profiles. A caller sees the union of every profile named
	// for them, within HTTPOptions.Filter.
	Users, Groups map[string][]string
	// Claim is the TokenInfo.Extra key that lists a caller's groups: an
	// array of strings, or one string of names apart by spaces or
	// commas. Empty means "groups".
	Claim string
	// Default are the profiles of a caller no user or group names. Empty:
	// such a caller is refused (403), fail closed.
	Default []string
}

// errNoProfile is a caller no rule of Access gives a profile.
var errNoProfile = errors.New("no profile")

// maxAccessCache bounds the callers whose views are remembered: past it
// the memory starts over (a caller's view is cheap to work out again).
const maxAccessCache = 4096

// access resolves callers to views for one Handler: the views of callers
// with the same user and groups are worked out once.
type access struct {
	rules *Access
	base  host.ViewFilter

	mu    sync.Mutex
	cache map[string]accessView
}

type accessView struct {
	filter   host.ViewFilter
	narrowed bool // the caller sees less than base
	err      error
}

func newAccess(rules *Access, base host.ViewFilter) *access {
	return &access{rules: rules, base: base, cache: map[string]accessView{}}
}

// filterOf is the view of a caller ti names: base for one without a
// TokenInfo or when no Access is set, narrowed reports whether it is
// less than base, and errNoProfile refuses a caller no rule admits.
func (a *access) filterOf(ti *auth.TokenInfo) (filter host.ViewFilter, narrowed bool, err error) {
	if a.rules == nil || ti == nil {
		return a.base, false, nil
	}
	groups := groupsOf(ti.Extra[a.claim()])
	key := ti.UserID + "\x00" + strings.Join(groups, "\x00")
	a.mu.Lock()
	defer a.mu.Unlock()
	if v, ok := a.cache[key]; ok {
		return v.filter, v.narrowed, v.err
	}
	v := a.resolve(ti.UserID, groups)
	if len(a.cache) >= maxAccessCache {
		clear(a.cache)
	}
	a.cache[key] = v
	return v.filter, v.narrowed, v.err
}

func (a *access) claim() string {
	if a.rules.Claim == "" {
		return "groups"
	}
	return a.rules.Claim
}

// resolve works out the view of user in groups: the union of their
// profiles, within base.
func (a *access) resolve(user string, groups []string) accessView {
	names := map[string]bool{}
	if user != "" {
		for _, p := range a.rules.Users[user] {
			names[p] = true
		}
	}
	for _, g := range groups {
		for _, p := range a.rules.Groups[g] {
			names[p] = true
		}
	}
	if len(names) == 0 {
		for _, p := range a.rules.Default {
			names[p] = true
		}
	}
	filter := a.base
	seen := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		p, ok := a.rules.Profiles[name]
		if !ok {
			continue // a rule naming no profile gives nothing: fail closed
		}
		if showsAll(p) {
			return accessView{filter: a.base} // one profile shows all: the union is all
		}
		if k := viewKey(p); !seen[k] {
			seen[k] = true
			filter.AnyOf = append(filter.AnyOf, p)
		}
	}
	if len(filter.AnyOf) == 0 {
		who := "this caller"
		if user != "" {
			who = fmt.Sprintf("user %q", clip.Text(user))
		}
		return accessView{err: fmt.Errorf("%w: no profile gives %s access here (the gateway's \"access\" rules)", errNoProfile, who)}
	}
	return accessView{filter: filter, narrowed: true}
}

// showsAll reports whether f shows everything.
func showsAll(f host.ViewFilter) bool {
	return len(f.Servers) == 0 && len(f.Tools.Allow) == 0 && len(f.Tools.Deny) == 0 && len(f.AnyOf) == 0
}

// groupsOf reads a groups claim: an array of strings (JSON's []any, or
// []string from a verifier of one's own), or one string of names apart
// by spaces or commas. Anything else names no group. Sorted, each once.
func groupsOf(claim any) []string {
	var out []string
	switch c := claim.(type) {
	case []any:
		for _, g := range c {
			if s, ok := g.(string); ok && s != "" {
				out = append(out, s)
			}
		}
	case []string:
		for _, s := range c {
			if s != "" {
				out = append(out, s)
			}
		}
	case string:
		out = strings.FieldsFunc(c, func(r rune) bool { return r == ' ' || r == ',' })
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sessionView is the view that holds the legacy session of that id, nil
// when none here does.
func (g *Gateway) sessionView(id string, first *view) *view {
	if first != nil {
		for ss := range first.srv.Sessions() {
			if ss.ID() == id {
				return first
			}
		}
	}
	var found *view
	g.each(func(v *view) {
		if found != nil || v == first {
			return
		}
		for ss := range v.srv.Sessions() {
			if ss.ID() == id {
				found = v
				return
			}
		}
	})
	return found
}

// sessionAllowed reports whether a request that names a legacy session
// may use it: with access rules, only a caller whose view is the
// session's (go-sdk binds a session to its user, when it began with
// one; this binds it to a view, so that no caller widens theirs with a
// session the operator or a wider profile began). A session no view here
// holds is go-sdk's to answer.
func (g *Gateway) sessionAllowed(r *http.Request, v *view, rules bool) bool {
	id := r.Header.Get("Mcp-Session-Id")
	if !rules || id == "" {
		return true
	}
	held := g.sessionView(id, v)
	return held == nil || held == v
}

// handlerTag keeps a Handler's limits for its calls, and returns the tag
// its requests carry ("" without limits).
func (g *Gateway) handlerTag(opts HTTPOptions) string {
	if opts.Limits == nil {
		return ""
	}
	return g.addHandler(&handlerState{limits: opts.Limits, store: opts.Store})
}
