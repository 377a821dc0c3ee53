// Package seal seals small values that replicas of one gateway hand to a
// client and read back: session ids and MRTR requestState (DESIGN.md
// F64). A value is AES-256-GCM under the first key of a key file, names
// that key by a short id so that every key of the file opens it (keys
// rotate without dropping sessions), and binds a purpose, a caller and an
// expiry: a session id is no requestState, and neither works for another
// caller or after its time.
package seal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// The reasons Open refuses a value; each is its own error, for a caller
// that answers them differently (another caller's session is forbidden,
// an expired one is gone).
var (
	ErrTampered    = errors.New("garbled or tampered with")
	ErrExpired     = errors.New("expired")
	ErrOtherCaller = errors.New("sealed for another caller")
	ErrUnknownKey  = errors.New("sealed with a key this replica does not have")
	ErrPurpose     = errors.New("sealed for another purpose")
)

// KeySize is the length of a key: AES-256.
const KeySize = 32

// maxKeyFile bounds a key file: a key is a line of 44 characters, and a
// file of thousands of them is no key file.
const maxKeyFile = 64 << 10

const (
	version   = 1
	idSize    = 4 // bytes of SHA-256 of a key that name it
	nonceSize = 12
	callerTag = 8 // bytes of SHA-256 of the caller kept in a value
)

// Keyring is the keys of a key file. Its methods are safe for
// concurrent use.
type Keyring struct {
	keys []key // the first seals
}

type key struct {
	id   [idSize]byte
	aead cipher.AEAD
}

// Load reads a key file: one key a line, each the standard base64 of 32
// random bytes (`head -c32 /dev/urandom | base64`); blank lines and lines
// that begin with # are skipped. The file must be a regular file that
// only its owner may read. Every error names the file, and the line when
// there is one.
func Load(path string) (*Keyring, error) {
	data, err := safefile.ReadLimited(path, maxKeyFile)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %s", path, safefile.Reason(err))
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("key file %s: %s", path, safefile.Reason(err))
		} else if fi.Mode().Perm()&0o077 != 0 {
			return nil, fmt.Errorf("key file %s: readable by others (mode %04o); chmod 600 it", path, fi.Mode().Perm())
		}
	}
	var raw [][]byte
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, err := base64.StdEncoding.DecodeString(line)
		if err != nil {
			return nil, fmt.Errorf("key file %s, line %d: not base64", path, i+1)
		}
		if len(k) != KeySize {
			return nil, fmt.Errorf("key file %s, line %d: a key is %d bytes, this one is %d", path, i+1, KeySize, len(k))
		}
		raw = append(raw, k)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("key file %s: no key in it (make one with: head -c32 /dev/urandom | base64)", path)
	}
	return New(raw...)
}

// New is a Keyring of keys, each KeySize bytes; the first seals.
func New(keys ...[]byte) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("seal: no key")
	}
	kr := &Keyring{}
	for _, k := range keys {
		if len(k) != KeySize {
			return nil, fmt.Errorf("seal: a key is %d bytes, not %d", KeySize, len(k))
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(k)
		kr.keys = append(kr.keys, key{id: [idSize]byte(sum[:idSize]), aead: aead})
	}
	return kr, nil
}

// Seal seals payload for caller and purpose until expires, as URL- and
// header-safe text (unpadded base64url). Its layout: version, key id,
// purpose (a length and the bytes), nonce, then the AEAD of the expiry, a
// digest of the caller and payload, with everything before the nonce as
// additional data.
func (kr *Keyring) Seal(purpose, caller string, expires time.Time, payload []byte) string {
	k := kr.keys[0]
	if len(purpose) > 255 {
		panic("seal: purpose longer than 255 bytes")
	}
	head := make([]byte, 0, 1+idSize+1+len(purpose)+nonceSize+8+callerTag+len(payload)+k.aead.Overhead())
	head = append(head, version)
	head = append(head, k.id[:]...)
	head = append(head, byte(len(purpose)))
	head = append(head, purpose...)
	ad := len(head)
	nonce := head[ad : ad+nonceSize]
	_, _ = rand.Read(nonce) // never fails (crypto/rand)
	head = head[:ad+nonceSize]
	plain := make([]byte, 8, 8+callerTag+len(payload))
	binary.BigEndian.PutUint64(plain, uint64(expires.Unix()))
	tag := callerDigest(caller)
	plain = append(plain, tag[:]...)
	plain = append(plain, payload...)
	out := k.aead.Seal(head, nonce, plain, head[:ad])
	return base64.RawURLEncoding.EncodeToString(out)
}

// Open is the payload of a value Seal made for purpose and caller, when
// it has not expired at now; else an error that is (errors.Is) one of
// ErrTampered, ErrUnknownKey, ErrPurpose, ErrOtherCaller, ErrExpired.
func (kr *Keyring) Open(purpose, caller string, now time.Time, sealed string) ([]byte, error) {
	// Strict: a value has one spelling. Lenient base64 takes other
	// trailing bits as the same bytes, and a session id that opens under
	// two spellings escapes a revocation kept by id.
	b, err := base64.RawURLEncoding.Strict().DecodeString(sealed)
	if err != nil || len(b) < 1+idSize+1 || b[0] != version {
		return nil, ErrTampered
	}
	id := [idSize]byte(b[1 : 1+idSize])
	n := int(b[1+idSize])
	ad := 1 + idSize + 1 + n
	if len(b) < ad+nonceSize {
		return nil, ErrTampered
	}
	var k *key
	for i := range kr.keys {
		if kr.keys[i].id == id {
			k = &kr.keys[i]
			break
		}
	}
	if k == nil {
		return nil, ErrUnknownKey
	}
	plain, err := k.aead.Open(nil, b[ad:ad+nonceSize], b[ad+nonceSize:], b[:ad])
	if err != nil || len(plain) < 8+callerTag {
		return nil, ErrTampered
	}
	// Authentic from here: the purpose and caller are what the sealer
	// wrote, so a mismatch is a value used where it does not belong.
	if string(b[1+idSize+1:ad]) != purpose {
		return nil, ErrPurpose
	}
	tag := callerDigest(caller)
	if !bytes.Equal(plain[8:8+callerTag], tag[:]) {
		return nil, ErrOtherCaller
	}
	if now.Unix() >= int64(binary.BigEndian.Uint64(plain[:8])) {
		return nil, ErrExpired
	}
	return plain[8+callerTag:], nil
}

func callerDigest(caller string) [callerTag]byte {
	sum := sha256.Sum256([]byte(caller))
	return [callerTag]byte(sum[:callerTag])
}
