// Package trust remembers which projects a person trusted, and with which
// config files (DESIGN.md F6): a project's config can start programs, and a
// cloned repository is someone else's (DESIGN.md, "Trust").
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// A project's servers connect only once the person has trusted the
// project. Trust is remembered in
// <state dir>/trust.json per absolute project path, with a hash of every
// project-level config file discovery read there: a changed, added or
// removed file needs trust again.

// FileName is the trust store's file name in the state directory.
const FileName = "trust.json"

// ProjectFile is one project-level config file as discovery read it.
type ProjectFile struct {
	Path     string `json:"path"`
	Provider string `json:"provider"`
	Data     []byte `json:"-"`
	// Servers names the servers the file defines, for a person deciding
	// whether to trust it.
	Servers []string `json:"servers,omitempty"`
}

// Hash is the hash trust is keyed by: sha256 over every file's path
// and contents, in path order, each length-prefixed so no two sets of files
// hash alike.
func Hash(files []ProjectFile) string {
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b ProjectFile) int { return strings.Compare(a.Path, b.Path) })
	h := sha256.New()
	for _, f := range sorted {
		fmt.Fprintf(h, "%d:%s\x00%d:", len(f.Path), f.Path, len(f.Data))
		h.Write(f.Data)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// trustStore is trust.json.
type trustStore struct {
	Version  int                     `json:"version"`
	Projects map[string]trustedEntry `json:"projects"`
}

type trustedEntry struct {
	Hash      string    `json:"hash"`
	Files     []string  `json:"files"`
	TrustedAt time.Time `json:"trustedAt"`
}

const trustVersion = 1

// IsTrusted reports whether projectDir was trusted with exactly these
// files. A missing store means nothing is trusted; an unreadable or corrupt
// one is an error (and nothing is trusted).
func IsTrusted(stateDir, projectDir string, files []ProjectFile) (bool, error) {
	if stateDir == "" {
		return false, errors.New("no state directory (set HOME or XDG_STATE_HOME)")
	}
	st, err := readTrust(filepath.Join(stateDir, FileName))
	if err != nil {
		return false, err
	}
	e, ok := st.Projects[projectKey(projectDir)]
	return ok && e.Hash == Hash(files), nil
}

// Record records that projectDir is trusted with these files,
// replacing what was trusted there before. The store is written atomically
// (internal/safefile), mode 0600, under a lock so two processes do not
// lose each other's entries.
func Record(stateDir, projectDir string, files []ProjectFile) error {
	if stateDir == "" {
		return errors.New("no state directory (set HOME or XDG_STATE_HOME)")
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(stateDir, FileName)
	unlock, err := safefile.Lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := readTrust(path)
	if err != nil {
		// A corrupt store is replaced: the person is trusting now, and
		// what it held cannot be read anyway.
		st = &trustStore{}
	}
	if st.Projects == nil {
		st.Projects = make(map[string]trustedEntry)
	}
	st.Version = trustVersion
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	slices.Sort(paths)
	st.Projects[projectKey(projectDir)] = trustedEntry{Hash: Hash(files), Files: paths, TrustedAt: time.Now().UTC()}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteAtomic(path, append(data, '\n'), 0o600)
}

// Trusted is one trust decision: a folder, and the files it was trusted
// with.
type Trusted struct {
	Project   string    `json:"project"`
	Files     []string  `json:"files"`
	TrustedAt time.Time `json:"trustedAt"`
}

// List returns every trust decision, by folder.
func List(stateDir string) ([]Trusted, error) {
	if stateDir == "" {
		return nil, nil
	}
	st, err := readTrust(filepath.Join(stateDir, FileName))
	if err != nil {
		return nil, err
	}
	out := make([]Trusted, 0, len(st.Projects))
	for dir, e := range st.Projects {
		out = append(out, Trusted{Project: dir, Files: orEmpty(e.Files), TrustedAt: e.TrustedAt})
	}
	slices.SortFunc(out, func(a, b Trusted) int { return strings.Compare(a.Project, b.Project) })
	return out, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Revoke forgets the trust decision for projectDir, reporting whether
// there was one. It changes the store as Record does.
func Revoke(stateDir, projectDir string) (bool, error) {
	if stateDir == "" {
		return false, nil
	}
	path := filepath.Join(stateDir, FileName)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	unlock, err := safefile.Lock(path)
	if err != nil {
		return false, err
	}
	defer unlock()
	st, err := readTrust(path)
	if err != nil {
		return false, err
	}
	key := projectKey(projectDir)
	if _, ok := st.Projects[key]; !ok {
		return false, nil
	}
	delete(st.Projects, key)
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return false, err
	}
	return true, safefile.WriteAtomic(path, append(data, '\n'), 0o600)
}

func projectKey(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return filepath.Clean(dir)
}

// readTrust reads the store through safefile.ReadLimited: a store that is a
// pipe, a device, a dangling link or over 4 MiB (some twenty thousand
// projects) is an error, and nothing is trusted.
func readTrust(path string) (*trustStore, error) {
	data, err := safefile.ReadLimited(path, safefile.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return &trustStore{}, nil
	}
	if err != nil {
		return nil, err
	}
	var st trustStore
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st.Version > trustVersion {
		return nil, fmt.Errorf("%s: version %d is newer than this switchboard understands", path, st.Version)
	}
	return &st, nil
}
