package host

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"
)

// BenchmarkPromptSize reports, for 50 and 200 tools of real servers (the
// search corpus; 200 is it twice, under other server names), how large the
// tools' definitions are with their schemas, and how large the prompt
// section that stands in for them when schemas are deferred. Sizes, not
// times: measured, not asserted.
func BenchmarkPromptSize(b *testing.B) {
	data, err := os.ReadFile("../internal/toolsearch/testdata/corpus.json")
	if err != nil {
		b.Skip(err)
	}
	var corpus []struct {
		Server, Name, Description string
		InputSchema               any `json:"inputSchema"`
	}
	if err := json.Unmarshal(data, &corpus); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{50, 200} {
		var tools []Tool
		for i := 0; len(tools) < n; i++ {
			c := corpus[i%len(corpus)]
			server := fmt.Sprintf("%s%d", c.Server, i/len(corpus))
			tools = append(tools, Tool{Name: "mcp__" + server + "__" + c.Name, Server: server, Tool: c.Name, Description: c.Description, InputSchema: c.InputSchema})
		}
		byServer := map[string]*promptServer{}
		for _, t := range tools {
			if byServer[t.Server] == nil {
				byServer[t.Server] = &promptServer{name: t.Server}
			}
			byServer[t.Server].rest = append(byServer[t.Server].rest, t)
		}
		var servers []*promptServer
		for _, name := range slices.Sorted(maps.Keys(byServer)) {
			servers = append(servers, byServer[name])
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var section string
			for b.Loop() {
				section = renderPrompt(servers, promptDetails[0], nil)
			}
			set := ToolSet{Tools: tools}
			b.ReportMetric(float64(set.DefinitionTokens()*4), "definition-bytes")
			b.ReportMetric(float64(len(section)), "section-bytes")
			b.ReportMetric(float64(set.DefinitionTokens()), "definition-tokens")
			b.ReportMetric(float64(len(section)/4), "section-tokens")
		})
	}
}
