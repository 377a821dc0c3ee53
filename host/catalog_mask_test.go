package host

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMaskCatalog: a secret a server echoes in what it lists is masked
// before the tool set, the listings or the cache keep it; names stay.
func TestMaskCatalog(t *testing.T) {
	h := New(nil)
	defer h.Close()
	const secret = "s3cr3t-token-value"
	h.AddSecrets(secret)
	c := h.maskCatalog(catalog{
		tools:     []*mcp.Tool{{Name: "echo", Title: "uses " + secret, Description: "key=" + secret}},
		resources: []*mcp.Resource{{Name: "r", URI: "demo://r", Description: secret}},
		templates: []*mcp.ResourceTemplate{{Name: "t", URITemplate: "demo://{x}", Title: secret}},
		prompts: []*mcp.Prompt{{Name: "p", Description: secret, Arguments: []*mcp.PromptArgument{
			{Name: "a", Description: "plain"}, {Name: "b", Description: "the " + secret}}}},
	})
	all := c.tools[0].Title + c.tools[0].Description + c.resources[0].Description + c.templates[0].Title +
		c.prompts[0].Description + c.prompts[0].Arguments[0].Description + c.prompts[0].Arguments[1].Description
	if strings.Contains(all, secret) {
		t.Errorf("secret left in %q", all)
	}
	if c.tools[0].Name != "echo" || c.resources[0].URI != "demo://r" || c.prompts[0].Arguments[0].Description != "plain" {
		t.Errorf("names or clean text changed: %+v", c)
	}
}
