package server

import (
	"mime"
	"net/http"
	"strings"

	"piweb/internal/access"
	"piweb/internal/errs"
)

// The security layer wraps every route (see guard). It refuses, in order:
// a Host that is not this machine (DNS rebinding), an API request another
// site's page made (fetch metadata), missing or wrong credentials when
// sign-in is required (auth.go, throttled per client), a cross-origin
// state change, and a state change that is not application/json (which a
// plain HTML form cannot send), but for an upload's raw bytes
// (application/octet-stream, which a form cannot send either).

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
		s.logf("panic serving %s %s: %v", r.Method, logPath(r), v)
		s.writeError(w, r, errs.Errorf(errs.Internal, "internal error"))
	}
}

// check applies the request checks in order.
func (s *Server) check(w http.ResponseWriter, r *http.Request) error {
	if !s.hosts.Allows(r.Host) {
		return errs.Errorf(errs.Forbidden, "host not allowed")
	}
	if strings.HasPrefix(r.URL.Path, "/api/") && crossSite(r) {
		return errs.Errorf(errs.Forbidden, "cross-site request refused")
	}
	if r.URL.Path == "/auth" {
		return nil // the login link checks its own token
	}
	if isShareRoute(r) {
		return nil // a share link's page checks its own token, for anyone (sharepage.go)
	}
	if isFleet(r) {
		return s.checkFleet(w, r) // another machine's, with the fleet key (fleetpeer.go)
	}
	if err := s.authorize(r); err != nil {
		return err
	}
	if isSafeMethod(r.Method) {
		return nil
	}
	if !s.originAllowed(r) {
		return errs.Errorf(errs.Forbidden, "cross-origin request refused")
	}
	return checkBody(r)
}

// checkBody refuses a state change whose body is not JSON (or an
// upload's bytes).
func checkBody(r *http.Request) error {
	if isSafeMethod(r.Method) {
		return nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/octet-stream" && isUpload(r) {
		return nil // a file's bytes, streamed; no form can send this type either
	}
	if ct != "application/json" {
		return errs.Errorf(errs.Unsupported, "state changes need Content-Type: application/json")
	}
	return nil
}

// isUpload reports whether r is POST /api/sessions/{id}/upload, the one
// route whose body is raw bytes (application/octet-stream, which, like
// JSON, a cross-site page cannot send without a preflight piweb refuses).
func isUpload(r *http.Request) bool {
	id, found := strings.CutPrefix(r.URL.Path, "/api/sessions/")
	id, found2 := strings.CutSuffix(id, "/upload")
	return found && found2 && r.Method == http.MethodPost && id != "" && !strings.Contains(id, "/")
}

func isSafeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
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

// crossSite reports a request a browser made for another site's page
// (fetch metadata). Such a page cannot read the answer, but even a GET
// costs: GET /api/models starts pi, a stream holds a connection. The app
// itself and a typed or pasted address are same-origin or "none"; clients
// that are not browsers send no Sec-Fetch-Site.
func crossSite(r *http.Request) bool {
	site := r.Header.Get("Sec-Fetch-Site")
	return site == "cross-site" || site == "same-site"
}

// IsLoopback reports whether a listen address only accepts local clients
// (access.IsLoopback).
func IsLoopback(addr string) bool { return access.IsLoopback(addr) }
