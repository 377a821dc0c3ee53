package host

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxToolNameLength is the longest exposed tool name. Model APIs accept
// ^[a-zA-Z0-9_-]{1,64}$; a longer name would make the whole request fail.
const MaxToolNameLength = 64

// DefaultToolPrefix starts every exposed tool name, so a model (and a
// person reading its transcript) can tell MCP tools from built-in ones.
const DefaultToolPrefix = "mcp__"

// hashLen is how many hex digits of a hash make a cut name unique again.
const hashLen = 8

// sanitizeNamePart replaces every character a model API would reject
// with "_": one "_" per character, as a multi-byte one is one character,
// and one per byte that is not UTF-8. Digits stay: tools s3 and s4 must
// not collide. A byte loop, not a regexp: every tool of every server is
// named on a connect, and the common name has nothing to replace.
func sanitizeNamePart(s string) string {
	if s == "" {
		return "_"
	}
	i := 0
	for i < len(s) && nameByte(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for _, r := range s[i:] {
		if r < utf8.RuneSelf && nameByte(byte(r)) {
			b = append(b, byte(r))
		} else {
			b = append(b, '_')
		}
	}
	return string(b)
}

// nameByte reports whether c may stand in an exposed name as it is.
func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// toolKey is what an exposed name stands for: a server, and its own name
// for a tool or a prompt (or a resource's URI, a template's).
type toolKey struct{ server, tool string }

func (k toolKey) hash() string {
	sum := sha256.Sum256([]byte(k.server + "\x00" + k.tool))
	return hex.EncodeToString(sum[:])
}

// withHash cuts name so that "_" and n hash digits fit and appends them.
func withHash(name string, k toolKey, n int) string {
	keep := MaxToolNameLength - 1 - n
	if len(name) > keep {
		name = name[:keep]
	}
	return name + "_" + k.hash()[:n]
}

// assignNames gives every (server, tool) a distinct valid exposed name:
// prefix + server + "__" + tool, each part sanitized. A name over the limit
// is cut and given a hash suffix, which keeps it unique and stable across
// runs.
//
// prev holds the names given before. A tool that had a name keeps it for
// as long as it is listed: an exposed name never moves to another server's
// tool while both live, so a server that adds a tool at run time cannot
// take over a name an agent already uses (servers "a" and "a__b" can both
// spell mcp__a__b__echo). Among the tools new to this call, the one whose
// (server, tool) sorts first gets a free plain name; a tool whose plain
// name is taken gets a hash suffix, and the clash is returned, once, for
// the host to report. With no prev, the outcome depends only on keys.
func assignNames(prefix string, keys []toolKey, prev map[toolKey]string) (map[toolKey]string, []string) {
	return assignNamesAs(KindTool, prefix, false, keys, prev)
}

// assignNamesAs is assignNames for tools or prompts (kind names them in
// the clashes); with passThrough, a tool's first choice is its own name
// (sanitized), and only a tool whose own name is taken by another
// server's gets prefix + server + "__" + tool (Options.PassThroughNames).
func assignNamesAs(kind Kind, prefix string, passThrough bool, keys []toolKey, prev map[toolKey]string) (map[toolKey]string, []string) {
	names := make(map[toolKey]string, len(keys))
	taken := make(map[string]toolKey, len(keys))
	var fresh []toolKey
	for _, k := range keys {
		if name, ok := prev[k]; ok {
			names[k] = name
			taken[name] = k
		} else {
			fresh = append(fresh, k)
		}
	}
	slices.SortFunc(fresh, compareKeys)
	var collisions []string
	for _, k := range fresh {
		if _, done := names[k]; done {
			continue // listed twice
		}
		name := prefix + sanitizeNamePart(k.server) + "__" + sanitizeNamePart(k.tool)
		if own := sanitizeNamePart(k.tool); passThrough && len(own) <= MaxToolNameLength {
			if _, clash := taken[own]; !clash {
				name = own
			} else {
				collisions = append(collisions, kind.String()+" "+k.server+"/"+k.tool+" and "+taken[own].server+"/"+taken[own].tool+" both want the name "+own+"; "+k.server+"'s is "+name)
			}
		}
		if len(name) > MaxToolNameLength {
			name = withHash(name, k, hashLen)
		}
		if other, clash := taken[name]; clash {
			collisions = append(collisions, kind.String()+" "+k.server+"/"+k.tool+" and "+other.server+"/"+other.tool+" both map to "+name)
			for n := hashLen; ; n++ {
				cand := withHash(name, k, min(n, 63))
				if _, clash := taken[cand]; !clash || n >= 63 {
					name = cand
					break
				}
			}
		}
		names[k] = name
		taken[name] = k
	}
	return names, collisions
}

// assignOwners gives each URI (a resource's, or a template's) one owner
// among the servers that list it, keys being (server, URI): the server
// that owned it before while it still lists it (prev, as assignNames
// keeps names), or while it is away (not connected, and coming back),
// else the first by name. A URI is what a server reads, so it is never
// renamed: the others' are left without a name, and returned.
func assignOwners(keys []toolKey, prev map[toolKey]string, away func(server string) bool) (map[toolKey]string, []toolKey) {
	owners := make(map[toolKey]string, len(keys))
	owner := make(map[string]toolKey, len(keys))
	for k := range prev {
		if away(k.server) {
			owner[k.tool] = k // kept for its server, which lists nothing now
		}
	}
	var fresh []toolKey
	for _, k := range keys {
		if _, ok := prev[k]; ok {
			owners[k], owner[k.tool] = k.tool, k
		} else {
			fresh = append(fresh, k)
		}
	}
	slices.SortFunc(fresh, compareKeys)
	var shadowed []toolKey
	for _, k := range fresh {
		switch other, taken := owner[k.tool]; {
		case !taken:
			owners[k], owner[k.tool] = k.tool, k
		case other != k: // not listed twice by one server
			shadowed = append(shadowed, k)
		}
	}
	return owners, shadowed
}

func compareKeys(a, b toolKey) int {
	if c := strings.Compare(a.server, b.server); c != 0 {
		return c
	}
	return strings.Compare(a.tool, b.tool)
}
