package host

import "github.com/switchboard-mcp/switchboard/host/internal/transport"

// EnvStartedBy names the variable every stdio server the host starts
// finds set to the host's pid (DESIGN.md F17): a program that is itself
// a host of MCP servers can tell it was started as one.
const EnvStartedBy = transport.EnvStartedBy
