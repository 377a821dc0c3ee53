package edit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// handWritten is a config as a person writes one: comments, a trailing
// comma, blank lines, a one-line entry, tabs nowhere, keys in their order.
const handWritten = `// My MCP servers.
{
  "$schema": "https://example.com/switchboard.json",

  "mcpServers": {
    // Code search; the token comes from the keychain.
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"], // pinned below
      "env": {"GITHUB_TOKEN": "!gh auth token"},
    },

    /* scratch area */
    "memory": {"command": "mcp-memory", "autoApprove": ["read"]},
  },
  "x-note": "keep me", // trailing note
}
`

// TestEditKeepsFormatting walks a hand-written file through every edit and
// compares the whole text after each: only the entry touched changes.
func TestEditKeepsFormatting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(handWritten), 0o600); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		edit func() error
		want string
	}{{
		name: "add",
		edit: func() error {
			return AddServer(path, "remote", EntryFields{URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}})
		},
		want: `// My MCP servers.
{
  "$schema": "https://example.com/switchboard.json",

  "mcpServers": {
    // Code search; the token comes from the keychain.
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"], // pinned below
      "env": {"GITHUB_TOKEN": "!gh auth token"},
    },

    /* scratch area */
    "memory": {"command": "mcp-memory", "autoApprove": ["read"]},
    "remote": {
      "url": "https://mcp.example.com/mcp",
      "headers": {
        "Authorization": "Bearer ${TOKEN}"
      }
    },
  },
  "x-note": "keep me", // trailing note
}
`,
	}, {
		name: "disable a multi-line entry",
		edit: func() error { return SetDisabled(path, "github", true) },
		want: `// My MCP servers.
{
  "$schema": "https://example.com/switchboard.json",

  "mcpServers": {
    // Code search; the token comes from the keychain.
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"], // pinned below
      "env": {"GITHUB_TOKEN": "!gh auth token"},
      "disabled": true,
    },

    /* scratch area */
    "memory": {"command": "mcp-memory", "autoApprove": ["read"]},
    "remote": {
      "url": "https://mcp.example.com/mcp",
      "headers": {
        "Authorization": "Bearer ${TOKEN}"
      }
    },
  },
  "x-note": "keep me", // trailing note
}
`,
	}, {
		name: "disable and auto-approve a one-line entry",
		edit: func() error {
			if err := SetDisabled(path, "memory", true); err != nil {
				return err
			}
			return SetAutoApprove(path, "memory", "write", true)
		},
		want: `// My MCP servers.
{
  "$schema": "https://example.com/switchboard.json",

  "mcpServers": {
    // Code search; the token comes from the keychain.
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"], // pinned below
      "env": {"GITHUB_TOKEN": "!gh auth token"},
      "disabled": true,
    },

    /* scratch area */
    "memory": {"command": "mcp-memory", "autoApprove": ["read", "write"], "disabled": true},
    "remote": {
      "url": "https://mcp.example.com/mcp",
      "headers": {
        "Authorization": "Bearer ${TOKEN}"
      }
    },
  },
  "x-note": "keep me", // trailing note
}
`,
	}, {
		name: "enable and remove",
		edit: func() error {
			if err := SetDisabled(path, "github", false); err != nil {
				return err
			}
			return RemoveServer(path, "remote")
		},
		want: `// My MCP servers.
{
  "$schema": "https://example.com/switchboard.json",

  "mcpServers": {
    // Code search; the token comes from the keychain.
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"], // pinned below
      "env": {"GITHUB_TOKEN": "!gh auth token"},
    },

    /* scratch area */
    "memory": {"command": "mcp-memory", "autoApprove": ["read", "write"], "disabled": true},
  },
  "x-note": "keep me", // trailing note
}
`,
	}}
	for _, st := range steps {
		if err := st.edit(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.want, string(got)); diff != "" {
			t.Fatalf("%s: file (-want +got):\n%s", st.name, diff)
		}
	}
}

// TestEditNewFile: the first add makes a file a person would have written.
func TestEditNewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard", "mcp.json")
	if err := AddServer(path, "mem", EntryFields{Command: "mcp-memory", Args: []string{"--db", "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := ClaimDisabled(path, "theirs"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := `{
  "mcpServers": {
    "mem": {
      "command": "mcp-memory",
      "args": [
        "--db",
        "x"
      ]
    },
    "theirs": {
      "disabled": true
    }
  }
}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
}

// TestEditTabsAndCompact: a tab-indented file stays tab-indented, and a
// one-line file stays one line.
func TestEditTabsAndCompact(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{{
		name: "tabs",
		in:   "{\n\t\"mcpServers\": {\n\t\t\"a\": {\"command\": \"x\"}\n\t}\n}\n",
		want: "{\n\t\"mcpServers\": {\n\t\t\"a\": {\"command\": \"x\"},\n\t\t\"b\": {\n\t\t\t\"command\": \"y\"\n\t\t}\n\t}\n}\n",
	}, {
		name: "one line",
		in:   `{"mcpServers": {"a": {"command": "x"}}}`,
		want: `{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}`,
	}, {
		name: "empty servers",
		in:   "{\n  \"mcpServers\": {}\n}\n",
		want: "{\n  \"mcpServers\": {\n    \"b\": {\n      \"command\": \"y\"\n    }\n  }\n}\n",
	}, {
		name: "no servers key",
		in:   "{\n  // nothing yet\n  \"other\": 1\n}\n",
		want: "{\n  // nothing yet\n  \"other\": 1,\n  \"mcpServers\": {\n    \"b\": {\n      \"command\": \"y\"\n    }\n  }\n}\n",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcp.json")
			if err := os.WriteFile(path, []byte(tt.in), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := AddServer(path, "b", EntryFields{Command: "y"}); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("file (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEditHardCases are the layouts a review found edits getting wrong:
// each file, edited, must read as the edit says and look as a person
// would have left it.
func TestEditHardCases(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		edit func(path string) error
		want string
	}{{
		name: "a comment before the last key is not indentation",
		in:   "{\"mcpServers\": {\n  \"a\": {\n    \"command\": \"a\",\n    /* \"env\": {}\n    */ \"args\": [\"x\"]\n  }\n}}\n",
		edit: func(p string) error { return SetDisabled(p, "a", true) },
		want: "{\"mcpServers\": {\n  \"a\": {\n    \"command\": \"a\",\n    /* \"env\": {}\n    */ \"args\": [\"x\"],\n    \"disabled\": true\n  }\n}}\n",
	}, {
		name: "a comment before a key stays its own",
		in:   "{\n  \"mcpServers\": {\n    /* primary */ \"a\": {\"command\": \"a\"}\n  }\n}\n",
		edit: func(p string) error { return AddServer(p, "b", EntryFields{Command: "b"}) },
		want: "{\n  \"mcpServers\": {\n    /* primary */ \"a\": {\"command\": \"a\"},\n    \"b\": {\n      \"command\": \"b\"\n    }\n  }\n}\n",
	}, {
		name: "removing the middle member keeps its neighbours' comments",
		in:   "{\"mcpServers\": {\n  \"a\": {\"command\": \"a\"}, // about a\n  \"b\": {\"command\": \"b\"}, // about b\n  \"c\": {\"command\": \"c\"}\n}}\n",
		edit: func(p string) error { return RemoveServer(p, "b") },
		want: "{\"mcpServers\": {\n  \"a\": {\"command\": \"a\"}, // about a\n  \"c\": {\"command\": \"c\"}\n}}\n",
	}, {
		name: "removing the first member leaves the brace's line alone",
		in:   "{\"mcpServers\": { // mine\n  \"a\": {\"command\": \"a\"}, // about a\n  \"b\": {\"command\": \"b\"}\n}}\n",
		edit: func(p string) error { return RemoveServer(p, "a") },
		want: "{\"mcpServers\": { // mine\n  \"b\": {\"command\": \"b\"}\n}}\n",
	}, {
		name: "removing the last member takes its comment and keeps the one above",
		in:   "{\"mcpServers\": {\n  \"a\": {\"command\": \"a\"}, // about a\n  \"b\": {\"command\": \"b\"} // about b\n}}\n",
		edit: func(p string) error { return RemoveServer(p, "b") },
		want: "{\"mcpServers\": {\n  \"a\": {\"command\": \"a\"} // about a\n}}\n",
	}, {
		name: "adding after a member with a comment on its line",
		in:   "{\"mcpServers\": {\n  \"a\": {\"command\": \"a\"} // about a\n}}\n",
		edit: func(p string) error { return ClaimDisabled(p, "b") },
		want: "{\"mcpServers\": {\n  \"a\": {\"command\": \"a\"}, // about a\n  \"b\": {\n    \"disabled\": true\n  }\n}}\n",
	}, {
		name: "a duplicate field: the last one counts, and enabling clears both",
		in:   "{\"mcpServers\": {\"a\": {\"command\": \"a\", \"disabled\": false, \"disabled\": true}}}\n",
		edit: func(p string) error { return SetDisabled(p, "a", false) },
		want: "{\"mcpServers\": {\"a\": {\"command\": \"a\"}}}\n",
	}, {
		name: "a duplicate server: remove takes both",
		in:   "{\"mcpServers\": {\"a\": {\"command\": \"1\"}, \"b\": {\"command\": \"b\"}, \"a\": {\"command\": \"2\"}}}\n",
		edit: func(p string) error { return RemoveServer(p, "a") },
		want: "{\"mcpServers\": {\"b\": {\"command\": \"b\"}}}\n",
	}, {
		name: "a duplicate mcpServers: the last one is edited",
		in:   "{\"mcpServers\": null, \"mcpServers\": {\"c\": {\"command\": \"c\"}}}\n",
		edit: func(p string) error { return RemoveServer(p, "c") },
		want: "{\"mcpServers\": null, \"mcpServers\": {}}\n",
	}, {
		name: "CRLF stays CRLF",
		in:   "{\r\n  \"mcpServers\": {\r\n    \"a\": {\r\n      \"command\": \"a\"\r\n    }\r\n  }\r\n}\r\n",
		edit: func(p string) error { return SetDisabled(p, "a", true) },
		want: "{\r\n  \"mcpServers\": {\r\n    \"a\": {\r\n      \"command\": \"a\",\r\n      \"disabled\": true\r\n    }\r\n  }\r\n}\r\n",
	}, {
		name: "a file of comments only",
		in:   "// servers go here\n",
		edit: func(p string) error { return ClaimDisabled(p, "x") },
		want: "// servers go here\n{\n  \"mcpServers\": {\n    \"x\": {\n      \"disabled\": true\n    }\n  }\n}\n",
	}, {
		name: "a line comment at the very end, with no line break",
		in:   "{\"mcpServers\": {\"a\": {\"command\": \"a\"}}} // end",
		edit: func(p string) error { return SetDisabled(p, "a", true) },
		want: "{\"mcpServers\": {\"a\": {\"command\": \"a\", \"disabled\": true}}} // end",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcp.json")
			if err := os.WriteFile(path, []byte(tt.in), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := tt.edit(path); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("file (-want +got):\n%s", diff)
			}
			readServers(t, path) // and it still parses
		})
	}
}
