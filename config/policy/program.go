package policy

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/execpath"
)

// A command rule judges the program that will run, which is not always
// the one the config names: PATH and symbolic links choose the file, and
// a shell or launcher runs a program of its own choosing. resolve finds
// the file as internal/transport will (execpath), and sees through env;
// what it cannot see through it calls opaque, and a policy with command
// rules blocks that unless it allows wrappers. It cannot know every
// program that starts others (any script can): a deny list is not a
// sandbox, and an allow list of paths is the strong form.

// layer is one program of a command line: the command and its args as
// given to it, and, when found, the file's paths (execpath.Links).
type layer struct {
	command string
	args    []string
	paths   []string // the file found, each link on the way, the file at the end
	err     error    // why it was not found
}

// names are the names a deny pattern is tried on: as given, the file's
// paths, and the base name of each.
func (l layer) names() []string {
	out := []string{l.command, filepath.Base(l.command)}
	for _, p := range l.paths {
		out = append(out, p, filepath.Base(p))
	}
	return out
}

// String is the file that runs, or the command when none was found.
func (l layer) String() string {
	if len(l.paths) > 0 {
		return l.paths[len(l.paths)-1]
	}
	return l.command
}

// program is what a stdio server's command line runs, outermost first:
// /usr/bin/env, then the program env runs.
type program struct {
	layers []layer
	// opaque says what hides the program that really runs, "" when every
	// layer is seen.
	opaque string
}

// maxWrapped bounds how many envs in a row resolve follows.
const maxWrapped = 8

// resolve finds what c's command line runs from where rt says the host
// starts it.
func resolve(c *config.ServerConfig, rt Runtime) *program {
	lookup := rt.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	hostPATH, _ := lookup("PATH")
	dir := execpath.WorkDir(c.Cwd, rt.Dir)
	prog := &program{}
	env := c.Env
	// A "!command" value is run after the policy allowed the server
	// (DESIGN.md F5), so its output cannot be judged; "!!" is a literal "!".
	if v, ok := env["PATH"]; ok && strings.HasPrefix(v, "!") {
		if !strings.HasPrefix(v, "!!") {
			prog.layers = []layer{{command: c.Command, args: c.Args}}
			prog.opaque = `its PATH is the output of a "!command", known only once it runs`
			return prog
		}
		env = maps.Clone(env)
		env["PATH"] = v[1:]
	}
	// Variables that make a program load or run other code than its own
	// (a preloaded library, node's --require, python's startup file) hide
	// what runs as well as a shell does.
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if isInjector(k) {
			prog.layers = []layer{{command: c.Command, args: c.Args}}
			prog.opaque = "its env sets " + k + ", which can make any program run other code"
			return prog
		}
	}
	paths := execpath.SearchPaths(env, hostPATH)
	command, args := c.Command, c.Args
	for range maxWrapped {
		l := layer{command: command, args: args}
		if found, err := execpath.Find(command, dir, paths...); err != nil {
			l.err = err
		} else {
			l.paths = execpath.Links(found)
		}
		prog.layers = append(prog.layers, l)
		names := progNames(l)
		if why := wrapper(names, progOrder(l), args); why != "" {
			prog.opaque = why
			return prog
		}
		if !names["env"] {
			return prog
		}
		inner, innerArgs, path, setPath, bad := parseEnv(args)
		if bad != "" {
			prog.opaque = "env " + bad
			if inner != "" {
				// Known by name only, which a deny rule may still know.
				prog.layers = append(prog.layers, layer{command: inner, args: innerArgs, err: errors.New("env looks it up in a PATH of its own")})
			}
			return prog
		}
		if inner == "" {
			return prog // env alone prints the environment
		}
		command, args = inner, innerArgs
		if !setPath && !strings.Contains(inner, "/") {
			// env looks its program up in the PATH it inherits: the
			// server's, else the host's, relative entries included.
			inherited, ok := env["PATH"]
			if !ok {
				inherited = hostPATH
			}
			for _, entry := range filepath.SplitList(inherited) {
				if entry == "" || !filepath.IsAbs(entry) {
					prog.opaque = "env looks its program up in a PATH with a relative entry (" + strconv.Quote(entry) + ")"
					return prog
				}
			}
		}
		if setPath {
			// env looks its program up in the PATH it was given, with its
			// empty and relative entries too, which name the working
			// directory and are not judged here.
			for _, entry := range filepath.SplitList(path) {
				if entry == "" || !filepath.IsAbs(entry) {
					prog.opaque = "env looks its program up in a PATH with a relative entry (" + strconv.Quote(entry) + ")"
					return prog
				}
			}
			paths = []string{path}
		}
	}
	prog.opaque = "env nested more than 8 deep"
	return prog
}

// progNames are the program names of a layer: the base name of the
// command and of each path, without a version (python3.12 is python) and,
// on Windows, without case or extension. A multi-call binary (busybox,
// toybox: Alpine's env is one) is the program its argv[0] names, which is
// the command as configured.
func progNames(l layer) map[string]bool {
	out := map[string]bool{}
	for _, n := range progOrder(l) {
		out[n] = true
	}
	return out
}

// progOrder is progNames in the order a person reads them: the name as
// configured first, then each link it goes through, so that a message
// names "sh" as the config says, not the "dash" it links to.
func progOrder(l layer) []string {
	var out []string
	add := func(p string) {
		n := progName(p)
		for _, m := range []string{n, strings.TrimRight(n, "0123456789.-")} {
			if m != "" && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	if len(l.paths) > 0 {
		if final := progName(l.paths[len(l.paths)-1]); final == "busybox" || final == "toybox" {
			add(l.command)
			return out
		}
	}
	add(l.command)
	for _, p := range l.paths {
		add(p)
	}
	return out
}

func progName(p string) string {
	n := filepath.Base(p)
	if runtime.GOOS == "windows" {
		n = strings.ToLower(n)
		for _, ext := range []string{".exe", ".com", ".cmd", ".bat"} {
			n = strings.TrimSuffix(n, ext)
		}
	}
	return n
}

// shells run whatever their arguments or scripts say; launchers run the
// command they are given after options of their own. Neither can be
// seen through honestly, so both are opaque.
var (
	shells = words("sh bash zsh dash ksh mksh pdksh oksh ash yash fish csh tcsh rc es elvish nu xonsh " +
		"busybox toybox pwsh powershell cmd awk gawk mawk nawk")
	launchers = words("sudo doas su runuser pkexec nice nohup timeout stdbuf setsid chroot xargs time chrt " +
		"ionice taskset unshare nsenter flock script unbuffer strace ltrace firejail bwrap systemd-run " +
		"watch parallel caffeinate arch sandbox-exec tmux screen expect")
	// inline are interpreters with the flags that make them run code
	// given on the command line (node -e, python -c, perl -e).
	inline = map[string]string{
		"node": "e p", "nodejs": "e p", "bun": "e", "deno": "", "python": "c", "pypy": "c",
		"perl": "e E", "ruby": "e", "php": "r", "lua": "e", "osascript": "e", "Rscript": "e",
	}
)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// wrapper says why a layer hides the program it runs, or "".
func wrapper(names map[string]bool, order []string, args []string) string {
	for _, n := range order {
		switch {
		case shells[n]:
			return n + ", a shell that can start any program"
		case launchers[n]:
			return n + ", a launcher that can start any program"
		}
	}
	for _, n := range order {
		flags, ok := inline[n]
		if !ok {
			continue
		}
		if flag := inlineFlag(args, flags); flag != "" {
			return n + " " + flag + ", which runs code given on its command line"
		}
	}
	switch {
	case names["deno"] || names["bun"]:
		if len(args) > 0 && args[0] == "eval" {
			return "deno or bun eval, which runs code given on its command line"
		}
	case names["npx"] || names["npm"] || names["pnpm"]:
		for _, a := range args {
			if a == "-c" || a == "--call" || strings.HasPrefix(a, "--call=") {
				return "npx " + a + ", which runs a shell command"
			}
		}
	case names["uv"]:
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				if a == "run" {
					return "uv run, which runs any command it is given"
				}
				break
			}
		}
	}
	return ""
}

// inlineFlag finds, among the options before the first argument that is
// not one, a single-letter flag of flags ("-c", or in a cluster: "-lne"),
// or its long form (--eval, --print).
func inlineFlag(args []string, flags string) string {
	letters := strings.ReplaceAll(flags, " ", "")
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case a == "--eval" || a == "--print" || strings.HasPrefix(a, "--eval=") || strings.HasPrefix(a, "--print="):
			if strings.ContainsAny(letters, "ep") {
				return a
			}
		case strings.HasPrefix(a, "--"):
			// node loads code before the script with these.
			for _, l := range []string{"--require", "--import", "--loader", "--experimental-loader"} {
				if strings.ContainsRune(letters, 'e') && (a == l || strings.HasPrefix(a, l+"=")) {
					return a
				}
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			cluster := a[1:]
			// The flag first, its code attached or not (-c, -cCODE), or
			// a cluster of letters holding it (-Ic, -lne); node's -r
			// loads a module first.
			if letters != "" && (strings.ContainsRune(letters, rune(cluster[0])) ||
				isLetters(cluster) && strings.ContainsAny(cluster, letters)) ||
				strings.ContainsRune(letters, 'e') && cluster[0] == 'r' {
				return a
			}
			// An option whose value is the next argument (python -W
			// ignore) does not end the options.
			if len(cluster) == 1 && strings.ContainsRune("WX", rune(cluster[0])) {
				i++
			}
		default:
			return "" // the script: what follows is its own
		}
	}
	return ""
}

func isLetters(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

// parseEnv reads env's command line (GNU and BSD): options, NAME=VALUE
// settings, then the program and its args. bad says what hides the
// program: a split string (-S), a folder change (-C), an alternate path
// (-P) or an option it does not know, when even the program's name is
// unknown; an emptied environment or an unset PATH, when the name is
// known but env would look it up in a default PATH of its own.
func parseEnv(args []string) (command string, rest []string, path string, setPath bool, bad string) {
	i, noPath := 0, ""
options:
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i++
			break options
		case a == "-" || a == "-i" || a == "--ignore-environment":
			noPath = a + ", which empties the environment env looks the program up with"
		case a == "-0" || a == "--null" || a == "-v" || a == "--debug":
		case a == "-u" || a == "--unset":
			if i+1 >= len(args) {
				return "", nil, "", false, a + " without a name"
			}
			i++
			if args[i] == "PATH" {
				noPath = a + " PATH, which leaves env its own default PATH"
			}
		case strings.HasPrefix(a, "--unset=") || strings.HasPrefix(a, "-u") && len(a) > 2:
			if strings.TrimPrefix(strings.TrimPrefix(a, "--unset="), "-u") == "PATH" {
				noPath = a + ", which leaves env its own default PATH"
			}
		case strings.HasPrefix(a, "-"):
			return "", nil, "", false, a + ", an option that hides the program env runs"
		default:
			break options
		}
	}
	for ; i < len(args) && strings.Contains(args[i], "=") && !strings.HasPrefix(args[i], "="); i++ {
		if k, v, _ := strings.Cut(args[i], "="); k == "PATH" {
			path, setPath = v, true
		}
	}
	if i < len(args) {
		command, rest = args[i], args[i+1:]
	}
	if noPath != "" && !setPath && command != "" {
		return command, rest, "", false, noPath
	}
	return command, rest, path, setPath, ""
}
