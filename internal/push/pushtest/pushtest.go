// Package pushtest is a local Web Push service for tests: it verifies each
// push's VAPID signature (RFC 8292) and decrypts its aes128gcm payload
// (RFC 8291) with a subscriber's keys, as a browser's push service and the
// browser would, with the standard library only.
package pushtest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"piweb/internal/push"
	"time"
)

var b64 = base64.RawURLEncoding

// Subscriber is a browser's side of a subscription: the keys that
// decrypt what is pushed to it.
type Subscriber struct {
	priv *ecdh.PrivateKey
	auth []byte
}

// NewSubscriber makes a subscriber's keys.
func NewSubscriber(t testing.TB) *Subscriber {
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	return &Subscriber{priv: priv, auth: auth}
}

// Subscription is what the browser hands the server for endpoint.
func (b *Subscriber) Subscription(endpoint string) push.Subscription {
	var s push.Subscription
	s.Endpoint = endpoint
	s.Keys.P256dh = b64.EncodeToString(b.priv.PublicKey().Bytes())
	s.Keys.Auth = b64.EncodeToString(b.auth)
	return s
}

// decrypt opens an RFC 8291 aes128gcm body as the browser does.
func (b *Subscriber) decrypt(body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("short body")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || len(body) < 21+idlen || rs < 18 {
		return nil, fmt.Errorf("bad header: idlen %d rs %d", idlen, rs)
	}
	asPub := body[21 : 21+idlen]
	ct := body[21+idlen:]
	peer, err := ecdh.P256().NewPublicKey(asPub)
	if err != nil {
		return nil, err
	}
	secret, err := b.priv.ECDH(peer)
	if err != nil {
		return nil, err
	}
	prkKey, _ := hkdf.Extract(sha256.New, secret, b.auth)
	info := append(append([]byte("WebPush: info\x00"), b.priv.PublicKey().Bytes()...), asPub...)
	ikm, _ := hkdf.Expand(sha256.New, prkKey, string(info), 32)
	prk, _ := hkdf.Extract(sha256.New, ikm, salt)
	cek, _ := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	nonce, _ := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	blk, _ := aes.NewCipher(cek)
	gcm, _ := cipher.NewGCM(blk)
	plain, err := gcm.Open(nil, nonce, ct, nil)
	if err != nil {
		return nil, err
	}
	plain = []byte(strings.TrimRight(string(plain), "\x00"))
	if len(plain) == 0 || plain[len(plain)-1] != 2 {
		return nil, errors.New("no last-record delimiter")
	}
	return plain[:len(plain)-1], nil
}

// verifyVAPID checks the Authorization header of RFC 8292: a JWT signed
// with ES256 by the key in k, whose aud is the push service's origin and
// which expires within 24 hours.
func verifyVAPID(h, wantKey, origin string) error {
	t, k, found := strings.Cut(strings.TrimPrefix(h, "vapid t="), ", k=")
	if !strings.HasPrefix(h, "vapid t=") || !found {
		return fmt.Errorf("not a vapid header: %q", h)
	}
	if k != strings.TrimRight(wantKey, "=") {
		return fmt.Errorf("k = %s, want piweb's public key %s", k, wantKey)
	}
	pub, err := b64.DecodeString(k)
	if err != nil || len(pub) != 65 {
		return fmt.Errorf("bad k")
	}
	parts := strings.Split(t, ".")
	if len(parts) != 3 {
		return fmt.Errorf("bad jwt")
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return fmt.Errorf("bad signature encoding")
	}
	key, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), pub)
	if err != nil {
		return fmt.Errorf("k is not a P-256 point: %v", err)
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(key, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return fmt.Errorf("the JWT signature does not verify")
	}
	var hdr struct{ Alg string }
	var claims struct {
		Aud string
		Exp int64
		Sub string
	}
	hb, _ := b64.DecodeString(parts[0])
	cb, _ := b64.DecodeString(parts[1])
	if json.Unmarshal(hb, &hdr) != nil || json.Unmarshal(cb, &claims) != nil || hdr.Alg != "ES256" {
		return fmt.Errorf("bad jwt header or claims")
	}
	if claims.Aud != origin || claims.Sub == "" {
		return fmt.Errorf("aud %q sub %q, want aud %q", claims.Aud, claims.Sub, origin)
	}
	if exp := time.Unix(claims.Exp, 0); exp.Before(time.Now()) || exp.After(time.Now().Add(24*time.Hour)) {
		return fmt.Errorf("exp %v out of range", exp)
	}
	return nil
}

// fakePushService is a local push endpoint: it verifies each push's VAPID
// signature against key, decrypts it with the subscriber's keys and
// records the message; status, when set, is answered instead.
// Service is the fake push service.
type Service struct {
	*httptest.Server
	key string
	sub *Subscriber
	// Status, when set, is answered instead of accepting pushes.
	Status int
	mu     sync.Mutex
	got    []push.Message
	errs   []error
}

// New starts a push service that accepts pushes signed with key (the
// server's VAPID public key) for sub.
func New(t testing.TB, key string, sub *Subscriber) *Service {
	f := &Service{key: key, sub: sub}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Subscribed subscribes a new subscriber to s through a new local push
// service, at path on it, as a page does when its user allows
// notifications, and returns the service, which gets what s pushes.
func Subscribed(t testing.TB, s *push.Service, path string) *Service {
	t.Helper()
	key, err := s.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	sub := NewSubscriber(t)
	svc := New(t, key, sub)
	if err := s.Subscribe(t.Context(), sub.Subscription(svc.URL+path)); err != nil {
		t.Fatal(err)
	}
	return svc
}

func (f *Service) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Status != 0 {
		w.WriteHeader(f.Status)
		return
	}
	body, _ := io.ReadAll(r.Body)
	err := verifyVAPID(r.Header.Get("Authorization"), f.key, f.URL)
	if err == nil && r.Header.Get("Content-Encoding") != "aes128gcm" {
		err = fmt.Errorf("content-encoding %q", r.Header.Get("Content-Encoding"))
	}
	var plain []byte
	if err == nil {
		plain, err = f.sub.decrypt(body)
	}
	var m push.Message
	if err == nil {
		err = json.Unmarshal(plain, &m)
	}
	if err != nil {
		f.errs = append(f.errs, err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	f.got = append(f.got, m)
	w.WriteHeader(http.StatusCreated)
}

// Messages returns what was received, failing t for every push refused.
func (f *Service) Messages(t testing.TB) []push.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, err := range f.errs {
		t.Errorf("push service refused a push: %v", err)
	}
	return append([]push.Message(nil), f.got...)
}
