package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostileServer is an MCP server and its authorization server on one
// loopback port that misbehave as asked: a 401 whose body never ends, a
// token endpoint that echoes the request it got.
type hostileServer struct {
	*httptest.Server
	endless401, echoToken bool
}

func newHostileServer(t *testing.T, endless401, echoToken bool) *hostileServer {
	hs := &hostileServer{endless401: endless401, echoToken: echoToken}
	mux := http.NewServeMux()
	hs.Server = httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	base := hs.URL
	writeJSON := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/prm"`)
		w.WriteHeader(http.StatusUnauthorized)
		chunk := []byte(strings.Repeat("x", 4096))
		for hs.endless401 && r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/prm", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "code_challenge_methods_supported": []string{"S256"},
			"response_types_supported": []string{"code"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 201, map[string]any{"client_id": "dcr-client", "client_secret": "DCR-CLIENT-SECRET-123",
			"token_endpoint_auth_method": "client_secret_post"})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if hs.echoToken {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "bad request, got: %s", r.PostForm.Encode())
			return
		}
		writeJSON(w, 200, map[string]any{"access_token": "AT-ISSUED-123456", "token_type": "Bearer", "expires_in": 3600})
	})
	return hs
}

// approve is a browser that approves at once, sending a code to the
// callback the authorization url names.
func approve(ctx context.Context, authURL string) error {
	u, err := url.Parse(authURL)
	if err != nil {
		return err
	}
	q := u.Query()
	cb := q.Get("redirect_uri") + "?code=AUTH-CODE-123456&state=" + url.QueryEscape(q.Get("state"))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cb, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// A token endpoint that echoes the request (code, verifier, the client
// secret registration issued) into its refusal: none of it reaches the
// error.
func TestLoginRefusalQuotesNoSecret(t *testing.T) {
	hs := newHostileServer(t, false, true)
	h := New(Settings{Server: "evil", URL: hs.URL + "/mcp"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := h.Login(ctx, approve)
	if err == nil {
		t.Fatal("Login against a refusing token endpoint worked")
	}
	for _, secret := range []string{"DCR-CLIENT-SECRET-123", "AUTH-CODE-123456", "code_verifier"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error quotes %q: %v", secret, err)
		}
	}
	if !strings.Contains(err.Error(), "HTTP 400") {
		t.Errorf("the error does not say what the server answered: %v", err)
	}
}

// A 401 whose body never ends does not hold the login: what go-sdk
// drains of it is bounded.
func TestLoginEndless401Body(t *testing.T) {
	hs := newHostileServer(t, true, false)
	h := New(Settings{Server: "evil", URL: hs.URL + "/mcp"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.Login(ctx, approve); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("Login returned only when its context ended")
	}
}

// The scopes a server asked for in a step-up are kept when the grant is
// lost, so the login that follows asks for them too.
func TestStepUpScopesOutliveTheGrant(t *testing.T) {
	h := New(Settings{URL: "https://x/mcp"}, nil)
	h.setSource(&source{h: h, g: Grant{Scopes: []string{"read"}}})
	h.remember([]string{"write"}) // the 403's challenge
	h.needsAuth("the server asks for more scopes than were granted")
	got := h.scopes([]string{"read"}) // the login's probe names the base scope
	if strings.Join(got, " ") != "write read" {
		t.Errorf("scopes after the loss = %v, want write and read", got)
	}
}

// One server's refresh, waiting on a slow authorization server, does not
// hold another server's first token lookup.
func TestRefreshHoldsNoStoreLock(t *testing.T) {
	release, arrived := make(chan struct{}), make(chan struct{}, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"new-at-aaaa","token_type":"Bearer","expires_in":3600}`)
	}))
	defer slow.Close()
	store := NewStore(filepath.Join(t.TempDir(), "oauth", "tokens.json"))
	now := time.Now()
	store.Save(Grant{Server: "https://a/mcp", ClientID: "c", TokenURL: slow.URL, AccessToken: "old-at-aaaa", RefreshToken: "rt-aaaa",
		Expiry: now.Add(-time.Minute), Obtained: now.Add(-time.Hour)})
	store.Save(Grant{Server: "https://b/mcp", ClientID: "c", AccessToken: "b-at-bbbb", Expiry: now.Add(time.Hour), Obtained: now})
	a := New(Settings{URL: "https://a/mcp", Store: store}, nil)
	b := New(Settings{URL: "https://b/mcp", Store: store}, nil)
	tsA, _ := a.TokenSource(context.Background())
	refreshed := make(chan struct{})
	go func() { defer close(refreshed); tsA.Token() }()
	defer func() { close(release); <-refreshed }() // before the store's folder goes
	<-arrived                                      // a's refresh is at the authorization server
	done := make(chan error, 1)
	go func() {
		ts, err := b.TokenSource(context.Background())
		if err == nil {
			_, err = ts.Token()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server b's token waited for server a's refresh")
	}
}
