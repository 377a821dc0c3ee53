package host

// The meta-tools: three tools an agent offers its model in place of every
// tool when the tools' schemas are deferred (DESIGN.md, "The agent's
// side"), the same the gateway offers under serve --tool-search.
const (
	// SearchToolName finds tools by what they do.
	SearchToolName = "search_tools"
	// DescribeToolName gives one tool's description and input schema.
	DescribeToolName = "describe_tool"
	// CallToolName calls a tool by its name with its arguments.
	CallToolName = "call_tool"
)
