package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// ErrNoDaemon is what Dial and a client's requests return, wrapped, when
// nothing answers on the socket: no daemon runs, or it went away.
var ErrNoDaemon = errors.New("no switchboard daemon is running")

// Client talks to a daemon over its socket. Its methods are a host
// view's (host.View) and the daemon's own; each may be called from
// several goroutines at once. A daemon that went away makes them fail
// with ErrNoDaemon, and a daemon started again on the socket is used
// by the next request.
type Client struct {
	socket string
	hc     *http.Client
	tr     *http.Transport
	filter host.ViewFilter // a View's; zero for Dial's
}

// Dial connects to the daemon on socket; errors.Is(err, ErrNoDaemon)
// when nothing answers there.
func Dial(ctx context.Context, socket string) (*Client, error) {
	c := newClient(socket)
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	conn.Close()
	return c, nil
}

// AttachFromEnv connects to the daemon whose socket a parent process
// handed down in $SWITCHBOARD_SOCKET (EnvSocket): a subagent shares its
// parent's servers through it.
func AttachFromEnv(ctx context.Context) (*Client, error) {
	socket := os.Getenv(EnvSocket)
	if socket == "" {
		return nil, fmt.Errorf("%w: $%s is not set", ErrNoDaemon, EnvSocket)
	}
	return Dial(ctx, socket)
}

func newClient(socket string) *Client {
	c := &Client{socket: socket}
	c.tr = &http.Transport{
		DialContext:        func(ctx context.Context, _, _ string) (net.Conn, error) { return c.dial(ctx) },
		DisableCompression: true,
	}
	c.hc = &http.Client{Transport: c.tr}
	return c
}

// dial opens a connection to the socket, to a process of this uid only:
// a socket in a folder others can write to (a shared runtime folder, a
// --socket or $SWITCHBOARD_SOCKET path) may be another user's, who would
// be handed the calls' arguments, the roots and the answers to sampling.
func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", c.socket)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w (nothing answers on %s)", ErrNoDaemon, c.socket)
		}
		return nil, fmt.Errorf("daemon socket %s: %w", c.socket, err)
	}
	uid, err := peerUID(conn.(*net.UnixConn))
	if err == nil && uid != os.Getuid() {
		err = fmt.Errorf("answered by a process of uid %d, not yours (uid %d): not used", uid, os.Getuid())
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("daemon socket %s: %w", c.socket, err)
	}
	return conn, nil
}

// Close lets go of the client's idle connections.
func (c *Client) Close() error {
	c.tr.CloseIdleConnections()
	return nil
}

// Socket is the socket the client talks to.
func (c *Client) Socket() string { return c.socket }

// View is a client limited to what filter shows, as host.View is: its
// Tools, SearchTools, Find, CallTool and Attach see only that.
// It shares c's connections; closing either closes both's.
func (c *Client) View(filter host.ViewFilter) *Client {
	v := *c
	v.filter = filter
	return &v
}

// do sends a request and decodes its JSON answer into out (nil: none).
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return c.lost(ctx, err)
	}
	return nil
}

// send sends a request and returns a 2xx answer; any other is the error
// it carries.
func (c *Client) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://daemon"+path, rd)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.lost(ctx, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		var we wireError
		if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&we); err != nil || we.Error == "" {
			return nil, fmt.Errorf("daemon on %s: %s %s: %s", c.socket, method, path, resp.Status)
		}
		return nil, we.decode()
	}
	return resp, nil
}

// lost is the error of a request that got no answer: ctx's own end, no
// daemon (ErrNoDaemon), or a daemon that went away mid-answer.
func (c *Client) lost(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, ErrNoDaemon):
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err
		}
		return err
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return fmt.Errorf("%w: the daemon on %s went away mid-answer", ErrNoDaemon, c.socket)
	}
	return fmt.Errorf("daemon on %s: %w", c.socket, err)
}

// Info is what the daemon says about itself.
func (c *Client) Info(ctx context.Context) (Info, error) {
	var in Info
	err := c.do(ctx, http.MethodGet, "/v1/info", nil, &in)
	return in, err
}

// Status is every server's status (host.Host.Status).
func (c *Client) Status(ctx context.Context) ([]host.Status, error) {
	var ws []wireStatus
	if err := c.do(ctx, http.MethodGet, "/v1/status", nil, &ws); err != nil {
		return nil, err
	}
	out := make([]host.Status, len(ws))
	for i, s := range ws {
		out[i] = s.status()
	}
	return out, nil
}

// WaitSettled waits until every server has connected or failed
// (host.Host.WaitSettled), or ctx ends.
func (c *Client) WaitSettled(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/v1/settle", nil, nil)
}

// Tools are the tools f shows (host.View.Tools), within c's view.
func (c *Client) Tools(ctx context.Context, f host.ViewFilter) ([]host.Tool, error) {
	var out []host.Tool
	err := c.do(ctx, http.MethodPost, "/v1/tools", toolsRequest{Filter: c.narrow(f)}, &out)
	return out, err
}

// SearchTools are the limit tools f shows that best match query
// (host.View.SearchTools).
func (c *Client) SearchTools(ctx context.Context, f host.ViewFilter, query string, limit int) ([]host.Tool, error) {
	hits, err := c.SearchToolHits(ctx, f, query, limit)
	var out []host.Tool
	for _, h := range hits {
		out = append(out, h.Tool)
	}
	return out, err
}

// SearchToolHits is SearchTools with why each tool matched
// (host.View.SearchToolHits); a daemon that does not say why gives hits
// with none.
func (c *Client) SearchToolHits(ctx context.Context, f host.ViewFilter, query string, limit int) ([]host.ToolHit, error) {
	var out []host.ToolHit
	err := c.do(ctx, http.MethodPost, "/v1/tools", toolsRequest{Filter: c.narrow(f), Query: query, Limit: limit, Search: true}, &out)
	return out, err
}

// Find is what a person's name for a tool, prompt, resource or template
// names (host.View.Find): the same did-you-mean errors, *host.NameError
// and *host.DownError.
func (c *Client) Find(ctx context.Context, kind host.Kind, name string) (host.Named, error) {
	var n host.Named
	err := c.do(ctx, http.MethodPost, "/v1/find", findRequest{Filter: c.filter, Kind: kind, Name: name}, &n)
	return n, err
}

// narrow is f within the client's own view: both must show a thing.
func (c *Client) narrow(f host.ViewFilter) host.ViewFilter {
	if len(c.filter.Servers) == 0 && len(c.filter.Tools.Allow) == 0 && len(c.filter.Tools.Deny) == 0 {
		return f
	}
	if len(f.Servers) == 0 && len(f.Tools.Allow) == 0 && len(f.Tools.Deny) == 0 {
		return c.filter
	}
	out := c.filter
	if len(f.Servers) > 0 {
		if len(out.Servers) == 0 {
			out.Servers = f.Servers
		} else {
			var both []string
			for _, s := range f.Servers {
				for _, o := range out.Servers {
					if s == o {
						both = append(both, s)
					}
				}
			}
			if both == nil {
				both = []string{""} // none: no server has the empty name
			}
			out.Servers = both
		}
	}
	// Two allow lists cannot be joined into one glob list: keep the
	// view's, and deny what either denies.
	if len(out.Tools.Allow) == 0 {
		out.Tools.Allow = f.Tools.Allow
	}
	out.Tools.Deny = append(append([]string(nil), out.Tools.Deny...), f.Tools.Deny...)
	return out
}

// CallTool calls an exposed tool (host.Host.CallTool): the same result
// and errors (errors.Is answers host's kinds). Progress reports go to
// the function host.WithProgress put in ctx; cancelling ctx cancels the
// call at the server.
func (c *Client) CallTool(ctx context.Context, exposed string, args any) (*mcp.CallToolResult, error) {
	req := callRequest{Filter: c.filter, Name: exposed}
	switch a := args.(type) {
	case nil:
	case string:
		req.ArgsText = &a
	case []byte:
		s := string(a)
		req.ArgsText = &s
	case json.RawMessage:
		s := string(a)
		req.ArgsText = &s
	default:
		b, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("call %s: %w: %v", exposed, host.ErrBadArguments, err)
		}
		req.Args = b
	}
	resp, err := c.send(ctx, http.MethodPost, callPath, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	progress := host.ProgressFunc(ctx)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, maxRequest)
	for sc.Scan() {
		var line callLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, fmt.Errorf("daemon on %s: a call's answer: %w", c.socket, err)
		}
		if line.Progress != nil {
			if progress != nil {
				progress(*line.Progress, line.Message)
			}
			continue
		}
		var res *mcp.CallToolResult
		if line.Result != nil {
			res = new(mcp.CallToolResult)
			if err := json.Unmarshal(line.Result, res); err != nil {
				return nil, fmt.Errorf("daemon on %s: a call's result: %w", c.socket, err)
			}
		}
		if line.Error != nil {
			return res, line.Error.decode()
		}
		return res, nil
	}
	err = sc.Err()
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return nil, c.lost(ctx, err)
}

// Resources are every connected server's resources and templates
// (host.Host.Resources).
func (c *Client) Resources(ctx context.Context) ([]host.Resource, []host.ResourceTemplate, error) {
	var r resourcesReply
	err := c.do(ctx, http.MethodGet, "/v1/resources", nil, &r)
	return r.Resources, r.Templates, err
}

// ReadResource reads uri from server (host.Host.ReadResource).
func (c *Client) ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	var r mcp.ReadResourceResult
	if err := c.do(ctx, http.MethodPost, "/v1/read", readRequest{server, uri}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Prompts are every connected server's prompts (host.Host.Prompts).
func (c *Client) Prompts(ctx context.Context) ([]host.Prompt, error) {
	var ws []wirePrompt
	if err := c.do(ctx, http.MethodGet, "/v1/prompts", nil, &ws); err != nil {
		return nil, err
	}
	out := make([]host.Prompt, len(ws))
	for i, w := range ws {
		out[i] = w.Prompt
		out[i].Exposed = w.Exposed
	}
	return out, nil
}

// GetPrompt gets server's prompt name with args (host.Host.GetPrompt).
func (c *Client) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	var r mcp.GetPromptResult
	if err := c.do(ctx, http.MethodPost, "/v1/prompt", promptRequest{server, name, args}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Logs are the lines server wrote (host.Host.Logs); a server the daemon
// does not have is an error saying so.
func (c *Client) Logs(ctx context.Context, server string) ([]host.LogLine, error) {
	var out []host.LogLine
	err := c.do(ctx, http.MethodGet, "/v1/logs?server="+url.QueryEscape(server), nil, &out)
	return out, err
}

// Sources is the daemon's view of discovery, as `switchboard sources
// --json` prints it.
func (c *Client) Sources(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.do(ctx, http.MethodGet, "/v1/sources", nil, &out)
	return out, err
}

// Events delivers the host's events (host.Host.Subscribe) from now on.
// The channel is closed when ctx ends or the daemon goes away; a
// consumer that stops reading must end ctx.
func (c *Client) Events(ctx context.Context) (<-chan host.Event, error) {
	ctx, cancel := context.WithCancel(ctx)
	resp, err := c.send(ctx, http.MethodGet, "/v1/events", nil)
	if err != nil {
		cancel()
		return nil, err
	}
	ch := make(chan host.Event, 64)
	go func() {
		defer close(ch)
		defer cancel()
		defer resp.Body.Close()
		dec := json.NewDecoder(resp.Body)
		for {
			var e host.Event
			if err := dec.Decode(&e); err != nil {
				return
			}
			select {
			case ch <- e:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

// Attach opens an MCP session of its own with the daemon's gateway,
// through f (within c's view): a raw stream of newline-delimited
// JSON-RPC, as a stdio server speaks. Its roots, sampling and
// elicitation go to it alone; closing it closes nothing upstream. ctx
// bounds the opening only.
func (c *Client) Attach(ctx context.Context, f host.ViewFilter) (net.Conn, error) {
	body, err := json.Marshal(c.narrow(f))
	if err != nil {
		return nil, err
	}
	return c.upgrade(ctx, "/v1/attach", "mcp-stdio", body)
}

// upgrade sends a request that takes the connection over, and returns
// the connection once the daemon agreed.
func (c *Client) upgrade(ctx context.Context, path, proto string, body []byte) (net.Conn, error) {
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	req, _ := http.NewRequest(http.MethodPost, "http://daemon"+path, bytes.NewReader(body))
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", proto)
	br := bufio.NewReader(conn)
	err = req.Write(conn)
	var resp *http.Response
	if err == nil {
		resp, err = http.ReadResponse(br, req)
	}
	if !stop() {
		conn.Close()
		return nil, ctx.Err()
	}
	if err != nil {
		conn.Close()
		return nil, c.lost(ctx, err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer conn.Close()
		var we wireError
		if json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&we) != nil || we.Error == "" {
			return nil, fmt.Errorf("daemon on %s: %s: %s", c.socket, path, resp.Status)
		}
		return nil, we.decode()
	}
	return &bufferedConn{Conn: conn, r: br}, nil
}

// bufferedConn reads what the answer's reader buffered first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// Stop asks the daemon to drain and exit, and returns once it has closed
// its servers (its connection closing tells), or ctx ends.
func (c *Client) Stop(ctx context.Context) error {
	conn, err := c.upgrade(ctx, "/v1/stop", "switchboard-stop", nil)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	io.Copy(io.Discard, conn)
	return ctx.Err()
}
