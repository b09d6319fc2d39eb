package access

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CookieAge is how long a signed-in browser stays signed in.
const CookieAge = 30 * 24 * time.Hour

// maxLinks bounds the unused one-time links kept (the oldest go first).
const maxLinks = 16

// MinToken is the shortest --token accepted beyond loopback.
const MinToken = 16

// maxRevoked bounds the revoked cookies remembered; past it the key
// changes, signing every browser out (safe, and only a signed-in browser
// can sign out).
const maxRevoked = 10000

// Keys holds the user's token, the unused one-time links and the key
// that signs session cookies. It is safe for concurrent use.
type Keys struct {
	token     string // the user's, "" for one-time links
	tokenHash []byte
	// Now is the clock cookies are issued and checked by (tests set it).
	Now func() time.Time

	mu      sync.Mutex
	key     []byte               // HMAC key of session cookies
	links   [][]byte             // SHA-256 of the unused one-time link secrets
	revoked map[string]time.Time // signed-out nonces, until their cookie expires
}

// NewKeys returns the keys of a server whose user chose token ("" for
// one-time links), with a new cookie key.
func NewKeys(token string) *Keys {
	k := &Keys{token: token, Now: time.Now, key: RandomBytes(32), revoked: map[string]time.Time{}}
	if token != "" {
		h := sha256.Sum256([]byte(token))
		k.tokenHash = h[:]
	}
	return k
}

// CheckToken refuses a --token too short to resist guessing when piweb
// listens beyond loopback (the throttle slows guesses; it cannot make a
// short token long).
func CheckToken(token string, loopback bool) error {
	if token != "" && len(token) < MinToken && !loopback {
		return fmt.Errorf("--token must be at least %d characters when listening beyond loopback", MinToken)
	}
	return nil
}

// Link returns the secret of a login link: the user's token, or a new
// one-time secret.
func (k *Keys) Link() string {
	if k.token != "" {
		return k.token
	}
	secret := base64.RawURLEncoding.EncodeToString(RandomBytes(24))
	h := sha256.Sum256([]byte(secret))
	k.mu.Lock()
	k.links = append(k.links, h[:])
	if len(k.links) > maxLinks {
		k.links = k.links[len(k.links)-maxLinks:]
	}
	k.mu.Unlock()
	return secret
}

// Redeem checks a login link's secret, using up a one-time one. It reports
// whether the secret was one-time.
func (k *Keys) Redeem(secret string) (ok, oneTime bool) {
	if k.TokenOK(secret) {
		return true, false
	}
	h := sha256.Sum256([]byte(secret))
	k.mu.Lock()
	defer k.mu.Unlock()
	found := -1
	for i, l := range k.links { // every one compared: the time says nothing
		if subtle.ConstantTimeCompare(h[:], l) == 1 {
			found = i
		}
	}
	if found < 0 {
		return false, false
	}
	k.links = append(k.links[:found], k.links[found+1:]...)
	return true, true
}

// TokenOK compares with the user's token in constant time (hashes, so
// lengths leak nothing).
func (k *Keys) TokenOK(t string) bool {
	if t == "" || k.tokenHash == nil {
		return false
	}
	h := sha256.Sum256([]byte(t))
	return subtle.ConstantTimeCompare(h[:], k.tokenHash) == 1
}

// NewCookie makes a new session cookie value: issued "." nonce "." HMAC.
func (k *Keys) NewCookie() string {
	body := strconv.FormatInt(k.Now().Unix(), 10) + "." + base64.RawURLEncoding.EncodeToString(RandomBytes(18))
	return body + "." + base64.RawURLEncoding.EncodeToString(k.mac(body))
}

func (k *Keys) mac(body string) []byte {
	k.mu.Lock()
	m := hmac.New(sha256.New, k.key)
	k.mu.Unlock()
	m.Write([]byte(body))
	return m.Sum(nil)
}

// parseCookie checks a session cookie value and returns its nonce and
// expiry: signed with the current key, issued at most CookieAge ago (and
// not in the future), not signed out.
func (k *Keys) parseCookie(v string) (nonce string, expires time.Time, ok bool) {
	i := strings.LastIndexByte(v, '.')
	if i < 0 {
		return "", time.Time{}, false
	}
	body, sig := v[:i], v[i+1:]
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, k.mac(body)) {
		return "", time.Time{}, false
	}
	issuedS, nonce, found := strings.Cut(body, ".")
	issued, err := strconv.ParseInt(issuedS, 10, 64)
	if !found || err != nil {
		return "", time.Time{}, false
	}
	at, now := time.Unix(issued, 0), k.Now()
	expires = at.Add(CookieAge)
	if at.After(now.Add(time.Minute)) || !now.Before(expires) {
		return "", time.Time{}, false
	}
	k.mu.Lock()
	_, out := k.revoked[nonce]
	k.mu.Unlock()
	return nonce, expires, !out
}

// CookieOK reports whether v is a valid, unrevoked session cookie.
func (k *Keys) CookieOK(v string) bool {
	_, _, ok := k.parseCookie(v)
	return ok
}

// Revoke signs a cookie out for the rest of its life.
func (k *Keys) Revoke(v string) {
	nonce, expires, ok := k.parseCookie(v)
	if !ok {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.Now()
	for n, exp := range k.revoked {
		if !now.Before(exp) {
			delete(k.revoked, n)
		}
	}
	if len(k.revoked) >= maxRevoked {
		k.key, k.revoked = RandomBytes(32), map[string]time.Time{}
		return
	}
	k.revoked[nonce] = expires
}

// RandomBytes returns n random bytes.
func RandomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand since Go 1.24)
	return b
}
