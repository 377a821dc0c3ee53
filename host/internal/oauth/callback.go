package oauth

import (
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// callbackPath is where the authorization server sends the browser back.
const callbackPath = "/callback"

// callback is the loopback listener of one authorization (RFC 8252): the
// redirect with the code comes to it, from the person's browser, and only
// a redirect that carries the flow's state is taken, so another program
// on the machine cannot end the flow with a code of its own.
type callback struct {
	ln  net.Listener
	srv *http.Server

	mu     sync.Mutex
	state  string // what the flow's authorization url carries
	result chan callbackResult
	done   sync.WaitGroup
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

// listen starts the listener on 127.0.0.1 at port, or a free port for 0.
func listen(port int) (*callback, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listening for the authorization redirect on 127.0.0.1:%d: %w", port, err)
	}
	cb := &callback{ln: ln, result: make(chan callbackResult, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+callbackPath, cb.serve)
	cb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	cb.done.Add(1)
	go func() {
		defer cb.done.Done()
		_ = cb.srv.Serve(ln)
	}()
	return cb, nil
}

func (cb *callback) redirectURL() string {
	return "http://" + cb.ln.Addr().String() + callbackPath
}

// close stops the listener and waits for its goroutines.
func (cb *callback) close() {
	_ = cb.srv.Close()
	cb.done.Wait()
}

// await asks consent for authURL and waits for the redirect that answers
// it, or for ctx to end.
func (cb *callback) await(ctx context.Context, authURL string, consent Consent) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, fmt.Errorf("authorization url: %w", err)
	}
	cb.mu.Lock()
	cb.state = u.Query().Get("state")
	cb.mu.Unlock()
	if err := consent(ctx, authURL); err != nil {
		return nil, err
	}
	select {
	case r := <-cb.result:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the authorization in the browser: %w", context.Cause(ctx))
	}
}

func (cb *callback) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cb.mu.Lock()
	state := cb.state
	cb.mu.Unlock()
	if state == "" || q.Get("state") != state {
		page(w, http.StatusBadRequest, "This is not the authorization switchboard is waiting for.")
		return
	}
	var res callbackResult
	if e := q.Get("error"); e != "" {
		msg := e
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		res.err = fmt.Errorf("the authorization server refused: %s", clip.Text(msg))
		page(w, http.StatusOK, "Authorization was refused: "+clip.Text(msg)+". You can close this window.")
	} else if q.Get("code") == "" {
		page(w, http.StatusBadRequest, "The redirect carries no authorization code.")
		return
	} else {
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		page(w, http.StatusOK, "switchboard is authorized. You can close this window.")
	}
	select {
	case cb.result <- res:
	default: // a second redirect for the same state: the first one counts
	}
}

func page(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><title>switchboard</title><p>%s</p>\n", html.EscapeString(text))
}
