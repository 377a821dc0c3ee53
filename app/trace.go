package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/host"
)

// TracingFromEnv is a tracer provider configured by the standard OTEL_*
// environment (DESIGN.md, "Observing"), exporting OTLP over HTTP, or nil
// when the environment asks for no traces: none of
// OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and
// OTEL_TRACES_EXPORTER is set, OTEL_TRACES_EXPORTER is "none", or
// OTEL_SDK_DISABLED is true. shutdown flushes and ends it.
func TracingFromEnv(ctx context.Context) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	exporter := os.Getenv("OTEL_TRACES_EXPORTER")
	off := strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") || exporter == "none" ||
		(exporter == "" && os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "")
	if off {
		return nil, func(context.Context) error { return nil }, nil
	}
	if exporter != "" && exporter != "otlp" {
		return nil, nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: only otlp is supported", exporter)
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := os.Getenv(name); p != "" {
			if p != "http/protobuf" {
				return nil, nil, fmt.Errorf("%s=%s: only http/protobuf is supported", name, p)
			}
			break
		}
	}
	exp, err := otlptracehttp.New(ctx) // reads the OTEL_EXPORTER_OTLP_* settings itself
	if err != nil {
		return nil, nil, fmt.Errorf("traces: %w", err)
	}
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES come after the
	// default name, and win.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "switchboard")),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, nil, fmt.Errorf("traces: %w", err)
	}
	// The sampler is the SDK's default, which reads OTEL_TRACES_SAMPLER.
	sdk := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return sdk, sdk.Shutdown, nil
}

// tracing makes the spans of the MCP semantic conventions: one per
// request a client sends the gateway (server kind) and one per call the
// host sends a server (client kind), linked by W3C trace context in
// params._meta, and for HTTP servers in the traceparent header.
type tracing struct {
	tr   trace.Tracer
	prop propagation.TraceContext
}

func newTracing(tp trace.TracerProvider) *tracing {
	return &tracing{tr: tp.Tracer("github.com/switchboard-mcp/switchboard")}
}

// metaCarrier reads and writes trace context in a _meta map.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string { s, _ := m[key].(string); return s }
func (m metaCarrier) Set(key, value string) { m[key] = value }
func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// middleware spans each request a client sends, under the trace its
// _meta names.
func (t *tracing) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		params := req.GetParams()
		if params != nil && !reflect.ValueOf(params).IsNil() {
			ctx = t.prop.Extract(ctx, metaCarrier(params.GetMeta()))
		}
		name := method
		// At most six attributes: one slice, never grown.
		attrs := make([]attribute.KeyValue, 1, 6)
		attrs[0] = attribute.String("mcp.method.name", method)
		switch p := params.(type) {
		case *mcp.CallToolParamsRaw:
			if p != nil {
				name += " " + p.Name
				attrs = append(attrs, attribute.String("gen_ai.tool.name", p.Name), attribute.String("gen_ai.operation.name", "execute_tool"))
			}
		case *mcp.GetPromptParams:
			if p != nil {
				name += " " + p.Name
				attrs = append(attrs, attribute.String("gen_ai.prompt.name", p.Name))
			}
		case *mcp.ReadResourceParams:
			if p != nil {
				attrs = append(attrs, attribute.String("mcp.resource.uri", p.URI))
			}
		}
		if s := req.GetSession(); s != nil && s.ID() != "" {
			attrs = append(attrs, attribute.String("mcp.session.id", s.ID()))
		}
		if id := requestID(ctx); id != "" {
			attrs = append(attrs, attribute.String("jsonrpc.request.id", id))
		}
		// The user a token names (DESIGN.md F65), never the token.
		if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
			attrs = append(attrs, attribute.String("enduser.id", extra.TokenInfo.UserID))
		}
		ctx, span := t.tr.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		defer span.End()
		res, err := next(ctx, method, req)
		ended(span, res, err, "")
		return res, err
	}
}

// observeCall spans a call the host sends a server, and puts its trace
// context in the request's _meta (the host copies it to HTTP headers).
func (t *tracing) observeCall(ctx context.Context, call *host.ObservedCall) (context.Context, func(*mcp.CallToolResult, error)) {
	params := call.Params
	attrs := make([]attribute.KeyValue, 4, 5) // and the session's
	attrs[0] = attribute.String("mcp.method.name", "tools/call")
	attrs[1] = attribute.String("gen_ai.tool.name", params.Name)
	attrs[2] = attribute.String("gen_ai.operation.name", "execute_tool")
	attrs[3] = attribute.String("switchboard.server", call.Server)
	if call.Session != "" {
		attrs = append(attrs, attribute.String("mcp.session.id", call.Session))
	}
	ctx, span := t.tr.Start(ctx, "tools/call "+params.Name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	if params.Meta == nil {
		params.Meta = mcp.Meta{}
	}
	t.prop.Inject(ctx, metaCarrier(params.Meta))
	return ctx, func(res *mcp.CallToolResult, err error) {
		var r mcp.Result
		if res != nil {
			r = res
		}
		ended(span, r, err, host.Outcome(res, err))
		span.End()
	}
}

// ended sets a span's error.type and status from a request's outcome: the
// JSON-RPC error code when there is one, else outcome (or "tool_error"
// for a tool's own error).
func ended(span trace.Span, res mcp.Result, err error, outcome string) {
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc):
		span.SetAttributes(attribute.String("error.type", strconv.FormatInt(rpc.Code, 10)),
			attribute.String("rpc.response.status_code", strconv.FormatInt(rpc.Code, 10)))
		span.SetStatus(codes.Error, err.Error())
	case err != nil:
		if outcome == "" {
			outcome = "_OTHER"
		}
		span.SetAttributes(attribute.String("error.type", outcome))
		span.SetStatus(codes.Error, err.Error())
	default:
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			span.SetAttributes(attribute.String("error.type", "tool_error"))
			span.SetStatus(codes.Error, "tool error")
		}
	}
}
