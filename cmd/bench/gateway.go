package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// gatewayShutdown bounds the gateway contender's HTTP server shutdown: its
// one client has closed its session by then, so only idle connections
// are left to close.
const gatewayShutdown = 5 * time.Second

// gatewayCaller calls through `switchboard serve`'s gateway: a go-sdk
// client over streamable HTTP on loopback to a gateway over a host with
// the one server, all in the contender's process, so its CPU and memory
// are the client's, the gateway's and the host's together. The client
// speaks the legacy era, as the host does upstream: the like-for-like path.
type gatewayCaller struct {
	h      *host.Host
	srv    *http.Server
	stop   context.CancelFunc // ends the gateway's Run
	ran    chan error
	served chan error
	sess   *mcp.ClientSession
	http   *http.Client
	params *mcp.CallToolParams
}

func dialGateway(ctx context.Context, t *target) (caller, error) {
	h := host.New(nil)
	gw := gateway.New(h, nil)
	runCtx, stop := context.WithCancel(context.Background())
	c := &gatewayCaller{h: h, stop: stop, ran: make(chan error, 1)}
	go func() { c.ran <- gw.Run(runCtx) }()
	if err := c.start(ctx, gw, t); err != nil {
		return nil, errors.Join(fmt.Errorf("gateway: %w", err), c.close())
	}
	return c, nil
}

func (c *gatewayCaller) start(ctx context.Context, gw *gateway.Gateway, t *target) error {
	if err := c.h.Start(ctx, []config.ServerConfig{t.serverConfig("bench")}); err != nil {
		return err
	}
	st := c.h.Status()[0]
	if st.State != host.StateConnected {
		return fmt.Errorf("server %s: %s", st.State, st.Error)
	}
	var exposed string
	for _, tool := range c.h.Tools().Tools {
		if tool.Tool == t.Tool {
			exposed = tool.Name
		}
	}
	if exposed == "" {
		return fmt.Errorf("no tool %q", t.Tool)
	}
	select {
	case <-gw.Synced():
	case <-ctx.Done():
		return ctx.Err()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	c.srv = &http.Server{Handler: gw.Handler(gateway.HTTPOptions{})}
	c.served = make(chan error, 1)
	go func() { c.served <- c.srv.Serve(ln) }()
	c.http = pooledClient()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + gateway.Path, HTTPClient: c.http}
	c.sess, err = client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: host.ProtocolVersion})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	c.params = &mcp.CallToolParams{Name: exposed, Arguments: t.Arguments}
	return nil
}

func (c *gatewayCaller) calls(ctx context.Context, lat []time.Duration, callers int) error {
	return concurrently(lat, callers, func() error {
		res, err := c.sess.CallTool(ctx, c.params)
		if err == nil && res.IsError {
			err = fmt.Errorf("%s: %s", c.params.Name, host.ResultText(res))
		}
		return err
	})
}

// close ends the client's session, then the HTTP server, the gateway and
// the host, in that order: each is a client of the next.
func (c *gatewayCaller) close() error {
	var errs []error
	if c.sess != nil {
		errs = append(errs, c.sess.Close())
		c.http.CloseIdleConnections()
	}
	if c.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), gatewayShutdown)
		errs = append(errs, c.srv.Shutdown(ctx))
		cancel()
		if err := <-c.served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	}
	c.stop()
	errs = append(errs, <-c.ran, c.h.Close())
	return errors.Join(errs...)
}
