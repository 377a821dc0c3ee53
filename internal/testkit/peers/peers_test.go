package peers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(Reporting(m))
}

func TestStartEverything(t *testing.T) {
	for _, mode := range []string{"sse", "streamableHttp"} {
		t.Run(mode, func(t *testing.T) {
			var pgid int
			t.Run("serve", func(t *testing.T) {
				p := startEverything(t, mode)
				pgid = p.cmd.Process.Pid
				resp := get(t, p.url)
				t.Logf("GET %s: %s", p.url, resp.Status)
				if mode == "sse" && resp.StatusCode != http.StatusOK {
					t.Errorf("GET %s: %s, want 200", p.url, resp.Status)
				}
			})
			if pgid == 0 {
				return
			}
			// The subtest's cleanup has run: the group must be gone.
			if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("process group %d after cleanup: kill 0 = %v, want ESRCH", pgid, err)
			}
		})
	}
}

// get makes one request and reports that something answered; the body (an
// endless event stream for /sse) is not read.
func get(t *testing.T, url string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	return resp
}

// express 5 prints the ready line even when the port is taken; awaitListening
// must see through that so that StartEverything retries.
func TestAwaitListeningPortTaken(t *testing.T) {
	for _, mode := range []string{"sse", "streamableHttp"} {
		t.Run(mode, func(t *testing.T) {
			l, err := net.Listen("tcp", ":0") // every interface, as node binds
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			port := l.Addr().(*net.TCPAddr).Port
			p, err := start(Node(t), []string{entry(t, "server-everything"), mode},
				[]string{fmt.Sprintf("PORT=%d", port)}, fmt.Sprintf("%s %d", httpModes[mode].ready, port))
			if err != nil {
				t.Fatal(err)
			}
			defer p.stop()
			if err := p.awaitListening(port); !errors.Is(err, errPortTaken) {
				t.Errorf("awaitListening on a taken port = %v, want errPortTaken\noutput:\n%s", err, p.tail())
			}
		})
	}
}

// Each stdio helper's command line must start a server that answers initialize.
func TestStdio(t *testing.T) {
	tests := []struct {
		name string
		cmd  func(t *testing.T) (string, []string, []string)
	}{
		{"everything", func(t *testing.T) (string, []string, []string) {
			c, a := EverythingStdio(t)
			return c, a, nil
		}},
		{"filesystem", func(t *testing.T) (string, []string, []string) { return FilesystemStdio(t, t.TempDir()) }},
		{"memory", func(t *testing.T) (string, []string, []string) { return MemoryStdio(t, "") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			command, args, env := tt.cmd(t)
			if got := initialize(t, command, args, env); !strings.Contains(got, `"serverInfo"`) {
				t.Errorf("initialize answer has no serverInfo: %s", got)
			}
		})
	}
}

// initialize sends an MCP initialize request and returns the first line of the answer.
func initialize(t *testing.T, command string, args, env []string) string {
	t.Helper()
	cmd := exec.Command(command, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.WaitDelay = stopGrace
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Closing stdin does not stop server-everything: signal the group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	}()
	const req = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"peers-test","version":"0"}}}` + "\n"
	if _, err := io.WriteString(stdin, req); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		return s
	case <-time.After(readyTimeout):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-line
		t.Fatalf("no answer to initialize within %v", readyTimeout)
		return ""
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root + "/go.mod"); err != nil {
		t.Errorf("ModuleRoot() = %q: %v", root, err)
	}
}
