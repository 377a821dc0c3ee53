// Package daemon runs one switchboard per person: an app (package app)
// served on a unix socket, which the command line, the stdio bridges of
// client apps and an agent's subagents attach to instead of starting
// their own servers (DESIGN.md F56, F58).
//
// The server side is Listen, which claims the socket (a folder only its
// user may enter, the socket 0600, every peer's uid checked), and Serve,
// which answers on it until its context ends, a client asks it to Stop,
// or it was idle too long. The client side is Dial (or AttachFromEnv in
// a child process) and a Client whose methods are a host view's: tools,
// calls with progress and cancellation, resources, prompts, logs,
// events; and Attach, a raw MCP stream served by the app's gateway as a
// downstream session of its own.
//
// The control API is JSON over HTTP on the socket, under /v1/; it is
// local and private to this package's Client, not a protocol to build on.
package daemon
