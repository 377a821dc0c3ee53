package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// The auth commands (DESIGN.md F41): log in to a remote server that asks
// for OAuth, see what is stored, log out. Tokens never reach the output.

func newAuthCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Log in to remote servers that ask for OAuth, and see or remove their tokens",
		Long: `A remote server that asks for OAuth is listed as needs-auth until you log
in to it. 'switchboard auth login SERVER' opens the server's authorization
page in your browser (or prints its address to open elsewhere), waits for
the redirect on 127.0.0.1, and keeps the tokens in
$XDG_STATE_HOME/switchboard/oauth/tokens.json (mode 0600). switchboard
renews them before they expire; if the server revokes them, it goes back
to needs-auth.`,
		Example: `  $ switchboard auth login linear
  $ switchboard auth status
  $ switchboard auth logout linear`,
		Args: noSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("name a subcommand: login, status or logout")
		},
	}
	cmd.AddCommand(newAuthLoginCmd(f), newAuthStatusCmd(f), newAuthLogoutCmd(f))
	return cmd
}

type authLoginOptions struct {
	*Factory
	Server    string
	NoBrowser bool
	Timeout   time.Duration
	// Wait is accepted for likeness: login waits for its server.
	Wait bool
}

func newAuthLoginCmd(f *Factory) *cobra.Command {
	o := &authLoginOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "login SERVER",
		Short: "Authorize switchboard with a remote server, in the browser",
		Long: `Authorize switchboard with a remote server that asks for OAuth. The
server's authorization page opens in your browser ($BROWSER when set,
else the system's); its address is printed too, to open by hand. Once
you approve, the browser is sent back to switchboard on 127.0.0.1, the
tokens are stored, and the server connects.

A server whose client is registered in advance names it in its config:
"oauth": {"clientId": "…", "clientSecret": "${SECRET}", "callbackPort": 8976}.`,
		Example: `  $ switchboard auth login linear
  $ switchboard auth login linear --no-browser   # print the address only`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeServers(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Server = args[0]
			return runAuthLogin(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.NoBrowser, "no-browser", false, "print the authorization address; do not open a browser")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 5*time.Minute, "how long to wait for the authorization in the browser")
	addWaitFlag(cmd, &o.Wait, "login starts SERVER alone and waits for it")
	return cmd
}

func runAuthLogin(ctx context.Context, o *authLoginOptions) error {
	h, l, err := o.prepare()
	if err != nil {
		return err
	}
	defer h.Close()
	cfg, err := remoteServer(l.Servers, o.Server)
	if err != nil {
		return err
	}
	// Only this server; a grant it already has is used, and replaced.
	if err := h.Start(ctx, []config.ServerConfig{*cfg}); err != nil {
		return err
	}
	if err := h.WaitSettled(ctx); err != nil {
		return err
	}
	loginCtx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	b := &browser{io: o.IO, none: o.NoBrowser}
	defer b.wait()
	if err := h.Login(loginCtx, cfg.Name, b.show); err != nil {
		if errors.Is(err, host.ErrAuthNotRequired) {
			fmt.Fprintf(o.IO.Out, "%s does not ask for authorization; nothing to log in to.\n", termsafe.Line(cfg.Name))
			return nil
		}
		return err
	}
	if err := h.WaitSettled(ctx); err != nil {
		return err
	}
	st := statusOf(h.Status(), cfg.Name)
	switch st.State {
	case host.StateConnected:
		fmt.Fprintf(o.IO.Out, "Authorized %s; connected, %d tools.\n", termsafe.Line(cfg.Name), st.Tools)
		return nil
	case host.StateIdle:
		fmt.Fprintf(o.IO.Out, "Authorized %s; it connects on first use.\n", termsafe.Line(cfg.Name))
		return nil
	}
	msg := fmt.Sprintf("authorized %s, but it is %s", cfg.Name, st.State)
	if st.Error != "" {
		msg += ": " + st.Error
	}
	return errors.New(msg)
}

// remoteServer finds the config named name among servers: a usage error
// when there is none, an error when it is not a remote server.
func remoteServer(servers []config.ServerConfig, name string) (*config.ServerConfig, error) {
	i := slices.IndexFunc(servers, func(c config.ServerConfig) bool { return c.Name == name })
	if i < 0 {
		return nil, noServer(name)
	}
	c := &servers[i]
	if c.URL == "" {
		return nil, fmt.Errorf("server %q is a local process (a command): OAuth is for remote servers", name)
	}
	return c, nil
}

func statusOf(statuses []host.Status, name string) host.Status {
	for _, s := range statuses {
		if s.Name == name {
			return s
		}
	}
	return host.Status{Name: name}
}

// browser shows the person the authorization page: the address on stderr
// always, and in a browser unless told not to.
type browser struct {
	io     IO
	none   bool
	waited []chan struct{}
}

func (b *browser) show(_ context.Context, authURL string) error {
	u, err := url.Parse(authURL)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" {
		return fmt.Errorf("the authorization server gave an address that is not a web page: %q", termsafe.Line(authURL))
	}
	fmt.Fprintf(b.io.Err, "Open this address to authorize switchboard:\n  %s\n", termsafe.Line(authURL))
	if b.none {
		return nil
	}
	cmd := browserCommand(b.io.LookupEnv, authURL)
	if cmd == nil {
		return nil
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(b.io.Err, "switchboard: cannot open a browser (%v); open the address above\n", err)
		return nil
	}
	done := make(chan struct{})
	b.waited = append(b.waited, done)
	go func() { _ = cmd.Wait(); close(done) }()
	return nil
}

// wait gives the browser commands a moment to end: xdg-open and open hand
// the page to a running browser and exit; one that stays (a browser
// started by $BROWSER) is left to run.
func (b *browser) wait() {
	deadline := time.NewTimer(2 * time.Second)
	defer deadline.Stop()
	for _, done := range b.waited {
		select {
		case <-done:
		case <-deadline.C:
			return
		}
	}
}

// browserCommand is how to open url: $BROWSER (a program, given the url
// as its argument), else the platform's opener where there is a desktop;
// nil when there is none.
func browserCommand(lookup func(string) (string, bool), url string) *exec.Cmd {
	if b, ok := lookup("BROWSER"); ok && strings.TrimSpace(b) != "" {
		fields := strings.Fields(b)
		return exec.Command(fields[0], append(fields[1:], url)...)
	}
	switch runtime.GOOS {
	case "darwin":
		return exec.Command("open", url)
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	}
	_, x := lookup("DISPLAY")
	_, wayland := lookup("WAYLAND_DISPLAY")
	if !x && !wayland {
		return nil
	}
	if _, err := exec.LookPath("xdg-open"); err != nil {
		return nil
	}
	return exec.Command("xdg-open", url)
}

type authStatusOptions struct {
	*Factory
	JSON jsonFlag
}

func newAuthStatusCmd(f *Factory) *cobra.Command {
	o := &authStatusOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "List remote servers and the state of their tokens",
		Long: `List the remote servers in your config and how each is authorized: an
OAuth grant kept by 'auth login' (with its expiry, and whether it can be
renewed), client credentials or an identity provider from the config,
an Authorization header, or none. Tokens themselves are never shown.
Nothing is connected.`,
		Example: `  $ switchboard auth status
  $ switchboard auth status --json | jq -r '.[] | select(.method=="none") | .server'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runAuthStatus(o) },
	}
	addJSONFlag(cmd, &o.JSON, "print the list as JSON")
	return cmd
}

func runAuthStatus(o *authStatusOptions) error {
	l, err := o.Load(forHost)
	if err != nil {
		return err
	}
	o.IO.report(l)
	infos, err := host.Authorizations(o.TokenFile(), l.Servers)
	if err != nil {
		return err
	}
	if o.JSON {
		if infos == nil {
			infos = []host.AuthInfo{}
		}
		return writeJSON(o.IO.Out, infos)
	}
	if len(infos) == 0 {
		fmt.Fprintln(o.IO.Out, "No remote servers in the config.")
		return nil
	}
	now := time.Now()
	rows := [][]column{{{text: "SERVER"}, {text: "METHOD"}, {text: "TOKEN"}, {text: "SCOPES"}, {text: "URL"}}}
	for _, a := range infos {
		rows = append(rows, []column{
			{text: cell(a.Server)}, {text: a.Method}, {text: tokenState(a, now)},
			{text: cell(strings.Join(a.Scopes, " "))}, {text: cell(a.URL)},
		})
	}
	writeTable(o.IO.Out, false, rows)
	return nil
}

// tokenState says what is stored, never what it is.
func tokenState(a host.AuthInfo, now time.Time) string {
	switch {
	case !a.Stored:
		return "-"
	case a.Expired(now) && a.Refreshable:
		return "expired, renews on use"
	case a.Expired(now):
		return "expired"
	case a.Expiry.IsZero():
		return "kept"
	}
	s := "valid until " + a.Expiry.Local().Format("2006-01-02 15:04")
	if a.Refreshable {
		s += ", renewable"
	}
	return s
}

func newAuthLogoutCmd(f *Factory) *cobra.Command {
	o := &authLoginOptions{Factory: f}
	return &cobra.Command{
		Use:   "logout SERVER",
		Short: "Delete the tokens kept for a remote server",
		Long: `Delete the OAuth tokens kept for a remote server. The next time it
connects, it is listed as needs-auth until you log in again. A running
switchboard notices when it next renews the token.`,
		Example:           `  $ switchboard auth logout linear`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeServers(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Server = args[0]
			return runAuthLogout(o)
		},
	}
}

func runAuthLogout(o *authLoginOptions) error {
	l, err := o.Load(forHost)
	if err != nil {
		return err
	}
	o.IO.report(l)
	cfg, err := remoteServer(l.Servers, o.Server)
	if err != nil {
		return err
	}
	n, err := host.ForgetAuthorization(o.TokenFile(), cfg)
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(o.IO.Out, "No tokens were kept for %s.\n", termsafe.Line(cfg.Name))
		return nil
	}
	fmt.Fprintf(o.IO.Out, "Logged out of %s: its tokens are deleted.\n", termsafe.Line(cfg.Name))
	return nil
}
