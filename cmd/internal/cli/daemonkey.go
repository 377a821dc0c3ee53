package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"
)

// A daemon runs the servers one reading of the configs gives: the
// person's own, found by default, or those the global flags that change
// discovery name (--config, --no-discover, --exclude, …). Each such set
// is a daemon of its own, on a socket of its own (daemonSocketName), so a
// command or a client attaches to the daemon that runs exactly its
// servers: `switchboard --config team.json tools` finds the daemon
// `switchboard --config team.json daemon start` started, never the
// person's own (DESIGN.md F56).

// daemonFlags are the global flags that say which servers a daemon runs,
// and where it keeps their state.
var daemonFlags = []string{
	"config", "no-discover", "no-project", "project", "exclude", "root", "trust-project",
	"cache-dir", "no-cache", "gate", "state-dir",
}

// pathFlags are the global flags whose value is a path: made absolute
// before a daemon is started with them (it runs in another folder) and
// before they name one.
var pathFlags = []string{"config", "project", "root", "cache-dir", "state-dir"}

// absArgs are args ("--name=value", as GlobalArgs gives them) with the
// values of pathFlags made absolute.
func absArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for _, arg := range args {
		name, value, ok := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		if ok && slices.Contains(pathFlags, name) && value != "" {
			if abs, err := filepath.Abs(value); err == nil {
				arg = "--" + name + "=" + abs
			}
		}
		out = append(out, arg)
	}
	return out
}

// daemonArgs are the given global flags among daemonFlags, paths
// absolute, and $SWITCHBOARD_EXCLUDE: what tells this command's daemon
// from another's. None for the person's own.
func (f *Factory) daemonArgs() []string {
	var out []string
	if f.GlobalArgs != nil {
		for _, arg := range absArgs(f.GlobalArgs()) {
			name, _, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
			if slices.Contains(daemonFlags, name) {
				out = append(out, arg)
			}
		}
	}
	if v, ok := f.IO.LookupEnv("SWITCHBOARD_EXCLUDE"); ok && v != "" {
		out = append(out, "$SWITCHBOARD_EXCLUDE="+v)
	}
	return out
}

// daemonSocketName is the socket's file name for the daemon of args
// (daemonArgs): daemon.sock for the person's own, else one named by a
// digest of them.
func daemonSocketName(args []string) string {
	if len(args) == 0 {
		return "daemon.sock"
	}
	sum := sha256.Sum256([]byte(strings.Join(args, "\x00")))
	return "daemon-" + hex.EncodeToString(sum[:6]) + ".sock"
}
