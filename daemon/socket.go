package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// SocketPath is where a person's daemon listens: in
// $XDG_RUNTIME_DIR/switchboard/, a folder only they can reach that the
// system empties at logout, else in stateDir/run/ (DESIGN.md F56).
func SocketPath(stateDir string) string {
	return SocketPathIn(os.Getenv("XDG_RUNTIME_DIR"), stateDir)
}

// SocketPathIn is SocketPath for a runtime folder read elsewhere (a
// command line's own environment); "" or a relative one is none.
func SocketPathIn(runtimeDir, stateDir string) string {
	if runtimeDir != "" && filepath.IsAbs(runtimeDir) {
		return filepath.Join(runtimeDir, "switchboard", "daemon.sock")
	}
	return filepath.Join(stateDir, "run", "daemon.sock")
}

// probeWait bounds asking a socket found in place whether a daemon
// answers: a live one answers at once, a stale one refuses at once.
const probeWait = 5 * time.Second

// Listen claims path for a daemon: its folder is made 0700 (an existing
// one must be the person's own and closed to others), the socket is 0600,
// a socket nothing answers on (a daemon that died) is replaced, and one a
// daemon answers on is an error naming its pid. Every connection the
// listener accepts comes from a process of this uid: any other is closed
// and logged once (slog's default logger; Options.Logger for Serve's).
// Two Listens of one path at once take turns (lockSocket): one claims it.
func Listen(path string) (net.Listener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("daemon socket folder %s: %w", dir, err)
	}
	if err := ownFolder(dir); err != nil {
		return nil, err
	}
	unlock, err := lockSocket(path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := clearStale(path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("daemon socket %s: %w", path, err)
	}
	// Closing unlinks the socket only while it is still ours (close.go):
	// never one a later daemon put in its place.
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("daemon socket %s: %w", path, err)
	}
	info, err := os.Lstat(path)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("daemon socket %s: %w", path, err)
	}
	return &listener{UnixListener: ln, path: path, info: info, uid: os.Getuid()}, nil
}

// ownFolder refuses a socket folder another user owns or others may
// enter: whoever can write there could put their own socket in place.
func ownFolder(dir string) error {
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("daemon socket folder %s: %w", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("daemon socket folder %s: not a folder", dir)
	}
	if uid, ok := fileUID(info); ok && uid != os.Getuid() {
		return fmt.Errorf("daemon socket folder %s: owned by uid %d, not you (uid %d)", dir, uid, os.Getuid())
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("daemon socket folder %s: mode %04o lets others in; want 0700 (chmod 700 %s)", dir, perm, dir)
	}
	return nil
}

// clearStale removes a socket at path that nothing answers on, and
// refuses one a daemon answers on, or a file that is no socket.
func clearStale(path string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("daemon socket %s: %w", path, err)
	}
	if info.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("daemon socket %s: a file that is not a socket is in the way", path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeWait)
	defer cancel()
	c, err := Dial(ctx, path)
	if err == nil {
		defer c.Close()
		if in, err := c.Info(ctx); err == nil {
			return fmt.Errorf("a daemon already runs on %s (pid %d)", path, in.PID)
		}
		return fmt.Errorf("daemon socket %s: something else answers on it", path)
	}
	if !errors.Is(err, ErrNoDaemon) {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("daemon socket %s: removing the stale socket: %w", path, err)
	}
	return nil
}

// listener is a unix listener that lets in only its own uid's processes.
type listener struct {
	*net.UnixListener
	path string
	info fs.FileInfo // the socket file it made, to unlink only that one
	uid  int

	logger    *slog.Logger // set by Serve before it accepts; nil is slog's default
	mu        sync.Mutex
	refused   map[int]bool // uids already logged
	closeOnce sync.Once
}

// Accept returns the next connection from a process of the listener's
// uid, closing every other.
func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.UnixListener.AcceptUnix()
		if err != nil {
			return nil, err
		}
		uid, err := peerUID(c)
		if err == nil && uid == l.uid {
			return c, nil
		}
		c.Close()
		l.refuse(uid, err)
	}
}

// refuse logs a refused peer once per uid (a loop of attempts is one line).
func (l *listener) refuse(uid int, err error) {
	if err != nil {
		uid = -1
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refused[uid] {
		return
	}
	if l.refused == nil {
		l.refused = map[int]bool{}
	}
	l.refused[uid] = true
	log := l.logger
	if log == nil {
		log = slog.Default()
	}
	if err != nil {
		log.Warn("daemon: refused a connection whose peer could not be identified", "socket", l.path, "err", err)
		return
	}
	log.Warn("daemon: refused a connection from another user", "socket", l.path, "uid", uid, "want", l.uid)
}

// Close stops listening and removes the socket file if it is still the
// one Listen made.
func (l *listener) Close() error {
	err := l.UnixListener.Close()
	l.closeOnce.Do(func() {
		if now, serr := os.Lstat(l.path); serr == nil && os.SameFile(now, l.info) {
			os.Remove(l.path)
		}
	})
	return err
}
