// Package toolcache keeps each server's last tool list on disk, so a host can
// offer a slow server's tools (deferred) before the server has answered
// (DESIGN.md F13, F15), and with them its prompts, resources and resource
// templates.
package toolcache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// Version is the entry format. An entry of another version is ignored and
// rewritten on the next successful listing.
const Version = 1

// MaxAge is how long an entry stands in for a server that has not answered.
// Tool lists change rarely; a month-old list is still a good guess, and a
// wrong guess costs only a refresh once the server connects.
const MaxAge = 30 * 24 * time.Hour

// Cache is a directory of entries, one file per server identity. A nil
// *Cache is a valid cache that holds nothing.
type Cache struct {
	dir string
	now func() time.Time
}

// Open returns the cache in dir; the directory is created on first write.
// An empty dir means no cache.
func Open(dir string) *Cache {
	if dir == "" {
		return nil
	}
	return &Cache{dir: filepath.Join(dir, "tools"), now: time.Now}
}

type entry struct {
	Version     int         `json:"version"`
	Server      string      `json:"server"`
	Fingerprint string      `json:"fingerprint"`
	Saved       time.Time   `json:"saved"`
	Tools       []*mcp.Tool `json:"tools"`
	Protocol    string      `json:"protocol,omitempty"`
	// Expires is when the tools stop being good, from the server's ttl
	// hint (2026-07-28); zero for none.
	Expires time.Time `json:"expires,omitzero"`
	// Extras are the rest of the catalog; absent in an entry written
	// before they were kept, or before the server listed them.
	Extras *Extras `json:"extras,omitempty"`
}

// Extras are what a server lists besides its tools. Each list is empty,
// not nil, for a server that lists none.
type Extras struct {
	Resources []*mcp.Resource         `json:"resources"`
	Templates []*mcp.ResourceTemplate `json:"templates"`
	Prompts   []*mcp.Prompt           `json:"prompts"`
}

// Entry is what the cache keeps of a server: its tools, and the protocol
// version it spoke, so the next start speaks it at once (DESIGN.md,
// "Protocol eras").
//
// A server of the 2026-07-28 era says how long its list stays good (ttl,
// SEP-2549): once that has passed, Load marks the entry Stale.
type Entry struct {
	Tools    []*mcp.Tool
	Protocol string
	// Stale, from Load, says the server's ttl for the list has passed.
	Stale bool
	// Expires, for Store, is when the server says the list goes stale
	// (now, for a ttl of zero); zero for no hint.
	Expires time.Time
	// Extras are the server's other lists; nil when not known. An entry
	// too large with them is stored without them: the tools matter more.
	Extras *Extras
}

// Fingerprint identifies what a server config connects to: its
// Identity (command, args, cwd and env, or url and headers), and the
// project directory for project-level servers. A changed secret or another
// project gives another fingerprint, so stale tools are never served.
func Fingerprint(cfg *config.ServerConfig, projectDir string) string {
	return fingerprint(cfg.Identity(), cfg, projectDir)
}

// PlaceFingerprint is Fingerprint of the server's Place: the same for a
// server whose credentials changed, and what its tool pins are kept by.
func PlaceFingerprint(cfg *config.ServerConfig, projectDir string) string {
	return fingerprint(cfg.Place(), cfg, projectDir)
}

func fingerprint(id string, cfg *config.ServerConfig, projectDir string) string {
	h := sha256.New()
	h.Write([]byte(id))
	if cfg.Source.Level == config.LevelProject {
		fmt.Fprintf(h, "project %d:%s;", len(projectDir), projectDir)
	}
	return hex.EncodeToString(h.Sum(nil))
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

func (c *Cache) path(server, fingerprint string) string {
	name := unsafeChars.ReplaceAllString(server, "_")
	if len(name) > 64 {
		name = name[:64]
	}
	return filepath.Join(c.dir, name+"-"+fingerprint[:16]+".json")
}

// Load returns the cached entry of a server, or false when there is no
// usable entry (missing, corrupt, other version or fingerprint, expired).
func (c *Cache) Load(server, fingerprint string) (Entry, bool) {
	if c == nil {
		return Entry{}, false
	}
	data, err := safefile.ReadLimited(c.path(server, fingerprint), safefile.MaxConfigSize)
	if err != nil {
		return Entry{}, false
	}
	var e entry
	if err := json.Unmarshal(data, &e); err != nil {
		return Entry{}, false
	}
	if e.Version != Version || e.Server != server || e.Fingerprint != fingerprint ||
		c.now().Sub(e.Saved) > MaxAge || e.Tools == nil {
		return Entry{}, false
	}
	stale := !e.Expires.IsZero() && !c.now().Before(e.Expires)
	if x := e.Extras; x != nil && (x.Resources == nil || x.Templates == nil || x.Prompts == nil) {
		e.Extras = nil // not one this package wrote
	}
	return Entry{Tools: e.Tools, Protocol: e.Protocol, Stale: stale, Extras: e.Extras}, true
}

// Store writes a server's entry atomically (internal/safefile), so a
// reader never sees half an entry.
func (c *Cache) Store(server, fingerprint string, ent Entry) error {
	if c == nil {
		return nil
	}
	tools := ent.Tools
	if tools == nil {
		tools = []*mcp.Tool{}
	}
	e := entry{Version: Version, Server: server, Fingerprint: fingerprint, Saved: c.now().UTC(), Tools: tools, Protocol: ent.Protocol, Expires: ent.Expires.UTC()}
	if x := ent.Extras; x != nil {
		e.Extras = &Extras{Resources: orEmpty(x.Resources), Templates: orEmpty(x.Templates), Prompts: orEmpty(x.Prompts)}
	}
	data, err := json.Marshal(e)
	if err == nil && len(data) > safefile.MaxConfigSize && e.Extras != nil {
		e.Extras = nil
		data, err = json.Marshal(e)
	}
	if err != nil {
		return fmt.Errorf("tool cache: %w", err)
	}
	if len(data) > safefile.MaxConfigSize {
		// Load would not read it back.
		return fmt.Errorf("tool cache: server %q: %d tools make %d bytes, more than the %d a cache entry may hold", server, len(tools), len(data), safefile.MaxConfigSize)
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return fmt.Errorf("tool cache: %w", err)
	}
	if err := safefile.WriteAtomic(c.path(server, fingerprint), data, 0o600); err != nil {
		return fmt.Errorf("tool cache: %w", err)
	}
	return nil
}

// Remove deletes a server's entry; a missing entry is not an error.
func (c *Cache) Remove(server, fingerprint string) error {
	if c == nil {
		return nil
	}
	err := os.Remove(c.path(server, fingerprint))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
