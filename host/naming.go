package host

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sort"
)

// MaxToolNameLength is the longest exposed tool name. Model APIs accept
// ^[a-zA-Z0-9_-]{1,64}$; a longer name would make the whole request fail.
const MaxToolNameLength = 64

// DefaultToolPrefix starts every exposed tool name, so a model (and a
// person reading its transcript) can tell MCP tools from built-in ones.
const DefaultToolPrefix = "mcp__"

// hashLen is how many hex digits of a hash make a cut name unique again.
const hashLen = 8

var unsafeNameChars = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// sanitizeNamePart replaces every character a model API would reject.
// Digits stay: tools s3 and s4 must not collide.
func sanitizeNamePart(s string) string {
	if s == "" {
		return "_"
	}
	return unsafeNameChars.ReplaceAllString(s, "_")
}

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
// runs. When two tools still land on one name, the one whose (server, tool)
// sorts first keeps it and the other gets a hash suffix: deterministic, so
// names do not flip between runs. It returns the collisions it resolved.
func assignNames(prefix string, keys []toolKey) (map[toolKey]string, []string) {
	sorted := append([]toolKey(nil), keys...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].server != sorted[j].server {
			return sorted[i].server < sorted[j].server
		}
		return sorted[i].tool < sorted[j].tool
	})
	names := make(map[toolKey]string, len(keys))
	taken := make(map[string]toolKey, len(keys))
	var collisions []string
	for _, k := range sorted {
		name := prefix + sanitizeNamePart(k.server) + "__" + sanitizeNamePart(k.tool)
		if len(name) > MaxToolNameLength {
			name = withHash(name, k, hashLen)
		}
		if other, clash := taken[name]; clash {
			collisions = append(collisions, "tool "+k.server+"/"+k.tool+" and "+other.server+"/"+other.tool+" both map to "+name)
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
