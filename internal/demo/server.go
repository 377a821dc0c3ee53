package demo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// version is reported in the initialize response; the demo server's
// behaviour is versioned with the switchboard binary that contains it.
const version = "0.1.0"

// ReadmeURI is the URI of the demo server's single resource.
const ReadmeURI = "demo://readme"

const readme = `# switchboard demo server

This is the MCP server bundled inside the switchboard binary. switchboard
starts it when no configuration is found, so that a fresh install has
something to connect to: a handful of small tools (echo, add, now, sha256,
sleep, tiny_image, fail, pid), this resource and a ` + "`greet`" + ` prompt.

The same server doubles as switchboard's test fixture: flags such as
` + "`--hang`, `--garbage`, `--ignore-sigterm` and `--grandchild`" + ` make it
misbehave on purpose. Run ` + "`switchboard demo-server --help`" + ` to list them.

To connect your own servers, add them to a config file; see ` + "`switchboard --help`" + `.
`

// weirdLongPrefix is 70 characters shared by the two 80-character tool names
// added by Options.WeirdNames, so that a host which cuts names must also
// disambiguate them.
var weirdLongPrefix = strings.Repeat("very_long_tool_name_", 4)[:70]

// WeirdToolNames are the extra tools added by Options.WeirdNames.
var WeirdToolNames = []string{
	"s3",
	"s4",
	"a.b",
	"with space",
	"tool/with/slash",
	weirdLongPrefix + "_variant_a",
	weirdLongPrefix + "_variant_b",
}

// tinyPNG is an 8×8 gradient, encoded once: it is the payload of tiny_image.
var tinyPNG = mustTinyPNG()

func mustTinyPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for y := range 8 {
		for x := range 8 {
			img.Set(x, y, color.RGBA{R: uint8(x * 32), G: uint8(y * 32), B: 0x80, A: 0xff})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(fmt.Sprintf("demo: encoding tiny PNG: %v", err))
	}
	return buf.Bytes()
}

// NewServer returns the demo MCP server configured by opts. Only Name,
// WeirdNames, ToolsCount, TestTools, Roots, Sampling, Elicitation, Escapes, ReplyTools, SlowLists,
// HoldLists, Legacy, Stderr and Logger affect it; the other options are
// process-level behaviour applied by Run.
// listTTL is how long the demo's lists stay good, as it tells clients.
const listTTL = int(24 * time.Hour / time.Millisecond)

func NewServer(opts Options) *mcp.Server {
	name := opts.Name
	if name == "" {
		name = DefaultName
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	instructions := opts.Instructions
	if instructions == "" {
		instructions = "A demo server bundled with switchboard. Its tools are small and side-effect free; " +
			"read " + ReadmeURI + " for more."
	}
	s := mcp.NewServer(&mcp.Implementation{Name: name, Title: "switchboard demo server", Version: version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       logger,
		// Its lists change only with a list_changed notification, so a
		// client may keep them (2026-07-28's ttlMs; go-sdk's default, 0,
		// says a list is stale at once).
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.TTLMs = listTTL },
	})
	if opts.SlowLists > 0 || opts.HoldLists != "" {
		s.AddReceivingMiddleware(holdLists(opts.SlowLists, opts.HoldLists))
	}
	if opts.Legacy || opts.Stderr != nil {
		s.AddReceivingMiddleware(handshakeMiddleware(&probeLog{w: opts.Stderr}, opts.Legacy))
	}
	addTools(s)
	if opts.DescribeFrom != "" {
		describeEcho(s, opts.DescribeFrom)
		addRedescribe(s, opts.DescribeFrom)
	}
	if opts.TestTools {
		addTestTools(s)
	}
	if opts.Roots {
		addRootsTool(s)
	}
	if opts.Sampling {
		addSampleTool(s)
	}
	if opts.SamplingTools {
		addSampleToolsTool(s)
	}
	if opts.Elicitation {
		addAskTool(s)
	}
	if opts.Escapes {
		addEscapeTools(s)
	}
	if opts.ReplyTools {
		addReplyTools(s)
	}
	if opts.WeirdNames {
		for _, n := range WeirdToolNames {
			addEchoTool(s, n, "Echoes its text back. Exists to exercise tool-name handling: its name is unusual on purpose.")
		}
	}
	if opts.OddSchemas {
		s.AddTool(&mcp.Tool{
			Name:         "odd_schemas",
			Description:  "Echoes its text back. Its schemas are valid JSON Schema that strict clients refuse, on purpose.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"any":true,"none":false},"required":["text",7]}`),
			OutputSchema: json.RawMessage(`{"type":["null","array"]}`),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil
		})
	}
	for i := range opts.ToolsCount {
		addEchoTool(s, "extra_"+strconv.Itoa(i), "Echoes its text back. One of many filler tools added by --tools-count.")
	}
	s.AddResource(&mcp.Resource{
		URI:         ReadmeURI,
		Name:        "readme",
		Title:       "About the switchboard demo server",
		Description: "What this demo server is and how to replace it with your own servers.",
		MIMEType:    "text/markdown",
		Size:        int64(len(readme)),
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: req.Params.URI, MIMEType: "text/markdown", Text: readme},
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{
		Name:        "greet",
		Title:       "Greet someone",
		Description: "Asks the model to write a short, friendly greeting for a person.",
		Arguments: []*mcp.PromptArgument{
			{Name: "name", Description: "who to greet", Required: true},
		},
	}, greet)
	return s
}

type textIn struct {
	Text string `json:"text" jsonschema:"the text to use"`
}

type addIn struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

type addOut struct {
	Sum float64 `json:"sum" jsonschema:"a + b"`
}

type nowIn struct {
	Timezone string `json:"timezone,omitempty" jsonschema:"an IANA time zone such as Europe/Paris; the server's local zone when omitted"`
}

type nowOut struct {
	Time string `json:"time" jsonschema:"the current time in RFC 3339 format"`
	Unix int64  `json:"unix" jsonschema:"the current time in seconds since the Unix epoch"`
}

type sleepIn struct {
	MS int64 `json:"ms" jsonschema:"how many milliseconds to wait (0 or more)"`
}

type failIn struct {
	Message string `json:"message" jsonschema:"the error message the result should carry"`
}

// echoDescription is echo's own description.
const echoDescription = "Returns the given text unchanged. Useful to check that a server is reachable."

func addTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "echo",
		Description: echoDescription,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, echo)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "add",
		Description: "Adds two numbers and returns their sum, as text and as structured output {sum}.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, add)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "now",
		Description: "Returns the current time in RFC 3339 format, optionally in a given IANA time zone; structured output {time, unix}.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, now)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "sha256",
		Description: "Returns the SHA-256 digest of the UTF-8 bytes of the given text, as lower-case hex.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, digest)
	mcp.AddTool(s, &mcp.Tool{
		Name: "sleep",
		Description: "Waits the given number of milliseconds, then answers \"slept N ms\". " +
			"Stops early with an error when the call is cancelled; reports progress when asked to.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, sleep)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "tiny_image",
		Description: "Returns a tiny 8×8 PNG image, to check that image content is passed through.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, tinyImage)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "fail",
		Description: "Always fails: returns an error result (isError true) carrying the given message.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, fail)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "pid",
		Description: "Returns the operating-system process id of this server.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, pid)
}

func addEchoTool(s *mcp.Server, name, desc string) {
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: desc, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, echo)
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
	return text(in.Text), nil, nil
}

func add(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
	sum := in.A + in.B
	return text(strconv.FormatFloat(sum, 'g', -1, 64)), addOut{Sum: sum}, nil
}

func now(_ context.Context, _ *mcp.CallToolRequest, in nowIn) (*mcp.CallToolResult, nowOut, error) {
	t := time.Now()
	if in.Timezone != "" {
		loc, err := time.LoadLocation(in.Timezone)
		if err != nil {
			return nil, nowOut{}, fmt.Errorf("unknown time zone %q: %w", in.Timezone, err)
		}
		t = t.In(loc)
	}
	out := nowOut{Time: t.Format(time.RFC3339), Unix: t.Unix()}
	return text(out.Time), out, nil
}

func digest(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
	sum := sha256.Sum256([]byte(in.Text))
	return text(hex.EncodeToString(sum[:])), nil, nil
}

func sleep(ctx context.Context, req *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
	if in.MS < 0 {
		return nil, nil, fmt.Errorf("ms must not be negative (got %d)", in.MS)
	}
	// Progress at the start tells a test that the call reached the handler,
	// so it can cancel knowing the cancellation is what ends the wait.
	if tok := req.Params.GetProgressToken(); tok != nil {
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: tok,
			Message:       fmt.Sprintf("sleeping %d ms", in.MS),
			Total:         float64(in.MS),
		})
		if err != nil {
			return nil, nil, fmt.Errorf("sending progress: %w", err)
		}
	}
	start := time.Now()
	timer := time.NewTimer(time.Duration(in.MS) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C:
		return text(fmt.Sprintf("slept %d ms", in.MS)), nil, nil
	case <-ctx.Done():
		return nil, nil, fmt.Errorf("sleep cancelled after %d of %d ms: %w", time.Since(start).Milliseconds(), in.MS, ctx.Err())
	}
}

func tinyImage(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: tinyPNG, MIMEType: "image/png"}}}, nil, nil
}

func fail(_ context.Context, _ *mcp.CallToolRequest, in failIn) (*mcp.CallToolResult, any, error) {
	res := text(in.Message)
	res.IsError = true
	return res, nil, nil
}

func pid(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
	return text(strconv.Itoa(os.Getpid())), nil, nil
}

func greet(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := req.Params.Arguments["name"]
	if name == "" {
		return nil, errors.New(`greet: missing required argument "name"`)
	}
	return &mcp.GetPromptResult{
		Description: "A greeting for " + name,
		Messages: []*mcp.PromptMessage{{
			Role:    "user",
			Content: &mcp.TextContent{Text: "Write a short, friendly greeting for " + name + "."},
		}},
	}, nil
}

type addToolIn struct {
	Name string `json:"name" jsonschema:"the name of the echo tool to add"`
}

type logIn struct {
	Level   string `json:"level,omitempty" jsonschema:"debug, info, notice, warning or error; info when omitted"`
	Message string `json:"message" jsonschema:"the log message"`
}

type refuseIn struct {
	Message string `json:"message" jsonschema:"the message of the JSON-RPC error"`
}

type progressIn struct {
	Steps int `json:"steps" jsonschema:"how many progress notifications to send"`
}

// addTestTools adds the --test-tools tools: each makes the server send
// something a host must handle.
func addTestTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "add_tool",
		Description: "Adds an echo tool with the given name; the server announces it with tools/list_changed.",
	}, func(_ context.Context, _ *mcp.CallToolRequest, in addToolIn) (*mcp.CallToolResult, any, error) {
		addEchoTool(s, in.Name, "An echo tool added at run time by add_tool.")
		return text("added " + in.Name), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "log",
		Description: "Sends the message as a notifications/message log entry.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in logIn) (*mcp.CallToolResult, any, error) {
		level := mcp.LoggingLevel(in.Level)
		if level == "" {
			level = "info"
		}
		err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "demo", Data: in.Message})
		if err != nil {
			return nil, nil, err
		}
		return text("logged"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "refuse",
		Description: "Answers with a JSON-RPC error (code -32602, invalid params) carrying the given message, not a result.",
	}, func(_ context.Context, _ *mcp.CallToolRequest, in refuseIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: in.Message}
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "progress",
		Description: "Sends the given number of progress notifications for this call, then answers.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in progressIn) (*mcp.CallToolResult, any, error) {
		token := req.Params.GetProgressToken()
		for i := 1; i <= in.Steps && token != nil; i++ {
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i),
			})
			if err != nil {
				return nil, nil, err
			}
		}
		return text(fmt.Sprintf("sent %d progress notifications", in.Steps)), nil, nil
	})
}

// addRootsTool adds roots, which shows what a client offers as roots: a
// filesystem server's allowed directories come from there.
func addRootsTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "roots",
		Description: "Asks the client for its roots (roots/list) and lists them, one \"URI name\" line each.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := listRoots(ctx, req)
		if err != nil || res == nil {
			// An input-required result (2026-07-28): the client answers
			// the roots request and calls again.
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil, err
		}
		if len(res.Roots) == 0 {
			return text("no roots"), nil, nil
		}
		var lines []string
		for _, r := range res.Roots {
			lines = append(lines, r.URI+" "+r.Name)
		}
		return text(strings.Join(lines, "\n")), nil, nil
	})
}

// addSampleTool adds sample, which asks the client to sample a reply to
// its text and answers with the reply's text: a request a call leads to.
func addSampleTool(s *mcp.Server) {
	type in struct {
		Text string `json:"text" jsonschema:"what to ask the client's model"`
	}
	mcp.AddTool(s, &mcp.Tool{
		Name:        "sample",
		Description: "Asks the client to sample a reply to text (sampling/createMessage) and answers with the reply.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, args in) (*mcp.CallToolResult, any, error) {
		var content mcp.Content
		params := &mcp.CreateMessageParams{MaxTokens: 100, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: args.Text}}}}
		switch r, ok := req.Params.InputResponses["sample"].(*mcp.CreateMessageWithToolsResult); {
		case ok:
			if len(r.Content) > 0 {
				content = r.Content[0]
			}
		case modern(req):
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sample": params}}, nil, nil
		default:
			res, err := req.Session.CreateMessage(ctx, params)
			if err != nil {
				return nil, nil, err
			}
			content = res.Content
		}
		if t, ok := content.(*mcp.TextContent); ok {
			return text(t.Text), nil, nil
		}
		return text("sampled no text"), nil, nil
	})
}

// addAskTool adds ask, which asks the client for a name
// (elicitation/create) and greets it, or says what the client did instead.
func addAskTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "ask",
		Description: "Asks the client for a name (elicitation/create) and greets it.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		params := &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"},
		}}
		var res *mcp.ElicitResult
		switch r, ok := req.Params.InputResponses["ask"].(*mcp.ElicitResult); {
		case ok:
			res = r
		case modern(req):
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"ask": params}}, nil, nil
		default:
			var err error
			if res, err = req.Session.Elicit(ctx, params); err != nil {
				return nil, nil, err
			}
		}
		if res.Action != "accept" {
			return text("the client chose " + res.Action), nil, nil
		}
		return text(fmt.Sprintf("hello %v", res.Content["name"])), nil, nil
	})
}

// modern reports whether req came in a session of 2026-07-28 or later,
// which has no server-to-client requests.
func modern(req *mcp.CallToolRequest) bool {
	p := req.Session.InitializeParams()
	return p != nil && p.ProtocolVersion >= "2026-07-28"
}

// listRoots asks the client for its roots the way the call's protocol
// era allows: a request of the server's own under 2025-11-25; under
// 2026-07-28, which has no server-to-client requests, the answer to an
// input request of an earlier round, or nil when there is none yet.
func listRoots(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ListRootsResult, error) {
	if r, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult); ok {
		return r, nil
	}
	if req.Session.InitializeParams() != nil && req.Session.InitializeParams().ProtocolVersion >= "2026-07-28" {
		return nil, nil
	}
	return req.Session.ListRoots(ctx, nil)
}
