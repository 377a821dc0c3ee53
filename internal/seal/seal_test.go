package seal_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/seal"
)

func newKey(t testing.TB) []byte {
	t.Helper()
	k := make([]byte, seal.KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func b64(k []byte) string { return base64.StdEncoding.EncodeToString(k) }

func keyFile(t *testing.T, text string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

func TestSealOpenErrors(t *testing.T) {
	kr, err := seal.New(newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	v := kr.Seal("session", "user:ann", now.Add(time.Hour), []byte("payload"))
	if strings.ContainsAny(v, "+/=\r\n ") {
		t.Fatalf("sealed value %q is not URL- and header-safe", v)
	}
	got, err := kr.Open("session", "user:ann", now, v)
	if err != nil || string(got) != "payload" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if v2 := kr.Seal("session", "user:ann", now.Add(time.Hour), []byte("payload")); v2 == v {
		t.Fatal("two seals of one value are equal: no nonce")
	}

	other, _ := seal.New(newKey(t))
	raw, _ := base64.RawURLEncoding.DecodeString(v)
	flip := func(i int) string {
		b := append([]byte(nil), raw...)
		b[i] ^= 1
		return base64.RawURLEncoding.EncodeToString(b)
	}
	// The same bytes spelled with other spare bits in the last
	// character (64 bytes sealed: 4 spare bits).
	respelled := ""
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" {
		w := v[:len(v)-1] + string(c)
		if b, err := base64.RawURLEncoding.DecodeString(w); w != v && err == nil && bytes.Equal(b, raw) {
			respelled = w
			break
		}
	}
	if respelled == "" {
		t.Fatalf("no other spelling of %d bytes", len(raw))
	}
	for _, tc := range []struct {
		name, purpose, caller, value string
		kr                           *seal.Keyring
		at                           time.Time
		want                         error
	}{
		{"last byte flipped", "session", "user:ann", flip(len(raw) - 1), kr, now, seal.ErrTampered},
		{"ciphertext flipped", "session", "user:ann", flip(len(raw) - 20), kr, now, seal.ErrTampered},
		{"purpose byte flipped", "session", "user:ann", flip(6), kr, now, seal.ErrTampered},
		{"not base64", "session", "user:ann", "!!!" + v, kr, now, seal.ErrTampered},
		{"truncated", "session", "user:ann", v[:10], kr, now, seal.ErrTampered},
		{"another spelling of the same bytes", "session", "user:ann", respelled, kr, now, seal.ErrTampered},
		{"empty", "session", "user:ann", "", kr, now, seal.ErrTampered},
		{"expired", "session", "user:ann", v, kr, now.Add(time.Hour), seal.ErrExpired},
		{"another caller", "session", "user:bob", v, kr, now, seal.ErrOtherCaller},
		{"no caller", "session", "", v, kr, now, seal.ErrOtherCaller},
		{"another purpose", "requestState", "user:ann", v, kr, now, seal.ErrPurpose},
		{"unknown key", "session", "user:ann", v, other, now, seal.ErrUnknownKey},
	} {
		_, err := tc.kr.Open(tc.purpose, tc.caller, tc.at, tc.value)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Open error = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// The first key of a file seals and every key opens: a file rotated to
// "key2\nkey1" opens what key1 sealed, and seals under key2.
func TestRotation(t *testing.T) {
	k1, k2 := newKey(t), newKey(t)
	old, err := seal.Load(keyFile(t, "# the key\n"+b64(k1)+"\n", 0o600))
	if err != nil {
		t.Fatal(err)
	}
	v := old.Seal("session", "", time.Now().Add(time.Minute), []byte("x"))
	rotated, err := seal.Load(keyFile(t, b64(k2)+"\n\n  "+b64(k1)+"  \n", 0o600))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := rotated.Open("session", "", time.Now(), v); err != nil || string(got) != "x" {
		t.Fatalf("rotated ring: Open = %q, %v", got, err)
	}
	nv := rotated.Seal("session", "", time.Now().Add(time.Minute), []byte("y"))
	if _, err := old.Open("session", "", time.Now(), nv); !errors.Is(err, seal.ErrUnknownKey) {
		t.Fatalf("the old ring opened a value of the new key: %v", err)
	}
	only2, _ := seal.New(k2)
	if _, err := only2.Open("session", "", time.Now(), v); !errors.Is(err, seal.ErrUnknownKey) {
		t.Fatalf("key1 dropped: Open = %v, want ErrUnknownKey", err)
	}
}

func TestLoadErrors(t *testing.T) {
	good := b64(newKey(t))
	for _, tc := range []struct {
		name, text string
		mode       os.FileMode
		want       string
	}{
		{"bad base64", "# c\n" + good + "\nnot-base64!\n", 0o600, "line 3: not base64"},
		{"short key", b64([]byte("short")), 0o600, "line 1: a key is 32 bytes, this one is 5"},
		{"no key", "# only a comment\n\n", 0o600, "no key in it"},
		{"empty", "", 0o600, "no key in it"},
		{"too large", strings.Repeat("#", 65<<10), 0o600, "larger than"},
	} {
		path := keyFile(t, tc.text, tc.mode)
		_, err := seal.Load(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: Load error = %v, want one naming %s and %q", tc.name, err, path, tc.want)
		}
	}
	if runtime.GOOS != "windows" {
		for _, mode := range []os.FileMode{0o640, 0o604} {
			path := keyFile(t, good, mode)
			if _, err := seal.Load(path); err == nil || !strings.Contains(err.Error(), "readable by others") {
				t.Errorf("mode %04o: Load error = %v, want readable by others", mode, err)
			}
		}
		fifo := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := seal.Load(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("fifo: Load error = %v", err)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := seal.Load(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: Load error = %v", err)
	}
}

// BenchmarkSealOpen is the cost sealing adds to a request: one seal and
// one open of a session id's size (the goal is 20 µs).
func BenchmarkSealOpen(b *testing.B) {
	kr, _ := seal.New(newKey(b))
	payload := []byte(`{"s":"","p":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"claude-code","version":"2.0.1"}}}`)
	exp := time.Now().Add(time.Hour)
	b.Run("seal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			kr.Seal("session", "token:0123456789abcdef", exp, payload)
		}
	})
	v := kr.Seal("session", "token:0123456789abcdef", exp, payload)
	now := time.Now()
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := kr.Open("session", "token:0123456789abcdef", now, v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
