package source

import (
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/config/internal/doc"
)

// These recognise a file's format for Provider.Sniff.

// nameIs reports whether path ends in one of the slash-separated
// suffixes, as "/.cursor/mcp.json".
func nameIs(path string, suffixes ...string) bool {
	p := filepath.ToSlash(path)
	for _, s := range suffixes {
		if strings.HasSuffix(p, s) || (strings.HasPrefix(s, "/") && p == s[1:]) {
			return true
		}
	}
	return false
}

// slashSuffix reports whether path, with forward slashes, ends in suffix
// at a path element boundary ("zed/settings.json").
func slashSuffix(path, suffix string) bool {
	p := filepath.ToSlash(path)
	return p == suffix || strings.HasSuffix(p, "/"+suffix)
}

// extIs reports whether path ends in one of exts (".yaml"), in any case.
func extIs(path string, exts ...string) bool {
	ext := filepath.Ext(path)
	for _, x := range exts {
		if strings.EqualFold(ext, x) {
			return true
		}
	}
	return false
}

// topLevelKey reports whether data is a JSON (or JSONC) object with key
// at its top level.
func topLevelKey(data []byte, key string) bool {
	return data != nil && doc.HasTopLevelKey(data, key)
}

// entriesHaveKey reports whether any entry under servers in data has key:
// a "serverUrl" says Windsurf.
func entriesHaveKey(data []byte, servers, key string) bool {
	if data == nil {
		return false
	}
	d, err := doc.ParseJSON("", data, true)
	if err != nil || d.Root == nil || d.Root.Kind != doc.Object {
		return false
	}
	obj := d.Root.Member(servers)
	if obj == nil || obj.Kind != doc.Object {
		return false
	}
	for _, m := range obj.Members {
		if m.Val.Kind == doc.Object && m.Val.Member(key) != nil {
			return true
		}
	}
	return false
}
