package server

import (
	"net/http"
	"strings"
	"time"

	"piweb/internal/access"
	"piweb/internal/apitype"
	"piweb/internal/errs"
)

// Authentication beyond loopback (and on loopback where the platform
// cannot tell the OS user of a client, see peer.go): the secrets live in
// internal/access; here are the cookie and the sign-in routes. The
// cookie's name carries the port (cookies ignore ports, so two piwebs on
// one host would otherwise share one), and it is only ever accepted as a
// cookie, never as a bearer token.
type auth struct {
	*access.Keys
	required bool
	cookie   string // the session cookie's name
	throttle *access.Throttle
}

func newAuth(token string, required bool, keys *access.Keys, addr string) *auth {
	if keys == nil {
		keys = access.NewKeys(token)
	}
	return &auth{Keys: keys, required: required || token != "",
		throttle: access.NewThrottle(10, time.Minute), cookie: access.CookieName(addr)}
}

// CheckToken refuses a --token too short to resist guessing when piweb
// listens beyond loopback (access.CheckToken).
func CheckToken(token, addr string) error { return access.CheckToken(token, IsLoopback(addr)) }

// authorize checks the credentials of a request when they are required:
// the user's token as a bearer token, or a session cookie (as a cookie
// only). Wrong tokens are counted per client; over the limit, no token is
// checked until the window passes. Without sign-in, only the OS user who
// started piweb is served (peer.go).
func (s *Server) authorize(r *http.Request) error {
	a := s.auth
	if !a.required {
		if access.OtherUser(r.Context()) {
			return errs.Errorf(errs.Forbidden, "this piweb serves only the OS user who started it")
		}
		return nil
	}
	if c, err := r.Cookie(a.cookie); err == nil && a.CookieOK(c.Value) {
		return nil
	}
	bearer, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !found {
		return errs.Errorf(errs.Unauthorized, "sign-in required: open the link piweb printed when it started")
	}
	key := s.clientKey(r)
	if a.throttle.Blocked(key) {
		return errs.Errorf(errs.Throttled, "too many failed attempts; try again later")
	}
	if a.TokenOK(bearer) {
		return nil
	}
	a.throttle.Fail(key)
	return errs.Errorf(errs.Unauthorized, "wrong token")
}

// signOut revokes the request's session cookie and clears it.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(s.auth.cookie); err == nil {
		s.auth.Revoke(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: s.auth.cookie, Value: "", Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: -1})
	return ok(w, apitype.OK{OK: true})
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
	if a.throttle.Blocked(ip) {
		return errs.Errorf(errs.Throttled, "too many failed attempts; try again later")
	}
	ok, oneTime := a.Redeem(r.URL.Query().Get("token"))
	if !ok && s.signedIn(r) {
		// A used link opened again in a browser already signed in (a
		// bookmark, the history): the app, not a refusal.
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	if !ok {
		a.throttle.Fail(ip)
		return errs.Errorf(errs.Unauthorized, "wrong, missing or already used sign-in link")
	}
	if oneTime && s.opts.OnLogin != nil {
		s.opts.OnLogin(ip)
	}
	http.SetCookie(w, &http.Cookie{Name: a.cookie, Value: a.NewCookie(), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: int(access.CookieAge.Seconds())})
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// signedIn reports whether the request carries a valid session cookie.
func (s *Server) signedIn(r *http.Request) bool {
	c, err := r.Cookie(s.auth.cookie)
	return err == nil && s.auth.CookieOK(c.Value)
}

// LoginLink returns the path and query of a login link ("/auth?token=…"),
// or "" when the server needs no sign-in. Without a user-chosen token each
// call makes a new one-time link.
func (s *Server) LoginLink() string {
	if !s.auth.required {
		return ""
	}
	return "/auth?token=" + s.auth.Link()
}

// clientKey is the key the request's client is throttled by
// (access.ClientKey, believing X-Forwarded-For from --proxy only).
func (s *Server) clientKey(r *http.Request) string {
	return access.ClientKey(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), s.opts.Proxies)
}
