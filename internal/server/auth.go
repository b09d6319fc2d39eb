package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Authentication beyond loopback (and on loopback where the platform
// cannot tell the OS user of a client, see peer.go). Two secrets open the
// server:
//
//   - A token the user chose (--token). The user can type it again, so it
//     stays valid for the server's life: as "Authorization: Bearer T" and
//     as the login link /auth?token=T, any number of times. Beyond
//     loopback it must be at least minToken characters.
//   - One-time login links, when the user chose none. piweb prints
//     /auth?token=L; L works once and is exchanged for the session cookie,
//     so a link left in a terminal's scrollback, a shell history or a
//     proxy log cannot sign in anyone else later.
//
// The cookie holds neither secret: its issue time, a random nonce and
// their HMAC under a key made at start, so a restart signs every browser
// out. The server checks the issue time (cookieAge) and the nonces
// revoked by sign-out. Its name carries the port (cookies ignore ports,
// so two piwebs on one host would otherwise share one), and it is only
// ever accepted as a cookie, never as a bearer token.

// cookieAge is how long a signed-in browser stays signed in.
const cookieAge = 30 * 24 * time.Hour

// maxLinks bounds the unused one-time links kept (the oldest go first).
const maxLinks = 16

// minToken is the shortest --token accepted beyond loopback.
const minToken = 16

// maxRevoked bounds the revoked cookies remembered; past it the key
// changes, signing every browser out (safe, and only a signed-in browser
// can sign out).
const maxRevoked = 10000

type auth struct {
	required  bool
	token     string // the user's, "" for one-time links
	tokenHash []byte
	cookie    string // the session cookie's name
	throttle  *throttle
	now       func() time.Time

	mu      sync.Mutex
	key     []byte               // HMAC key of session cookies
	links   [][]byte             // SHA-256 of the unused one-time link secrets
	revoked map[string]time.Time // signed-out nonces, until their cookie expires
}

func newAuth(token string, required bool) *auth {
	a := &auth{required: required || token != "", token: token, throttle: newThrottle(10, time.Minute),
		now: time.Now, key: randomBytes(32), cookie: "piweb_" + hex.EncodeToString(randomBytes(4)),
		revoked: map[string]time.Time{}}
	if token != "" {
		h := sha256.Sum256([]byte(token))
		a.tokenHash = h[:]
	}
	return a
}

// CheckToken refuses a --token too short to resist guessing when piweb
// listens beyond loopback (the throttle slows guesses; it cannot make a
// short token long).
func CheckToken(token, addr string) error {
	if token != "" && len(token) < minToken && !IsLoopback(addr) {
		return fmt.Errorf("--token must be at least %d characters when listening beyond loopback", minToken)
	}
	return nil
}

// cookieNameFor names the session cookie after the listen port, so that
// piwebs on different ports of a host keep apart; without a fixed port a
// random name.
func cookieNameFor(addr string) string {
	if _, port, err := net.SplitHostPort(addr); err == nil && port != "" && port != "0" {
		return "piweb_" + port
	}
	return ""
}

// link returns the secret of a login link: the user's token, or a new
// one-time secret.
func (a *auth) link() string {
	if a.token != "" {
		return a.token
	}
	secret := base64.RawURLEncoding.EncodeToString(randomBytes(24))
	h := sha256.Sum256([]byte(secret))
	a.mu.Lock()
	a.links = append(a.links, h[:])
	if len(a.links) > maxLinks {
		a.links = a.links[len(a.links)-maxLinks:]
	}
	a.mu.Unlock()
	return secret
}

// redeem checks a login link's secret, using up a one-time one. It reports
// whether the secret was one-time.
func (a *auth) redeem(secret string) (ok, oneTime bool) {
	if a.tokenOK(secret) {
		return true, false
	}
	h := sha256.Sum256([]byte(secret))
	a.mu.Lock()
	defer a.mu.Unlock()
	found := -1
	for i, l := range a.links { // every one compared: the time says nothing
		if subtle.ConstantTimeCompare(h[:], l) == 1 {
			found = i
		}
	}
	if found < 0 {
		return false, false
	}
	a.links = append(a.links[:found], a.links[found+1:]...)
	return true, true
}

// tokenOK compares with the user's token in constant time (hashes, so
// lengths leak nothing).
func (a *auth) tokenOK(t string) bool {
	if t == "" || a.tokenHash == nil {
		return false
	}
	h := sha256.Sum256([]byte(t))
	return subtle.ConstantTimeCompare(h[:], a.tokenHash) == 1
}

// session makes a new session cookie value: issued "." nonce "." HMAC.
func (a *auth) session() string {
	body := strconv.FormatInt(a.now().Unix(), 10) + "." + base64.RawURLEncoding.EncodeToString(randomBytes(18))
	return body + "." + base64.RawURLEncoding.EncodeToString(a.mac(body))
}

func (a *auth) mac(body string) []byte {
	a.mu.Lock()
	m := hmac.New(sha256.New, a.key)
	a.mu.Unlock()
	m.Write([]byte(body))
	return m.Sum(nil)
}

// parseSession checks a session cookie value and returns its nonce and
// expiry: signed with the current key, issued at most cookieAge ago (and
// not in the future), not signed out.
func (a *auth) parseSession(v string) (nonce string, expires time.Time, ok bool) {
	i := strings.LastIndexByte(v, '.')
	if i < 0 {
		return "", time.Time{}, false
	}
	body, sig := v[:i], v[i+1:]
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, a.mac(body)) {
		return "", time.Time{}, false
	}
	issuedS, nonce, found := strings.Cut(body, ".")
	issued, err := strconv.ParseInt(issuedS, 10, 64)
	if !found || err != nil {
		return "", time.Time{}, false
	}
	at, now := time.Unix(issued, 0), a.now()
	expires = at.Add(cookieAge)
	if at.After(now.Add(time.Minute)) || !now.Before(expires) {
		return "", time.Time{}, false
	}
	a.mu.Lock()
	_, out := a.revoked[nonce]
	a.mu.Unlock()
	return nonce, expires, !out
}

func (a *auth) sessionOK(v string) bool {
	_, _, ok := a.parseSession(v)
	return ok
}

// revoke signs a cookie out for the rest of its life.
func (a *auth) revoke(v string) {
	nonce, expires, ok := a.parseSession(v)
	if !ok {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	for n, exp := range a.revoked {
		if !now.Before(exp) {
			delete(a.revoked, n)
		}
	}
	if len(a.revoked) >= maxRevoked {
		a.key, a.revoked = randomBytes(32), map[string]time.Time{}
		return
	}
	a.revoked[nonce] = expires
}

// authorize checks the credentials of a request when they are required:
// the user's token as a bearer token, or a session cookie (as a cookie
// only). Wrong tokens are counted per client; over the limit, no token is
// checked until the window passes. Without sign-in, only the OS user who
// started piweb is served (peer.go).
func (s *Server) authorize(r *http.Request) error {
	a := s.auth
	if !a.required {
		if peerRefused(r) {
			return errorf(Forbidden, "this piweb serves only the OS user who started it")
		}
		return nil
	}
	if c, err := r.Cookie(a.cookie); err == nil && a.sessionOK(c.Value) {
		return nil
	}
	bearer, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !found {
		return errorf(Unauthorized, "sign-in required: open the link piweb printed when it started")
	}
	key := s.clientKey(r)
	if a.throttle.blocked(key) {
		return errorf(Throttled, "too many failed attempts; try again later")
	}
	if a.tokenOK(bearer) {
		return nil
	}
	a.throttle.fail(key)
	return errorf(Unauthorized, "wrong token")
}

// signOut revokes the request's session cookie and clears it.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(s.auth.cookie); err == nil {
		s.auth.revoke(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: s.auth.cookie, Value: "", Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: -1})
	return ok(w, map[string]any{"ok": true})
}

// serveAuth is the login link: a right secret sets the HttpOnly session
// cookie and sends the browser to the app without the secret in its
// address bar. A one-time secret is used up (a second use is refused and
// counted as a failed attempt).
func (s *Server) serveAuth(w http.ResponseWriter, r *http.Request) error {
	a := s.auth
	if !a.required {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	ip := s.clientKey(r)
	if a.throttle.blocked(ip) {
		return errorf(Throttled, "too many failed attempts; try again later")
	}
	ok, oneTime := a.redeem(r.URL.Query().Get("token"))
	if !ok {
		a.throttle.fail(ip)
		return errorf(Unauthorized, "wrong, missing or already used sign-in link")
	}
	if oneTime && s.opts.OnLogin != nil {
		s.opts.OnLogin(ip)
	}
	http.SetCookie(w, &http.Cookie{Name: a.cookie, Value: a.session(), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: int(cookieAge.Seconds())})
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// LoginLink returns the path and query of a login link ("/auth?token=…"),
// or "" when the server needs no sign-in. Without a user-chosen token each
// call makes a new one-time link.
func (s *Server) LoginLink() string {
	if !s.auth.required {
		return ""
	}
	return "/auth?token=" + s.auth.link()
}

func clientIP(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand since Go 1.24)
	return b
}
