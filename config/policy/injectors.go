package policy

import "strings"

// injectors are environment variables that make a program load or run
// code it was not started with, from each runtime's own documentation.
// A policy's command rules cannot judge what runs under them, so a server
// that sets one is refused like a shell (program.go).
var injectors = words(
	// Python ("Command line and environment"): module search, startup
	// files, site-packages with their .pth files, cached bytecode, hooks
	// imported by name (breakpoint(), warning categories).
	"PYTHONPATH PYTHONHOME PYTHONSTARTUP PYTHONINSPECT PYTHONUSERBASE PYTHONPYCACHEPREFIX " +
		"PYTHONPLATLIBDIR PYTHONBREAKPOINT PYTHONWARNINGS PYTHONEXECUTABLE " +
		// Node ("Command-line API", environment variables).
		"NODE_OPTIONS NODE_PATH NODE_REPL_EXTERNAL_MODULE " +
		// Ruby and its gems and bundler.
		"RUBYOPT RUBYLIB RUBYSHELL GEM_HOME GEM_PATH BUNDLE_GEMFILE " +
		// Perl (perlrun).
		"PERL5OPT PERL5LIB PERLLIB PERL5DB PERL5SHELL " +
		// Java (the launcher and the JVM).
		"JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS CLASSPATH " +
		// glibc loads iconv modules from GCONV_PATH.
		"GCONV_PATH " +
		// git: programs it runs and the config that names more of them.
		"GIT_EXEC_PATH GIT_SSH GIT_SSH_COMMAND GIT_ASKPASS SSH_ASKPASS GIT_EDITOR GIT_SEQUENCE_EDITOR " +
		"GIT_PAGER GIT_EXTERNAL_DIFF GIT_PROXY_COMMAND GIT_TEMPLATE_DIR GIT_DIR GIT_CONFIG " +
		"GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT " +
		// Programs any tool may start for a person.
		"EDITOR VISUAL PAGER " +
		// Shells: startup files, and what runs before each command.
		"BASH_ENV ENV ZDOTDIR SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND " +
		// Where programs read their own configuration (git's
		// core.fsmonitor, npm's .npmrc, …) and the shell they start.
		"HOME XDG_CONFIG_HOME SHELL BROWSER LESSOPEN LESSCLOSE " +
		// OpenSSL loads engines and providers its config names.
		"OPENSSL_CONF OPENSSL_ENGINES OPENSSL_MODULES " +
		// .NET startup hooks and profilers.
		"DOTNET_STARTUP_HOOKS " +
		// Package indexes whose packages a launcher (uvx, pip, bunx)
		// fetches and runs.
		"UV_INDEX_URL UV_DEFAULT_INDEX UV_EXTRA_INDEX_URL UV_INDEX PIP_INDEX_URL PIP_EXTRA_INDEX_URL BUN_CONFIG_REGISTRY " +
		// Go, Rust, Java build tools and PHP.
		"GOFLAGS RUSTC_WRAPPER RUSTC RUSTC_WORKSPACE_WRAPPER JAVA_HOME MAVEN_OPTS GRADLE_OPTS PHPRC PHP_INI_SCAN_DIR " +
		// Electron apps run as a plain node.
		"ELECTRON_RUN_AS_NODE " +
		// Other runtimes.
		"DENO_DIR BUN_OPTIONS")

// injectorPrefixes start families of such variables: the dynamic
// loaders' (LD_PRELOAD, LD_AUDIT, DYLD_INSERT_LIBRARIES, ...), bash's
// exported functions, git's numbered config entries, npm's config (a
// registry, a script shell, node options; npm reads any case), and Lua's
// versioned forms (LUA_INIT_5_4).
var injectorPrefixes = []string{"LD_", "DYLD_", "BASH_FUNC_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "NPM_CONFIG_", "LUA_INIT", "LUA_PATH", "LUA_CPATH",
	"CORECLR_", "COR_", "YARN_", "CARGO_"}

// isInjector reports whether setting the variable name can make a
// program run other code than its own. Names are compared in upper case:
// Windows reads them so (node_options is NODE_OPTIONS there), and on
// other systems a lower-case twin only blocks more.
func isInjector(name string) bool {
	upper := strings.ToUpper(name)
	if injectors[upper] {
		return true
	}
	for _, p := range injectorPrefixes {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	return false
}
