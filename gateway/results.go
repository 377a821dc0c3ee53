package gateway

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// resultURIPrefix names the whole results the gateway keeps.
const resultURIPrefix = "switchboard://results/"

// keptLimit is how many whole results are kept, and keptBytes how much
// text at most: a server may return 64 MiB a call. The oldest goes first.
const (
	keptLimit = 64
	keptBytes = 64 << 20
)

// keptResults are the whole texts of results cut to MaxResultText, each
// with the caller (CallerOf) whose call made it: a URI that leaks (a
// shared transcript, a log) reads nothing for anyone else, whatever
// their view shows.
type keptResults struct {
	mu    sync.Mutex
	order []string
	text  map[string]keptResult
	size  int
}

type keptResult struct {
	text, caller string
}

func (k *keptResults) put(caller, text string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.text == nil {
		k.text = map[string]keptResult{}
	}
	id := strings.ToLower(rand.Text())
	k.text[id] = keptResult{text: text, caller: caller}
	k.order = append(k.order, id)
	k.size += len(text)
	for len(k.order) > 1 && (len(k.order) > keptLimit || k.size > keptBytes) {
		k.size -= len(k.text[k.order[0]].text)
		delete(k.text, k.order[0])
		k.order = k.order[1:]
	}
	return id
}

// get is the kept text of id when caller's call made it.
func (k *keptResults) get(id, caller string) (string, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	e, ok := k.text[id]
	if !ok || e.caller != caller {
		return "", false
	}
	return e.text, true
}

// sized is res within MaxResultText: its text cut with a note naming the
// resource that holds the whole (images and audio as a line each), which
// only caller may read.
func (g *Gateway) sized(caller string, res *mcp.CallToolResult) *mcp.CallToolResult {
	max := g.opts.MaxResultText
	if max <= 0 {
		return res
	}
	full := host.ResultText(res)
	if len(full) <= max {
		return res
	}
	var uri string
	text := host.RenderResult(res, host.ResultOptions{MaxText: max, Keep: func(whole string) (string, error) {
		uri = resultURIPrefix + g.kept.put(caller, whole)
		return uri, nil
	}})
	out := *res
	out.Content = []mcp.Content{&mcp.TextContent{Text: text}, &mcp.ResourceLink{URI: uri, Name: "whole result", MIMEType: "text/plain"}}
	out.StructuredContent = nil
	return &out
}

func (g *Gateway) readKept(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	id, ok := strings.CutPrefix(req.Params.URI, resultURIPrefix)
	// Another caller's is answered as none: the URI says nothing of
	// whether it exists.
	text, found := g.kept.get(id, callerOfExtra(req.Extra))
	if !ok || !found {
		return nil, fmt.Errorf("no kept result %s (switchboard keeps the last %d)", req.Params.URI, keptLimit)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}}, nil
}
