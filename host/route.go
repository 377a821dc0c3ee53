package host

import (
	"sync"

	"github.com/yosida95/uritemplate/v3"
)

// ResourceServer is the server a read of uri (or a subscription to it)
// goes to in the view, whatever order a client library would try the
// templates in (DESIGN.md, "Names"): the server that lists the resource;
// else the one whose template matches uri most closely, the one with the
// most literal characters; ties to the server first in the configs'
// order. A template that matches everything (file:///{+a}) never takes a
// URI from a closer one, and no server takes one from an earlier server
// by its name sorting first. ok is false when nothing the view shows
// matches.
func (v *View) ResourceServer(uri string) (server string, ok bool) {
	resources, templates := v.Resources()
	for _, r := range resources {
		if r.URI == uri {
			return r.Server, true
		}
	}
	h := v.h
	h.mu.Lock()
	rank := make(map[string]int, len(h.order))
	for i, name := range h.order {
		rank[name] = i
	}
	h.mu.Unlock()
	best, bestScore := "", -1
	for _, t := range templates {
		re := compiledTemplate(t.URITemplate)
		if re == nil || !re.Regexp().MatchString(uri) {
			continue
		}
		score := literalLen(t.URITemplate)
		if score > bestScore || score == bestScore && rank[t.Server] < rank[best] {
			best, bestScore = t.Server, score
		}
	}
	return best, bestScore >= 0
}

// literalLen is how many characters of a URI template are literal, not
// inside an expression.
func literalLen(tpl string) int {
	n, depth := 0, 0
	for _, c := range tpl {
		switch {
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case depth == 0:
			n++
		}
	}
	return n
}

// templateCache holds compiled URI templates, so a read compiles none
// twice; a template that does not compile is kept as nil. It is emptied
// when it holds maxCachedTemplates: servers list as many as they like.
var templateCache struct {
	sync.Mutex
	m map[string]*uritemplate.Template
}

const maxCachedTemplates = 4096

func compiledTemplate(tpl string) *uritemplate.Template {
	templateCache.Lock()
	defer templateCache.Unlock()
	if t, ok := templateCache.m[tpl]; ok {
		return t
	}
	if templateCache.m == nil || len(templateCache.m) >= maxCachedTemplates {
		templateCache.m = map[string]*uritemplate.Template{}
	}
	t, err := uritemplate.New(tpl)
	if err != nil {
		t = nil
	}
	templateCache.m[tpl] = t
	return t
}
