package layers

import (
	"encoding/json"
	"io"
	"os/exec"
	"path"
	"strings"
	"testing"
)

const module = "github.com/switchboard-mcp/switchboard"

// allowed lists, for each package of the module (by its path inside the
// module), the packages of the module it may import. A package missing
// here fails the test: a new one takes a place in the graph on purpose.
// "*" allows any package of the module (the command line and programs).
var allowed = map[string][]string{
	// The canonical config: the standard library and leaf helpers.
	"config":              {"internal/clip", "internal/httpsyntax"},
	"config/internal/doc": {"config"},
	"config/source":       {"config", "config/internal/doc", "internal/clip", "internal/safefile"},
	"config/policy":       {"config", "config/internal/doc", "internal/execpath", "internal/glob", "internal/safefile"},
	"config/trust":        {"internal/safefile"},
	"config/edit":         {"config", "config/internal/doc", "config/source", "internal/safefile"},
	"demoserver":          {"config", "internal/demo"},
	"config/discover":     {"config", "config/internal/doc", "config/source", "config/policy", "config/trust", "internal/glob", "internal/safefile", "internal/execpath"},

	// The host knows config's types, never how configs are found; what
	// only it uses lives under it.
	"host":                     {"config", "internal/clip", "host/internal/toolcache", "host/internal/transport", "internal/glob", "internal/execpath", "internal/redact", "internal/reap", "host/internal/oauth", "host/internal/toolsearch", "host/internal/pins"},
	"host/internal/oauth":      {"config", "internal/clip", "internal/safefile"},
	"host/internal/toolcache":  {"config", "internal/safefile"},
	"host/internal/pins":       {"internal/safefile"},
	"host/internal/transport":  {"config", "internal/clip", "internal/execpath", "internal/procgroup", "internal/reap"},
	"host/internal/toolsearch": {},
	"watch":                    {"config", "host"},
	"gateway":                  {"config", "host", "internal/clip", "gateway/store", "gateway/resource", "internal/seal"},
	"gateway/store":            {"internal/redact"},
	// serve as an OAuth protected resource (DESIGN.md F65).
	"gateway/resource": {"internal/clip"},
	// The parts assembled: what serve, watch and an embedder run.
	"app": {"config", "config/discover", "config/source", "config/trust", "host", "watch", "gateway", "gateway/resource", "gateway/store", "internal/safefile"},
	// serve over stdio when a daemon runs: bytes both ways, nothing of the host.
	"app/bridge": {},
	// One app per person, on a unix socket, and the client that attaches
	// to it (DESIGN.md F56, F58).
	"daemon": {"app", "host"},

	// Leaves.
	"internal/clip":       {},
	"internal/execpath":   {},
	"internal/glob":       {},
	"internal/httpsyntax": {},
	"internal/procgroup":  {},
	"internal/reap":       {},
	"internal/redact":     {"internal/httpsyntax"},
	"internal/safefile":   {},
	"internal/seal":       {"internal/safefile"},
	"internal/secretcmd":  {"internal/clip", "internal/procgroup", "internal/reap"},
	"internal/demo":       {},
	"internal/layers":     {},

	// Test kits.
	"internal/testkit/peers":       {"internal/procgroup"},
	"internal/testkit/proctest":    {},
	"internal/testkit/oauthtest":   {},
	"internal/testkit/idptest":     {},
	"internal/testkit/benchpeer":   {},
	"internal/testkit/benchcall":   {},
	"internal/testkit/otlptest":    {},
	"internal/testkit/redistest":   {},
	"internal/testkit/replicatest": {"internal/procgroup", "internal/testkit/peers"},

	// Programs and the command line on top.
	"cmd/internal/cli":      {"*"},
	"cmd/internal/termsafe": {},
	"cmd/switchboard":       {"cmd/internal/cli"},
	"cmd/conformance":       {"config", "host"},
	"cmd/bench":             {"*"},
	"examples/subagent":     {"*"},
}

// levels is the map docs/DESIGN.md draws: each folder is one level, and a
// package imports only from its own level or those below. The longest
// folder that holds a package gives its level. What only the host uses is
// under host/, so it is the host's level; internal/ holds the leaves
// every level may use, and the test kits, which tests import.
var levels = []struct {
	folder string
	level  int
}{
	{"internal", 0},
	{"config", 1},
	{"demoserver", 1},
	{"host", 2},
	{"watch", 3},
	{"gateway", 3},
	{"app", 4},
	{"daemon", 4},
	{"examples", 5},
	{"cmd", 5},
}

func levelOf(name string) (string, int) {
	best, level := "", -1
	for _, l := range levels {
		if (name == l.folder || strings.HasPrefix(name, l.folder+"/")) && len(l.folder) > len(best) {
			best, level = l.folder, l.level
		}
	}
	return best, level
}

// thirdParty lists, for the packages that must stay light, the only
// modules outside the standard library they may import.
var thirdParty = map[string][]string{
	"config":                   {},
	"internal/clip":            {},
	"internal/execpath":        {},
	"internal/glob":            {},
	"internal/redact":          {},
	"internal/safefile":        {"golang.org/x/sys"},
	"internal/seal":            {"golang.org/x/sys"},
	"internal/reap":            {"golang.org/x/sys"},
	"cmd/internal/termsafe":    {},
	"config/trust":             {},
	"host/internal/toolsearch": {},
	"internal/httpsyntax":      {},
	// The floor server: nothing between its bytes and the pipe.
	"internal/testkit/benchpeer": {},
	"internal/testkit/benchcall": {},
	// Once per client app: JSON-RPC framing from go-sdk, nothing heavier.
	"app/bridge": {"github.com/modelcontextprotocol/go-sdk", "github.com/segmentio/encoding", "github.com/segmentio/asm", "golang.org/x/sys"},
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Standard   bool
}

func TestImportGraph(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		seen++
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		allow, ok := allowed[name]
		if !ok {
			t.Errorf("%s is not in the import graph's table: give it a place (and a line in docs/DESIGN.md)", name)
			continue
		}
		folder, level := levelOf(name)
		if level < 0 {
			t.Errorf("%s is in no folder of the level map: give its folder a level", name)
		}
		for _, imp := range p.Imports {
			inner, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if impFolder, impLevel := levelOf(inner); impLevel > level {
				t.Errorf("%s (%s/, level %d) imports %s from %s/, a level above it (%d)", name, folder, level, inner, impFolder, impLevel)
			}
			if !contains(allow, "*") && !contains(allow, inner) {
				t.Errorf("%s imports %s, which the layering does not allow", name, inner)
			}
		}
		if mods, ok := thirdParty[name]; ok {
			for _, dep := range p.Deps {
				if isStandard(dep) || strings.HasPrefix(dep, module) {
					continue
				}
				if !hasModulePrefix(mods, dep) {
					t.Errorf("%s depends on %s; it must stay on the standard library", name, dep)
				}
			}
		}
	}
	if seen < len(allowed)-2 {
		t.Errorf("go list found %d packages, fewer than the table knows", seen)
	}
}

// TestHostStaysLight: what an embedder links by importing host holds no
// config file parser.
func TestHostStaysLight(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/host").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, parser := range []string{"go-toml", "yaml", "hujson", module + "/config/"} {
			if strings.Contains(dep, parser) {
				t.Errorf("host depends on %s", dep)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasModulePrefix(mods []string, dep string) bool {
	for _, m := range mods {
		if dep == m || strings.HasPrefix(dep, m+"/") {
			return true
		}
	}
	return false
}

// isStandard reports whether an import path is the standard library's:
// its first element has no dot.
func isStandard(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".") && path.IsAbs("/"+p)
}
