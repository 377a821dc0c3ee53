package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
)

// An assertion signed with each kind of key verifies with its public
// key, carries the claims, and names the algorithm the key implies.
func TestPrivateKeyAssertions(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(ec)
	sec1, _ := x509.MarshalECPrivateKey(ec)
	for _, tc := range []struct {
		name, pem, alg string
		verify         func(digest, sig []byte) bool
	}{
		{"pkcs8 ec", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})), "ES256", func(d, sig []byte) bool {
			return len(sig) == 64 && ecdsa.Verify(&ec.PublicKey, d, new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:]))
		}},
		{"sec1 ec", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1})), "ES256", func(d, sig []byte) bool {
			return ecdsa.Verify(&ec.PublicKey, d, new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:]))
		}},
		{"pkcs1 rsa", string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rk)})), "RS256", func(d, sig []byte) bool {
			return rsa.VerifyPKCS1v15(&rk.PublicKey, crypto.SHA256, d, sig) == nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := parseKey(tc.pem)
			if err != nil {
				t.Fatal(err)
			}
			jws, err := s.sign(map[string]any{"iss": "client", "aud": "https://as.example"})
			if err != nil {
				t.Fatal(err)
			}
			parts := strings.Split(jws, ".")
			if len(parts) != 3 {
				t.Fatalf("not a compact JWS: %d parts", len(parts))
			}
			var header, claims map[string]any
			h, _ := base64.RawURLEncoding.DecodeString(parts[0])
			c, _ := base64.RawURLEncoding.DecodeString(parts[1])
			json.Unmarshal(h, &header)
			json.Unmarshal(c, &claims)
			if header["alg"] != tc.alg || claims["aud"] != "https://as.example" {
				t.Errorf("header %v claims %v", header, claims)
			}
			sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
			d := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
			if !tc.verify(d[:], sig) {
				t.Error("signature does not verify")
			}
		})
	}
}

// A bad key is an error that does not quote it.
func TestPrivateKeyErrors(t *testing.T) {
	for _, text := range []string{"not a key at all: s3cr3t", "-----BEGIN PRIVATE KEY-----\nczNjcjN0\n-----END PRIVATE KEY-----\n",
		"-----BEGIN CERTIFICATE-----\nczNjcjN0\n-----END CERTIFICATE-----\n"} {
		_, err := parseKey(text)
		if err == nil || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "czNjcjN0") {
			t.Errorf("parseKey(%q) = %v", text, err)
		}
	}
}
