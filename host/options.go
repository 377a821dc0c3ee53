package host

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

// DefaultStartupGate is how long Start waits for servers before answering
// with what it has (DESIGN.md F13). A quarter second is short enough that a
// person does not notice, and long enough for local stdio servers.
const DefaultStartupGate = 250 * time.Millisecond

// ProtocolVersion is the legacy era's version, the one the host speaks
// with a server that does not take 2026-07-28 (eras.go). A config's
// protocolVersion pins either.
const ProtocolVersion = config.ProtocolLegacy

// Options configure a Host. The zero value is usable.
type Options struct {
	// Logger receives the host's own diagnostics, with every secret the
	// host knows masked (DESIGN.md F44). Nil discards them.
	Logger *slog.Logger
	// StartupGate bounds how long Start waits for servers that have cached
	// tools. Zero means DefaultStartupGate.
	StartupGate time.Duration
	// CacheDir holds the tool cache. Empty means no cache: Start then waits
	// for every server (correctness over speed).
	CacheDir string
	// StartWait bounds how long Start (and Reload) waits in all, servers
	// without cached tools included (a first run, no cache), for an agent
	// that must answer its user at once. The servers still connecting when
	// it passes go on in the background; their tools arrive with
	// EventTools (until then their names are unknown, unless cached tools
	// stand in). Zero means no bound but each server's startup timeout. A
	// bound below StartupGate ends the gate too.
	StartWait time.Duration
	// ProjectDir is where stdio servers run when their config has no cwd,
	// and part of the cache key of project-level servers. Empty means the
	// current directory.
	ProjectDir string
	// UntrustedProject says ProjectDir has not been trusted: nothing in it
	// may run. Stdio servers then start in the home directory instead
	// (a relative cwd is taken from there), so that `python3 -m mod` or
	// npx cannot pick up the repository's modules, and the project is
	// offered to servers as a root instead. False runs them in ProjectDir.
	UntrustedProject bool
	// TrustProject starts servers that discovery marked Untrusted (project
	// configs not yet trusted). Without it they are listed as untrusted and
	// never started: a cloned repository must not start programs.
	TrustProject bool
	// ToolPrefix starts every exposed tool name. Empty means
	// DefaultToolPrefix; use NoToolPrefix for none.
	ToolPrefix string
	// PassThroughNames exposes each tool under its own name where no other
	// server's tool has it, and as ToolPrefix + server + "__" + tool only
	// where one does: for a gateway in front of one server, which should
	// look like that server.
	PassThroughNames bool
	// ClientName and ClientVersion are what servers see in initialize.
	// Empty means "switchboard" and Version.
	ClientName, ClientVersion string

	// Roots are offered to servers that ask for roots/list (DESIGN.md F27),
	// in either era, until SetRoots replaces them.
	Roots []*mcp.Root
	// ListRoots, when set, answers a server's roots/list before Roots do,
	// in either era, under the caller's context (CallerOf): a gateway
	// passes the request to the client whose call it serves. A nil list
	// and nil error leave the answer to Roots.
	ListRoots func(ctx context.Context, server string) ([]*mcp.Root, error)
	// Sampling answers a server's sampling/createMessage request. Nil means
	// sampling is not offered, and a server that asks anyway is refused.
	Sampling func(ctx context.Context, server string, req *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	// SamplingWithTools answers every sampling/createMessage request, those
	// that offer the model tools (sampling.tools, SEP-1577) and those that
	// do not, in place of Sampling; setting it offers sampling with tools.
	// A request without tools that a call through a view with a Sampling
	// handler of its own led to still goes to that handler. Nil leaves
	// sampling to Sampling.
	SamplingWithTools func(ctx context.Context, server string, req *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error)
	// Elicitation answers a server's elicitation/create request; defaults
	// from the requested schema are filled into an accepted answer. Nil
	// means elicitation is not offered.
	//
	// Every callback here (ListRoots, Sampling, SamplingWithTools,
	// Elicitation, Authorize)
	// and a WithProgress function is guarded: a panic, or a nil result
	// with a nil error (but ListRoots's), is answered to the server as an
	// error wrapping ErrHandler and reported in the server's log.
	Elicitation func(ctx context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// LogLevel is the level asked of servers that offer logging. Empty
	// means "info".
	LogLevel mcp.LoggingLevel
	// NotificationBuffer is how many notification events (logs, progress,
	// list changes, resource updates) are kept while nobody subscribes, for
	// DrainEvents. Zero means DefaultNotificationBuffer.
	NotificationBuffer int
	// Subreaper makes the process a child subreaper while the host is
	// open (Linux; elsewhere it does nothing): a server's descendant whose
	// parent died (one that left the group by setsid included) is
	// re-parented to this process instead of to init, and the host reaps
	// it when it exits, so ended servers leave no zombies even under an
	// init that does not reap (a container's). A server's leftovers are
	// ended when it ends either way, found by a mark in their environment
	// (DESIGN.md F17).
	//
	// It is off by default because it changes the embedding process, not
	// just the host: the setting is process-wide, and the process then
	// becomes the parent of the orphans of all its descendants, the
	// program's own too, which the host reaps as they exit. A child the
	// program started with os/exec and has not waited for keeps its exit
	// status for its Wait, told apart by the pidfd Go holds for it (Linux
	// 5.4 and later); a child started some other way (syscall.ForkExec, or
	// on an older kernel) may be reaped. The last host to close puts the
	// setting back as it found it. The command line turns it on.
	Subreaper bool

	// DiscoverTimeout bounds the server/discover probe of a server whose
	// protocol era is not known yet (DESIGN.md, "Protocol eras"). Zero
	// means DefaultDiscoverTimeout.
	DiscoverTimeout time.Duration

	// TokenFile is where OAuth grants are kept between runs (DESIGN.md
	// F42): JSON of mode 0600, shared by every host of the user, locked
	// and written atomically. Empty keeps them in memory for the host's
	// life.
	TokenFile string
	// Authorize, when set, is how the host asks a person to authorize a
	// remote server that asks for OAuth (F41): it is given the server's
	// name and the url to open (in a browser, or shown to copy), and
	// returns once it has shown it; the host listens on loopback for the
	// redirect, keeps the grant and connects the server. Nil puts such a
	// server in state needs-auth until Login.
	Authorize func(ctx context.Context, server, url string) error
	// PinFile is where the tools' definitions are remembered as first
	// seen or approved (DESIGN.md F66): JSON of mode 0600, shared by
	// every host of the user, locked and written atomically, and read
	// again when another process changes it (an approval). A changed
	// tool is marked (Tool.Pin, Status.Pins, EventPin) and, on a server
	// with pinTools, withheld until approved. Empty remembers nothing.
	PinFile string
	// Pins, when set, is where the pins are kept instead of PinFile: a
	// store the replicas of a gateway share, so each withholds and
	// releases the same tools (DESIGN.md F66). Nil uses PinFile.
	Pins PinStore
	// Observer, when set, hears of calls and tool cache hits, for metrics
	// and traces (observe.go). Nil observes nothing.
	Observer *Observer
}

// DefaultNotificationBuffer is how many events wait for a consumer that
// has not subscribed (DESIGN.md F26).
const DefaultNotificationBuffer = 100

// NoToolPrefix as Options.ToolPrefix exposes tools as <server>__<tool>.
const NoToolPrefix = "-"

// Version is the host's version as sent to servers.
var Version = "0.1.0"
