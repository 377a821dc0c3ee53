package source

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchboard-mcp/switchboard/config"
)

// resolved is what substitution decides of a server: what it runs or
// where it connects, or why it cannot.
type resolved struct {
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	URL     string
	Headers map[string]string
	Err     string
}

// TestToolSubstitution reads a real-looking file of each tool and
// substitutes it as discovery does, with the same environment: each
// file's variables are resolved by its own tool's rules, forms a tool does
// not know stay text, the ${VAR:-default} hint is given only where that
// syntax exists, and only our own files (and Crush's $(…)) run commands.
func TestToolSubstitution(t *testing.T) {
	vars := map[string]string{"HOME": "/home/ada", "TOKEN": "tok", "EMPTY": ""}
	tests := []struct {
		name, id, file string
		in             string
		want           map[string]resolved
		commands       bool
	}{{
		name: "switchboard: every form, and !command left for the shell",
		id:   "switchboard", file: "/home/ada/.config/switchboard/mcp.json",
		in: `{"mcpServers": {
  "a": {"command": "~/bin/a", "args": ["${TOKEN}", "${env:TOKEN}", "{env:TOKEN}", "${UNSET:-d}"], "env": {"S": "!pass show x ${TOKEN}"}},
  "b": {"url": "https://h/${NOPE}"}
}}`,
		want: map[string]resolved{
			"a": {Command: "/home/ada/bin/a", Args: []string{"tok", "tok", "tok", "d"}, Env: map[string]string{"S": "!pass show x ${TOKEN}"}},
			"b": {URL: "https://h/${NOPE}", Err: `mcp.json:3:16: server "b": field "url": variable NOPE is not set (use ${NOPE:-default} to give a default)`},
		},
		commands: true,
	}, {
		name: "Claude Code: ${VAR} and ${VAR:-default} only; ! is literal",
		id:   "claude-code", file: "/home/ada/src/app/.mcp.json",
		in: `{"mcpServers": {
  "db": {"command": "db-mcp", "args": ["--dsn", "${DB_URL:-postgres://localhost/dev}", "{env:TOKEN}", "$TOKEN"], "env": {"T": "${TOKEN}", "C": "!gh auth token"}},
  "api": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}},
  "vsc": {"command": "x", "env": {"T": "${env:TOKEN}"}}
}}`,
		want: map[string]resolved{
			"db": {Command: "db-mcp", Args: []string{"--dsn", "postgres://localhost/dev", "{env:TOKEN}", "$TOKEN"}, Env: map[string]string{"T": "tok", "C": "!gh auth token"}},
			"api": {URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${API_KEY}"},
				Err: `.mcp.json:3:94: server "api": field "headers.Authorization": variable API_KEY is not set (use ${API_KEY:-default} to give a default)`},
			"vsc": {Command: "x", Env: map[string]string{"T": "${env:TOKEN}"},
				Err: `.mcp.json:4:40: server "vsc": field "env.T": Claude Code reads "${env:TOKEN}" as the variable "env:TOKEN", which no environment can set; write ${NAME} or ${NAME:-default}`},
		},
	}, {
		name: "Claude Desktop: values as written",
		id:   "claude-desktop", file: "/home/ada/.config/Claude/claude_desktop_config.json",
		in: `{"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${TOKEN}"}}}}`,
		want: map[string]resolved{
			"github": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"}, Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "${TOKEN}"}},
		},
	}, {
		name: "Cursor: ${env:NAME} and its own variables; an unset one has no default hint",
		id:   "cursor", file: "/home/ada/src/app/.cursor/mcp.json",
		in: `{"mcpServers": {
  "tools": {"command": "${userHome}/bin/tools-mcp", "args": ["--root", "${workspaceFolder}", "${TOKEN}"], "env": {"K": "${env:TOKEN}"}},
  "jot": {"url": "https://api.userjot.com/v1/mcp", "headers": {"Authorization": "Bearer ${env:USERJOT_API_TOKEN}"}}
}}`,
		want: map[string]resolved{
			"tools": {Command: "/home/ada/bin/tools-mcp", Args: []string{"--root", "/home/ada/src/app", "${TOKEN}"}, Env: map[string]string{"K": "tok"}},
			"jot": {URL: "https://api.userjot.com/v1/mcp", Headers: map[string]string{"Authorization": "Bearer ${env:USERJOT_API_TOKEN}"},
				Err: `mcp.json:3:81: server "jot": field "headers.Authorization": variable USERJOT_API_TOKEN is not set`},
		},
	}, {
		name: "VS Code: an unset ${env:NAME} is empty, ${NAME} is text, ${input:…} cannot be asked",
		id:   "vscode", file: "/home/ada/src/app/.vscode/mcp.json",
		in: `{
  "inputs": [{"type": "promptString", "id": "key", "password": true}],
  "servers": {
    "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch", "${NOT_VSCODES}"], "cwd": "${workspaceFolder}", "env": {"A": "${env:TOKEN}", "B": "${env:UNSET}"}},
    "ask": {"command": "npx", "env": {"KEY": "${input:key}"}}
  }
}`,
		want: map[string]resolved{
			"fetch": {Command: "uvx", Args: []string{"mcp-server-fetch", "${NOT_VSCODES}"}, Cwd: "/home/ada/src/app", Env: map[string]string{"A": "tok", "B": ""}},
			"ask": {Command: "npx", Env: map[string]string{"KEY": "${input:key}"},
				Err: `mcp.json:5:46: server "ask": field "env.KEY": VS Code input variables like "${input:key}" are not supported: switchboard cannot prompt for them; put the value in an environment variable and use ${env:NAME}`},
		},
	}, {
		name: "Windsurf: ${env:NAME}; ${file:…} is not supported",
		id:   "windsurf", file: "/home/ada/.codeium/windsurf/mcp_config.json",
		in: `{"mcpServers": {
  "figma": {"serverUrl": "https://mcp.figma.com/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}},
  "secret": {"command": "s", "env": {"K": "${file:/home/ada/.secret}"}}
}}`,
		want: map[string]resolved{
			"figma": {URL: "https://mcp.figma.com/mcp", Headers: map[string]string{"Authorization": "Bearer tok"}},
			"secret": {Command: "s", Env: map[string]string{"K": "${file:/home/ada/.secret}"},
				Err: `mcp_config.json:3:43: server "secret": field "env.K": Windsurf file references like "${file:/home/ada/.secret}" are not supported; put the value in an environment variable and use ${env:NAME}`},
		},
	}, {
		name: "Cline: ${env:NAME} only",
		id:   "cline", file: "/home/ada/.cline/data/settings/cline_mcp_settings.json",
		in: `{"mcpServers": {"brave": {"command": "node", "args": ["index.js", "${TOKEN}"], "env": {"BRAVE_API_KEY": "${env:TOKEN}"}, "disabled": false}}}`,
		want: map[string]resolved{
			"brave": {Command: "node", Args: []string{"index.js", "${TOKEN}"}, Env: map[string]string{"BRAVE_API_KEY": "tok"}},
		},
	}, {
		name: "Codex: no references; variables by name, each by Codex's rule",
		id:   "codex", file: "/home/ada/.codex/config.toml",
		in: `[mcp_servers.github]
command = "npx"
args = ["-y", "${TOKEN}"]
env = { "LOG" = "${TOKEN}" }
env_vars = ["TOKEN", "UNSET"]

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
http_headers = { "X-Region" = "us-east-1" }
env_http_headers = { "X-Region" = "UNSET", "X-Token" = "TOKEN", "X-Empty" = "EMPTY" }
bearer_token_env_var = "TOKEN"

[mcp_servers.needs-bearer]
url = "https://h/mcp"
bearer_token_env_var = "UNSET"
`,
		want: map[string]resolved{
			"github": {Command: "npx", Args: []string{"-y", "${TOKEN}"}, Env: map[string]string{"LOG": "${TOKEN}", "TOKEN": "tok"}},
			"figma": {URL: "https://mcp.figma.com/mcp", Headers: map[string]string{
				"X-Region": "us-east-1", "X-Token": "tok", "Authorization": "Bearer tok"}},
			"needs-bearer": {URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer ${UNSET}"},
				Err: `config.toml:15:24: server "needs-bearer": field "headers.Authorization": variable UNSET is not set`},
		},
	}, {
		name: "Gemini CLI: $NAME and ${NAME}, no defaults",
		id:   "gemini", file: "/home/ada/.gemini/settings.json",
		in: `{"mcpServers": {
  "py": {"command": "python", "args": ["-m", "srv", "$TOKEN-${TOKEN}"], "env": {"API_KEY": "$UNSET"}},
  "ok": {"httpUrl": "http://localhost:3000/mcp", "headers": {"Authorization": "Bearer $TOKEN", "X": "{env:TOKEN}"}}
}}`,
		want: map[string]resolved{
			"py": {Command: "python", Args: []string{"-m", "srv", "$TOKEN-${TOKEN}"}, Env: map[string]string{"API_KEY": "$UNSET"},
				Err: `settings.json:2:92: server "py": field "env.API_KEY": variable UNSET is not set`},
			"ok": {URL: "http://localhost:3000/mcp", Headers: map[string]string{"Authorization": "Bearer tok", "X": "{env:TOKEN}"}},
		},
	}, {
		name: "opencode: {env:NAME}, empty when unset; ${NAME} is text; {file:…} is not read",
		id:   "opencode", file: "/home/ada/.config/opencode/opencode.json",
		in: `{
  "$schema": "https://opencode.ai/config.json",
  "mcp": {
    "context7": {"type": "remote", "url": "https://mcp.context7.com/mcp", "headers": {"CONTEXT7_API_KEY": "{env:UNSET}", "T": "{env:TOKEN}"}},
    "local": {"type": "local", "command": ["my-mcp", "--label", "${TOKEN}"], "environment": {"K": "{file:~/.secrets/k}"}}
  }
}`,
		want: map[string]resolved{
			"context7": {URL: "https://mcp.context7.com/mcp", Headers: map[string]string{"CONTEXT7_API_KEY": "", "T": "tok"}},
			"local": {Command: "my-mcp", Args: []string{"--label", "${TOKEN}"}, Env: map[string]string{"K": "{file:~/.secrets/k}"},
				Err: `opencode.json:5:99: server "local": field "env.K": opencode file references like "{file:~/.secrets/k}" are not supported; put the value in an environment variable and use {env:NAME}`},
		},
	}, {
		name: "Zed: values as written",
		id:   "zed", file: "/home/ada/.config/zed/settings.json",
		in: `{"context_servers": {"you": {"url": "https://api.you.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}`,
		want: map[string]resolved{
			"you": {URL: "https://api.you.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
		},
	}, {
		name: "Goose: env_keys by name, the rest as written",
		id:   "goose", file: "/home/ada/.config/goose/config.yaml",
		in: `extensions:
  github:
    type: stdio
    cmd: npx
    args: [-y, "${TOKEN}"]
    envs: {A: "${TOKEN}"}
    env_keys: [TOKEN, GITHUB_PERSONAL_ACCESS_TOKEN]
    enabled: true
`,
		want: map[string]resolved{
			"github": {Command: "npx", Args: []string{"-y", "${TOKEN}"},
				Env: map[string]string{"A": "${TOKEN}", "TOKEN": "${TOKEN}", "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}"},
				Err: `config.yaml:7:23: server "github": field "env.GITHUB_PERSONAL_ACCESS_TOKEN": variable GITHUB_PERSONAL_ACCESS_TOKEN is not set (Goose also looks in its keyring; switchboard only in the environment)`},
		},
	}, {
		name: "Kiro: ${NAME}",
		id:   "kiro", file: "/home/ada/.kiro/settings/mcp.json",
		in: `{"mcpServers": {"local": {"command": "srv", "env": {"ENV_VAR1": "hard-coded", "ENV_VAR2": "${TOKEN}", "ENV_VAR3": "{env:TOKEN}"}}}}`,
		want: map[string]resolved{
			"local": {Command: "srv", Env: map[string]string{"ENV_VAR1": "hard-coded", "ENV_VAR2": "tok", "ENV_VAR3": "{env:TOKEN}"}},
		},
	}, {
		name: "LM Studio: values as written",
		id:   "lmstudio", file: "/home/ada/.lmstudio/mcp.json",
		in: `{"mcpServers": {"hf": {"url": "https://huggingface.co/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}}}`,
		want: map[string]resolved{
			"hf": {URL: "https://huggingface.co/mcp", Headers: map[string]string{"Authorization": "Bearer ${env:TOKEN}"}},
		},
	}, {
		name: "Crush: $VAR, ${VAR}, $(command) as a helper, a literal ! kept literal",
		id:   "crush", file: "/home/ada/.config/crush/crush.json",
		in: `{"$schema": "https://charm.land/crush.json", "mcp": {
  "gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "$(echo Bearer $GH_PAT)", "X": "Bearer $TOKEN", "Y": "!not-a-command"}},
  "mixed": {"type": "stdio", "command": "srv", "env": {"M": "built-$(date +%s)"}}
}}`,
		want: map[string]resolved{
			"gh": {URL: "https://api.githubcopilot.com/mcp/", Headers: map[string]string{"Authorization": "!echo Bearer $GH_PAT", "X": "Bearer tok", "Y": "!!not-a-command"}},
			"mixed": {Command: "srv", Env: map[string]string{"M": "built-$(date +%s)"},
				Err: `crush.json:3:61: server "mixed": field "env.M": command substitution $(…) is supported only as a whole env or header value`},
		},
		commands: true,
	}, {
		name: "Continue: its templates only; arguments otherwise verbatim",
		id:   "continue", file: "/home/ada/.continue/config.yaml",
		in: `name: Local Assistant
version: 1.0.0
schema: v1
mcpServers:
  - name: sqlite
    command: uvx
    args: ["mcp-server-sqlite", "--db-path", "${HOME}/db.sqlite", "${{ secrets.TOKEN }}"]
    env:
      API_TOKEN: ${{ secrets.TOKEN }}
      OTHER: ${{ secrets.UNSET }}
`,
		want: map[string]resolved{
			"sqlite": {Command: "uvx", Args: []string{"mcp-server-sqlite", "--db-path", "${HOME}/db.sqlite", "${{ secrets.TOKEN }}"},
				Env: map[string]string{"API_TOKEN": "${{ secrets.TOKEN }}", "OTHER": "${{ secrets.UNSET }}"},
				Err: `config.yaml:10:14: server "sqlite": field "env.OTHER": variable UNSET is not set (Continue also reads it from its .env files; switchboard only from the environment)`},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ByID(tt.id)
			entries, _, err := p.Parse(Location{Path: tt.file, Level: config.LevelUser}, []byte(tt.in), adaptersEnv)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := map[string]resolved{}
			for _, en := range entries {
				if en.Config.Err != nil {
					t.Fatalf("%s: %v", en.Config.Name, en.Config.Err)
				}
				if en.RunsCommands() != tt.commands {
					t.Errorf("%s: RunsCommands() = %v, want %v", en.Config.Name, en.RunsCommands(), tt.commands)
				}
				err := en.Substitute(config.MapLookup(vars))
				c := en.Config
				r := resolved{Command: c.Command, Args: c.Args, Env: c.Env, Cwd: c.Cwd, URL: c.URL, Headers: c.Headers}
				if err != nil {
					// Errors are compared from the file's base name on.
					r.Err = strings.TrimPrefix(err.Error(), filepath.Dir(tt.file)+string(filepath.Separator))
				}
				got[c.Name] = r
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("substituted (-want +got):\n%s", diff)
			}
		})
	}
}
