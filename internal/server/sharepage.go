package server

import (
	_ "embed"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"piweb/internal/access"
	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/export"
	"piweb/internal/ops"
	"piweb/pisession"
)

// What a share link opens (docs/decisions/0042): GET /share/TOKEN is the
// HTML export's page of the shared session or branch, GET
// /share/TOKEN/version what its script (GET /share/live.js) asks to know when to
// reload. These are the only routes guard lets through without sign-in
// or the peer check (isShareRoute): the token is the authorization, and
// it opens nothing else (no cookie is set, no API answers it). Every
// other path under /share/ is the same 404. A token that is not a live link
// (guessed, revoked, expired) is one answer whatever the reason, counted
// as a failed sign-in attempt by the sign-in throttle; over its limit the
// client's tokens are not looked at until the window passes.

// shareGone is the one refusal of a token that opens nothing.
const shareGone = "no such share link: it was revoked, has expired or never existed"

// shareCSP is the page's policy (the export's LiveCSP, and never framed).
const shareCSP = export.LiveCSP + "; frame-ancestors 'none'"

//go:embed sharelive.js
var shareLiveJS []byte

// isShareRoute reports whether r is a read of a share page, which guard
// serves without credentials (the handlers check the token).
func isShareRoute(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && strings.HasPrefix(r.URL.Path, "/share/")
}

func (s *Server) sharePage(w http.ResponseWriter, r *http.Request) error {
	m, sess, leaf, err := s.shareOpen(r)
	if err != nil {
		return err
	}
	d := ops.Document(m, sess, leaf)
	d.Live, d.Version = "/share/live.js", fileVersion(m.Path)
	shareHeaders(w, "text/html; charset=utf-8")
	export.Write(w, "html", d) // started: a failure cannot be answered
	return nil
}

// shareVersion is what the page's script compares with the version it
// was rendered at.
func (s *Server) shareVersion(w http.ResponseWriter, r *http.Request) error {
	_, m, err := s.shareMeta(r)
	if err != nil {
		return err
	}
	shareHeaders(w, "application/json")
	return ok(w, apitype.ShareVersion{Version: fileVersion(m.Path)})
}

func (s *Server) shareScript(w http.ResponseWriter, r *http.Request) error {
	shareHeaders(w, "text/javascript; charset=utf-8")
	w.Write(shareLiveJS)
	return nil
}

// shareNotFound answers every other path under /share/ as a wrong token
// (its pattern has none: a failed attempt like any other).
func (s *Server) shareNotFound(w http.ResponseWriter, r *http.Request) error {
	_, err := s.shareOf(r)
	return err
}

// shareOf is the live link of the request's token; the one place a
// token is counted and refused by the sign-in throttle.
func (s *Server) shareOf(r *http.Request) (apitype.Share, error) {
	key := s.clientKey(r)
	if s.auth.throttle.Blocked(key) {
		return apitype.Share{}, errs.Errorf(errs.Throttled, "too many failed attempts; try again later")
	}
	if token := r.PathValue("token"); token != "" {
		if sh, found := s.shares.Lookup(access.ShareHash(token), time.Now()); found {
			return sh, nil
		}
	}
	s.auth.throttle.Fail(key)
	return apitype.Share{}, errs.Errorf(errs.NotFound, shareGone)
}

// shareMeta is the live link of the request's token and its session's
// listing; a session gone since is the same 404, but not a failure.
func (s *Server) shareMeta(r *http.Request) (apitype.Share, Meta, error) {
	sh, err := s.shareOf(r)
	if err != nil {
		return sh, Meta{}, err
	}
	m, err := s.lookupID(r.Context(), sh.Session)
	if err != nil {
		return sh, Meta{}, errs.Errorf(errs.NotFound, shareGone)
	}
	return sh, m, nil
}

// shareOpen is the shared session and the entry its page ends at. A
// session gone since (in the trash) is the same 404, but not a failure.
func (s *Server) shareOpen(r *http.Request) (Meta, *pisession.Session, *pisession.Entry, error) {
	sh, m, err := s.shareMeta(r)
	if err != nil {
		return Meta{}, nil, nil, err
	}
	sess, err := s.load(m.Path)
	if err != nil {
		return Meta{}, nil, nil, errs.E("share", shareGone, err)
	}
	if sh.Leaf == "" {
		return m, sess, sess.Leaf(), nil
	}
	if tip := branchTip(sess, sh.Leaf); tip != nil {
		return m, sess, tip, nil
	}
	return Meta{}, nil, nil, errs.Errorf(errs.NotFound, shareGone)
}

// branchTip is the newest entry of the branch through id: the last in
// file order that is id or descends from it (the shared branch as it
// went on); nil when id is gone.
func branchTip(sess *pisession.Session, id string) *pisession.Entry {
	var tip *pisession.Entry
	on := map[string]bool{}
	for _, e := range sess.Entries {
		if e.ID != "" && (e.ID == id || e.ParentID != "" && on[e.ParentID]) {
			on[e.ID] = true
			tip = e
		}
	}
	return tip
}

// fileVersion names the state of a session file: its size and time.
func fileVersion(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d-%d", fi.Size(), fi.ModTime().UnixNano())
}

func shareHeaders(w http.ResponseWriter, ctype string) {
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Security-Policy", shareCSP)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Robots-Tag", "noindex, nofollow")
}

// logPath is the request's path as the log gets it: a share link's token
// is a secret and stays out ("/share/…").
func logPath(r *http.Request) string {
	rest, found := strings.CutPrefix(r.URL.Path, "/share/")
	if !found || rest == "live.js" {
		return r.URL.Path
	}
	if _, tail, more := strings.Cut(rest, "/"); more {
		return "/share/…/" + tail
	}
	return "/share/…"
}
