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
	// listed by name alone, then the last tools are left out with a line
	// that says how many. Zero means DefaultPromptBudget.
	Budget int
	// Filter limits the section to a view's servers and tools.
	Filter ViewFilter
}

// promptDetail is one step of giving up detail to fit a budget.
type promptDetail struct {
	instructions int // bytes of a server's instructions kept
	description  int // bytes of a tool's one-line description kept; 0: name only
}

var promptDetails = []promptDetail{
	{MaxInstructions, 160},
	{400, 100},
	{160, 60},
	{0, 0},
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
	tools := v.Tools().Tools
	byServer := map[string][]Tool{}
	for _, t := range tools {
		byServer[t.Server] = append(byServer[t.Server], t)
	}
	instructions := map[string]string{}
	titles := map[string]string{}
	for _, st := range v.h.Status() {
		if _, ok := byServer[st.Name]; !ok {
			continue
		}
		instructions[st.Name] = st.Instructions
		if st.ServerInfo != nil {
			titles[st.Name] = st.ServerInfo.Title
		}
	}
	servers := slices.Sorted(maps.Keys(byServer))
	var out string
	for _, d := range promptDetails {
		out = renderPrompt(servers, byServer, instructions, titles, d, -1)
		if len(out) <= budget {
			return out
		}
	}
	// Names alone do not fit: leave out the last tools, as few as will do.
	total := len(tools)
	lo, hi := 0, total
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if len(renderPrompt(servers, byServer, instructions, titles, promptDetails[len(promptDetails)-1], mid)) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return renderPrompt(servers, byServer, instructions, titles, promptDetails[len(promptDetails)-1], lo)
}

// renderPrompt renders at detail d, with at most limit tools (-1: all).
func renderPrompt(servers []string, byServer map[string][]Tool, instructions, titles map[string]string, d promptDetail, limit int) string {
	var b strings.Builder
	b.WriteString("## MCP tools\n\nTools from MCP servers, by server. Call a tool by its name.\n")
	shown, total := 0, 0
	for _, name := range servers {
		total += len(byServer[name])
	}
	for _, name := range servers {
		if limit >= 0 && shown >= limit {
			break
		}
		b.WriteString("\n### " + oneLine(name, len(name)))
		if t := titles[name]; t != "" && t != name {
			b.WriteString(" (" + oneLine(t, 80) + ")")
		}
		b.WriteString("\n")
		if in := instructions[name]; in != "" && d.instructions > 0 {
			b.WriteString(quoted(capText(strings.TrimSpace(in), d.instructions)) + "\n")
		}
		for _, t := range byServer[name] {
			if limit >= 0 && shown >= limit {
				break
			}
			shown++
			b.WriteString("- " + t.Name)
			if desc := oneLine(t.Description, d.description); desc != "" {
				b.WriteString(": " + desc)
			}
			b.WriteString("\n")
		}
	}
	if shown < total {
		fmt.Fprintf(&b, "\n(%d more tools are not listed here; search for them by what they do.)\n", total-shown)
	}
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
