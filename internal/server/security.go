package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"mime"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// The security layer wraps every route (see guard). It refuses, in order:
// a Host that is not this machine (DNS rebinding), a missing or wrong token
// when one is required (throttled per client), a cross-site state change,
// and a state change that is not application/json (which a plain HTML form
// cannot send).

const cookieName = "piweb_token"

// contentSecurityPolicy lets the app load only its own scripts and styles
// and never be framed.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// guard is the outermost handler.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer s.recoverPanic(w, r)
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		if err := s.check(w, r); err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) recoverPanic(w http.ResponseWriter, r *http.Request) {
	if v := recover(); v != nil {
		if v == http.ErrAbortHandler {
			panic(v)
		}
		s.logf("panic serving %s %s: %v", r.Method, r.URL.Path, v)
		s.writeError(w, r, errorf(Internal, "internal error"))
	}
}

// check applies the request checks in order.
func (s *Server) check(w http.ResponseWriter, r *http.Request) error {
	if !s.hostAllowed(r.Host) {
		return errorf(Forbidden, "host not allowed")
	}
	if r.URL.Path == "/auth" {
		return nil // the login link checks its own token
	}
	if err := s.authorize(r); err != nil {
		return err
	}
	if isSafeMethod(r.Method) {
		return nil
	}
	if !s.originAllowed(r) {
		return errorf(Forbidden, "cross-origin request refused")
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "application/json" {
		return errorf(Unsupported, "state changes need Content-Type: application/json")
	}
	return nil
}

func isSafeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// hostAllowed accepts loopback names and addresses, the listen host and
// this machine's own names and addresses; anything else is a name some
// other site made point here.
func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	_, ok := s.hosts[host]
	return ok
}

// allowedHosts lists the names besides loopback under which this server
// may be reached: the listen host, and for a wildcard listen the machine's
// hostname and interface addresses.
func allowedHosts(addr string, extra []string) map[string]struct{} {
	hosts := map[string]struct{}{}
	add := func(h string) { hosts[strings.ToLower(strings.Trim(h, "[]"))] = struct{}{} }
	for _, h := range extra {
		add(h)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	if host != "" && (ip == nil || !ip.IsUnspecified()) {
		add(host)
	}
	if ip == nil || !ip.IsLoopback() {
		if name, err := os.Hostname(); err == nil {
			add(name)
		}
	}
	if host == "" || (ip != nil && ip.IsUnspecified()) {
		addrs, _ := net.InterfaceAddrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				add(n.IP.String())
			}
		}
	}
	return hosts
}

// originAllowed accepts a state change from this server's own pages, or
// from a client that is not a browser (no Origin, no Sec-Fetch-Site).
func (s *Server) originAllowed(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" {
		return o == "http://"+r.Host || o == "https://"+r.Host
	}
	site := r.Header.Get("Sec-Fetch-Site")
	return site == "" || site == "same-origin" || site == "none"
}

// authorize checks the token when one is required. Failed attempts are
// counted per client address; over the limit, nothing is checked until the
// window passes.
func (s *Server) authorize(r *http.Request) error {
	if s.tokenHash == nil {
		return nil
	}
	ip := clientIP(r)
	if s.throttle.blocked(ip) {
		return errorf(Throttled, "too many failed attempts; try again later")
	}
	if s.tokenOK(requestToken(r)) {
		return nil
	}
	s.throttle.fail(ip)
	return errorf(Unauthorized, "token required: open the link piweb printed when it started")
}

func requestToken(r *http.Request) string {
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
		return strings.TrimPrefix(a, "Bearer ")
	}
	if c, err := r.Cookie(cookieName); err == nil {
		return c.Value
	}
	return ""
}

// tokenOK compares in constant time (hashes, so lengths leak nothing).
func (s *Server) tokenOK(t string) bool {
	if t == "" {
		return false
	}
	h := sha256.Sum256([]byte(t))
	return subtle.ConstantTimeCompare(h[:], s.tokenHash) == 1
}

// serveAuth is the login link: a right token sets the HttpOnly cookie and
// sends the browser to the app without the token in its address bar.
func (s *Server) serveAuth(w http.ResponseWriter, r *http.Request) error {
	if s.tokenHash == nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	ip := clientIP(r)
	if s.throttle.blocked(ip) {
		return errorf(Throttled, "too many failed attempts; try again later")
	}
	t := r.URL.Query().Get("token")
	if !s.tokenOK(t) {
		s.throttle.fail(ip)
		return errorf(Unauthorized, "wrong or missing token")
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: t, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: 30 * 24 * 3600})
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

func clientIP(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

// NewToken returns a random token for a non-loopback server.
func NewToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// IsLoopback reports whether a listen address only accepts local clients.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// throttle counts failed token attempts per client in fixed windows.
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
