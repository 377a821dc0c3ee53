package host

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The MCP part of an agent's system prompt (DESIGN.md, "The agent's
// side"): the servers, each with what it tells agents, and their tools
// with a line each. It is rendered from the tool set and the servers'
// handshakes in a stable order (servers and tools by name), so an
// unchanged host renders the same bytes and a model provider's prompt
// cache stays warm; an agent renders it again on EventTools and
// EventState.

// DefaultPromptBudget is PromptOptions.Budget's default: about 4,000
// tokens.
const DefaultPromptBudget = 16 << 10

// PromptOptions shape a prompt section.
type PromptOptions struct {
	// Budget is the most bytes the section may take. Past it, the section
	// gives up detail in steps, the same way every time: server
	// instructions are shortened, then tool descriptions, then tools are
	// listed by name alone. Then every server keeps its heading, its
	// shortened instructions and its alwaysLoad tools, and the bytes left
	// are shared among the servers' other tools, the same number for each
	// server that has that many, so a large server cannot push a small one
	// out; a line says how many were left out and names the meta-tools
	// (MetaTools) that find them. Zero means DefaultPromptBudget.
	Budget int
	// Filter limits the section to a view's servers and tools.
	Filter ViewFilter
}

// promptDetail is one step of giving up detail to fit a budget.
type promptDetail struct {
	instructions int // bytes of a server's instructions kept
	description  int // bytes of a tool's one-line description kept; 0: name only
}

// promptDetails are the steps that list every tool.
var promptDetails = []promptDetail{
	{MaxInstructions, 160},
	{400, 100},
	{160, 60},
	{160, 0},
}

// promptCores are the steps, past promptDetails, of what each server
// keeps before any of its other tools: instructions shortened, then none.
var promptCores = []promptDetail{
	{160, 0},
	{60, 0},
	{0, 0},
}

// promptServer is one server's part of the section.
type promptServer struct {
	name, title, instructions string
	core                      []Tool // alwaysLoad: listed before any other
	rest                      []Tool
}

// PromptSection renders the MCP section of a system prompt for the
// host's current servers and tools.
func (h *Host) PromptSection(opts PromptOptions) string {
	return h.View(opts.Filter).PromptSection(opts)
}

// PromptSection renders the view's MCP section of a system prompt.
func (v *View) PromptSection(opts PromptOptions) string {
	budget := opts.Budget
	if budget <= 0 {
		budget = DefaultPromptBudget
	}
	byServer := map[string]*promptServer{}
	for _, t := range v.Tools().Tools {
		s := byServer[t.Server]
		if s == nil {
			s = &promptServer{name: t.Server}
			byServer[t.Server] = s
		}
		if t.AlwaysLoad {
			s.core = append(s.core, t)
		} else {
			s.rest = append(s.rest, t)
		}
	}
	for _, st := range v.h.Status() {
		if s := byServer[st.Name]; s != nil {
			s.instructions = st.Instructions
			if st.ServerInfo != nil {
				s.title = st.ServerInfo.Title
			}
		}
	}
	servers := make([]*promptServer, 0, len(byServer))
	for _, name := range slices.Sorted(maps.Keys(byServer)) {
		servers = append(servers, byServer[name])
	}
	return fitPrompt(servers, budget)
}

// fitPrompt renders servers within budget (PromptOptions.Budget).
func fitPrompt(servers []*promptServer, budget int) string {
	for _, d := range promptDetails {
		if out := renderPrompt(servers, d, nil); len(out) <= budget {
			return out
		}
	}
	none := make([]int, len(servers))
	for _, d := range promptCores {
		if len(renderPrompt(servers, d, none)) > budget {
			continue
		}
		return renderPrompt(servers, d, shareTools(servers, d, budget))
	}
	// Not even every server's heading fits: the last servers go, and
	// the line about what is left out stays if it can.
	for n := len(servers) - 1; n >= 0; n-- {
		out := renderPrompt(servers[:n], promptCores[len(promptCores)-1], none[:n])
		out = strings.TrimSuffix(out, omitted(countTools(servers[:n]))) + omitted(countTools(servers))
		if len(out) <= budget {
			return out
		}
	}
	return capText(promptHead, budget)
}

// shareTools is how many of each server's other tools fit beside every
// server's core at d: the most k such that each server lists
// min(k, its tools), then one more for the first servers that have it,
// as far as the bytes go.
func shareTools(servers []*promptServer, d promptDetail, budget int) []int {
	keep := make([]int, len(servers))
	fits := func() bool { return len(renderPrompt(servers, d, keep)) <= budget }
	most := 0
	for _, s := range servers {
		most = max(most, len(s.rest))
	}
	each := func(k int) {
		for i, s := range servers {
			keep[i] = min(k, len(s.rest))
		}
	}
	lo, hi := 0, most
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if each(mid); fits() {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	each(lo)
	for i, s := range servers {
		if keep[i] < len(s.rest) {
			if keep[i]++; !fits() {
				keep[i]--
			}
		}
	}
	return keep
}

const promptHead = "## MCP tools\n\nTools from MCP servers, by server. Call a tool by its name.\n"

// omitted is the line that says n tools were left out; "" for none.
func omitted(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("\n(%d more tools are not listed here: %s finds them by what they do, %s gives one's arguments, %s calls it.)\n",
		n, SearchToolName, DescribeToolName, CallToolName)
}

func countTools(servers []*promptServer) int {
	n := 0
	for _, s := range servers {
		n += len(s.core) + len(s.rest)
	}
	return n
}

// renderPrompt renders servers at detail d, with keep[i] of server i's
// other tools (nil: all of them).
func renderPrompt(servers []*promptServer, d promptDetail, keep []int) string {
	var b strings.Builder
	b.WriteString(promptHead)
	left := 0
	for i, s := range servers {
		b.WriteString("\n### " + oneLine(s.name, len(s.name)))
		if s.title != "" && s.title != s.name {
			b.WriteString(" (" + oneLine(s.title, 80) + ")")
		}
		b.WriteString("\n")
		if s.instructions != "" && d.instructions > 0 {
			b.WriteString(quoted(capText(strings.TrimSpace(s.instructions), d.instructions)) + "\n")
		}
		rest := s.rest
		if keep != nil {
			rest = rest[:keep[i]]
			left += len(s.rest) - keep[i]
		}
		for _, t := range slices.Concat(s.core, rest) {
			b.WriteString("- " + t.Name)
			if desc := oneLine(t.Description, d.description); desc != "" {
				b.WriteString(": " + desc)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString(omitted(left))
	return b.String()
}

// quoted is a server's text as a quote, every line of it: a server's
// instructions cannot start a line of the section's own ("### other",
// "- a_tool: …") and pass for another server or its tools, however the
// reader splits lines.
func quoted(s string) string {
	return "> " + strings.ReplaceAll(unixLines(s), "\n", "\n> ")
}

// lineBreaks are every line break a reader of the section may split on:
// CR LF, CR, LF, and what Unicode and Python's splitlines add (VT, FF,
// FS, GS, RS, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR).
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\v", "\n", "\f", "\n",
	"\x1c", "\n", "\x1d", "\n", "\x1e", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n")

// unixLines is s with every line break a plain "\n".
func unixLines(s string) string { return lineBreaks.Replace(s) }

// oneLine is the first sentence or line of s, at most max bytes; "" for
// max 0.
func oneLine(s string, max int) string {
	if max <= 0 {
		return ""
	}
	s = strings.TrimSpace(unixLines(s))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return capText(s, max)
}
