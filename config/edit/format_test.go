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
