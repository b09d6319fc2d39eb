package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Authentication beyond loopback. Two secrets open the server:
//
//   - A token the user chose (--token). The user can type it again, so it
//     stays valid for the server's life: as "Authorization: Bearer T" and
//     as the login link /auth?token=T, any number of times.
//   - One-time login links, when the user chose none. piweb prints
//     /auth?token=L; L works once and is exchanged for the session cookie,
//     so a link left in a terminal's scrollback, a shell history or a
//     proxy log cannot sign in anyone else later.
//
// The cookie holds neither secret: it is a random nonce and its HMAC under
// the server's key, checked without server state. The key comes from the
// user's token (cookies outlive a restart with the same --token) or is
// random (a restart signs every browser out, and prints a new link).

const cookieName = "piweb_token"

// cookieAge is how long a signed-in browser stays signed in.
const cookieAge = 30 * 24 * time.Hour

// maxLinks bounds the unused one-time links kept (the oldest go first).
const maxLinks = 16

type auth struct {
	required  bool
	token     string // the user's, "" for one-time links
	tokenHash []byte
	key       []byte // HMAC key of session cookies
	throttle  *throttle

	mu    sync.Mutex
	links [][]byte // SHA-256 of the unused one-time link secrets
}

func newAuth(token string, required bool) *auth {
	a := &auth{required: required || token != "", token: token, throttle: newThrottle(10, time.Minute)}
	if token != "" {
		h := sha256.Sum256([]byte(token))
		a.tokenHash = h[:]
		k := hmac.New(sha256.New, []byte(token))
		k.Write([]byte("piweb session cookie key"))
		a.key = k.Sum(nil)
	} else {
		a.key = randomBytes(32)
	}
	return a
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

// session makes a new session cookie value: nonce "." HMAC(nonce).
func (a *auth) session() string {
	nonce := base64.RawURLEncoding.EncodeToString(randomBytes(18))
	return nonce + "." + base64.RawURLEncoding.EncodeToString(a.mac(nonce))
}

func (a *auth) mac(nonce string) []byte {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(nonce))
	return m.Sum(nil)
}

// sessionOK checks a session cookie value.
func (a *auth) sessionOK(v string) bool {
	nonce, sig, found := strings.Cut(v, ".")
	if !found || nonce == "" {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	return err == nil && hmac.Equal(got, a.mac(nonce))
}

// credentialOK accepts the user's token or a session cookie value, sent
// either way.
func (a *auth) credentialOK(v string) bool {
	return a.tokenOK(v) || a.sessionOK(v)
}

// authorize checks the credentials of a request when they are required.
// Failed attempts are counted per client address; over the limit, nothing
// is checked until the window passes.
func (s *Server) authorize(r *http.Request) error {
	a := s.auth
	if !a.required {
		if peerRefused(r) {
			return errorf(Forbidden, "this piweb serves only the OS user who started it")
		}
		return nil
	}
	ip := clientIP(r)
	if a.throttle.blocked(ip) {
		return errorf(Throttled, "too many failed attempts; try again later")
	}
	if a.credentialOK(requestToken(r)) {
		return nil
	}
	a.throttle.fail(ip)
	return errorf(Unauthorized, "sign-in required: open the link piweb printed when it started")
}

func requestToken(r *http.Request) string {
	if v, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); found {
		return v
	}
	if c, err := r.Cookie(cookieName); err == nil {
		return c.Value
	}
	return ""
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
	ip := clientIP(r)
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
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: a.session(), Path: "/", HttpOnly: true,
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

// throttle counts failed sign-in attempts per client in fixed windows.
type throttle struct {
	limit  int
	window time.Duration

	mu    sync.Mutex
	fails map[string]*failures
}

type failures struct {
	n     int
	start time.Time
}

func newThrottle(limit int, window time.Duration) *throttle {
	return &throttle{limit: limit, window: window, fails: map[string]*failures{}}
}

func (t *throttle) blocked(ip string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.fails[ip]
	if f == nil {
		return false
	}
	if time.Since(f.start) > t.window {
		delete(t.fails, ip)
		return false
	}
	return f.n >= t.limit
}

func (t *throttle) fail(ip string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.fails[ip]
	if f == nil || time.Since(f.start) > t.window {
		if len(t.fails) > 10000 {
			clear(t.fails) // bound memory under a distributed attack
		}
		f = &failures{start: time.Now()}
		t.fails[ip] = f
	}
	f.n++
}
