//go:build linux || darwin || freebsd

package daemon

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// The uid check's own answer, for a machine where the test cannot run a
// process as another user (TestOtherUserRefused needs root): a real
// unix connection's peer is this process's uid.
func TestPeerUID(t *testing.T) {
	dir, err := os.MkdirTemp("", "sbpeer")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "s"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	uid, err := peerUID(server)
	if err != nil || uid != os.Getuid() {
		t.Errorf("peerUID = %d, %v; want %d", uid, err, os.Getuid())
	}
	l := &listener{UnixListener: ln, uid: os.Getuid() + 1}
	l.refuse(uid, nil)
	l.refuse(uid, nil)
	if len(l.refused) != 1 || !l.refused[uid] {
		t.Errorf("refused %v: one uid, logged once", l.refused)
	}
}
