package server

import (
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"piweb/internal/access"
	"piweb/internal/apitype"
	"piweb/internal/client"
	"piweb/internal/own"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// get sends a GET with no credential at all and returns status, headers
// and body.
func (r *rig) get(path string, hdr ...string) (int, http.Header, string) {
	r.t.Helper()
	resp := r.do("GET", path, nil, hdr...)
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestShareLink: on a server that requires sign-in, a link made through
// the API opens the session's export page to a client with no credential,
// with the page's headers, and opens nothing else; the token stays out of
// the log.
func TestShareLink(t *testing.T) {
	t.Parallel() // its own rig
	logs := &testkit.Output{}
	r := newRig(t, Options{Token: "the-owners-token", Addr: "0.0.0.0:30141",
		Log: slog.New(slog.NewTextHandler(logs, nil))})
	owner := r.apiAs("Authorization", "Bearer the-owners-token")
	list, err := owner.Sessions(t.Context(), client.ListOptions{})
	if err != nil || len(list.Sessions) == 0 {
		t.Fatal(list, err)
	}
	it := list.Sessions[0]
	wantErr(t, "a link without sign-in", second(r.api().Share(t.Context(), apitype.ShareRequest{Session: it.ID})), 401, "")
	sh, err := owner.Share(t.Context(), apitype.ShareRequest{Session: it.ID})
	if err != nil {
		t.Fatal(err)
	}
	if d := sh.Expires.Sub(sh.Created); d != 7*24*time.Hour || sh.LoopbackOnly || sh.Leaf != "" {
		t.Errorf("new link %+v: want 7 days, beyond loopback, the whole session", sh)
	}
	token := strings.TrimPrefix(sh.Path, "/share/")
	if !access.ShareTokenShape(token) {
		t.Fatalf("path %q", sh.Path)
	}
	status, h, body := r.get(sh.Path, "Accept", "text/html")
	if status != 200 || !strings.Contains(body, `<script src="/share/live.js" defer>`) || !strings.Contains(body, "noindex") {
		t.Fatalf("page: %d %.300s", status, body)
	}
	wantHeaders(t, h, map[string]string{"Content-Security-Policy": shareCSP, "Cache-Control": "no-store",
		"Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex, nofollow", "Set-Cookie": ""})
	version := regexp.MustCompile(`data-version="([^"]+)"`).FindStringSubmatch(body)
	if status, _, v := r.get(sh.Path + "/version"); status != 200 || version == nil || !strings.Contains(v, version[1]) {
		t.Errorf("version: %d %s, page at %v", status, v, version)
	}
	if status, h, _ := r.get("/share/live.js"); status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/javascript") {
		t.Errorf("script: %d %v", status, h)
	}
	shareOpensNothingElse(t, r, token, it.ID)
	links, err := owner.Shares(t.Context())
	if err != nil || len(links.Shares) != 1 || links.Shares[0].ID != sh.ID || strings.Contains(logs.String(), token) {
		t.Errorf("list %+v %v; token logged: %v", links, err, strings.Contains(logs.String(), token))
	}
}

// shareOpensNothingElse: the token is no credential for the API or the
// app, under any header, and paths beside the page's are 404.
func shareOpensNothingElse(t *testing.T, r *rig, token, id string) {
	t.Helper()
	for _, hdr := range [][]string{{"Authorization", "Bearer " + token}, {"Cookie", r.srv.auth.cookie + "=" + token}} {
		wantErr(t, "the token as "+hdr[0], r.listAs(hdr...), 401, "")
		if status, _, _ := r.get("/api/sessions/"+id, hdr...); status != 401 {
			t.Errorf("a session's API with the token as %s: %d", hdr[0], status)
		}
	}
	for _, p := range []string{"/", "/?s=" + token, "/settings"} {
		if status, _, _ := r.get(p, "Accept", "text/html", "Referer", "http://127.0.0.1:30141/share/"+token); status != 401 {
			t.Errorf("%s after the page: %d, want 401", p, status)
		}
	}
	for _, p := range []string{"/share/" + token + "/export", "/share/" + token + "/version/x", "/share/"} {
		if status, _, _ := r.get(p); status != 404 {
			t.Errorf("%s: %d, want 404", p, status)
		}
	}
	if resp := r.do("POST", "/share/"+token, "{}"); resp.StatusCode != 401 {
		t.Errorf("POST to the page: %d, want 401", resp.StatusCode)
	}
	if status, _, _ := r.get("/share/"+token, "Host", "evil.example"); status != 403 {
		t.Errorf("another Host: %d, want 403", status)
	}
}

func wantHeaders(t *testing.T, h http.Header, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("header %s: %q, want %q", k, got, v)
		}
	}
}

// TestShareRefusals: a guessed, revoked or expired token is one 404, the
// same body whatever the reason, for the page and its version alike; each
// counts as a failed sign-in, and over the throttle's limit even a live
// link is not looked at. A revoked link's open page learns it at its next
// question.
func TestShareRefusals(t *testing.T) {
	t.Parallel() // its own rig
	r := newRig(t, Options{})
	c, id := r.api(), r.items()[0].ID
	live, err := c.Share(t.Context(), apitype.ShareRequest{Session: id})
	if err != nil {
		t.Fatal(err)
	}
	revoked, _ := c.Share(t.Context(), apitype.ShareRequest{Session: id, Hours: 1})
	if err := c.RevokeShare(t.Context(), revoked.ID); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "revoking twice", c.RevokeShare(t.Context(), revoked.ID), 404, "not_found")
	now := time.Now()
	expiredToken, hash := access.NewShareToken()
	r.srv.shares.Add(own.ShareLink{Share: apitype.Share{ID: "old", Session: id, Created: now.Add(-2 * time.Hour),
		Expires: now.Add(-time.Hour)}, Hash: hash}, now.Add(-2*time.Hour))
	guess, _ := access.NewShareToken()
	bodies := map[string]bool{}
	for _, p := range []string{"/share/" + guess, revoked.Path, "/share/" + expiredToken, revoked.Path + "/version", "/share/short"} {
		status, _, body := r.get(p, "Accept", "text/html")
		if status != 404 {
			t.Errorf("%s: %d, want 404", p, status)
		}
		bodies[body] = true
	}
	if len(bodies) != 1 {
		t.Errorf("the refusals differ: %v", bodies)
	}
	for i := 0; i < 20; i++ {
		if status, _, _ := r.get("/share/guess" + string(rune('a'+i))); status == 429 {
			break
		}
	}
	if status, _, _ := r.get(live.Path); status != 429 {
		t.Errorf("a live link over the throttle's limit: %d, want 429", status)
	}
}

// TestShareRequests: what POST /api/shares refuses, and a branch link.
func TestShareRequests(t *testing.T) {
	t.Parallel() // its own rig
	r := newRig(t, Options{})
	c, id := r.api(), r.items()[0].ID
	for _, tc := range []struct {
		name   string
		req    apitype.ShareRequest
		status int
	}{
		{"no session", apitype.ShareRequest{}, 400},
		{"unknown session", apitype.ShareRequest{Session: "nope"}, 404},
		{"another machine's", apitype.ShareRequest{Session: id + "@elsewhere"}, 400},
		{"negative hours", apitype.ShareRequest{Session: id, Hours: -1}, 400},
		{"over 90 days", apitype.ShareRequest{Session: id, Hours: 90*24 + 1}, 400},
		{"a leaf without branch", apitype.ShareRequest{Session: id, Leaf: "x"}, 400},
		{"an unknown leaf", apitype.ShareRequest{Session: id, Branch: true, Leaf: "nope"}, 404},
	} {
		wantErr(t, tc.name, second(c.Share(t.Context(), tc.req)), tc.status, "")
	}
	sh, err := c.Share(t.Context(), apitype.ShareRequest{Session: id, Branch: true, Hours: 1})
	if err != nil || sh.Leaf != r.leaf(id) || sh.Expires.Sub(sh.Created) != time.Hour || !sh.LoopbackOnly {
		t.Fatalf("branch link %+v %v: want the leaf %s, an hour, loopback only", sh, err, r.leaf(id))
	}
	if status, _, body := r.get(sh.Path); status != 200 || !strings.Contains(body, sh.Title) {
		t.Errorf("branch page: %d %.200s", status, body)
	}
	// The app's own session pages (/s/ID, /s/ID/terminal) stay the app's.
	for _, p := range []string{"/s/" + id, "/s/" + id + "/terminal"} {
		if status, _, body := r.get(p, "Accept", "text/html"); status != 200 || strings.Contains(body, "share link") {
			t.Errorf("%s: %d %.200s", p, status, body)
		}
	}
}

// TestBranchTip: a branch link follows its branch as it goes on, not the
// session's other branches.
func TestBranchTip(t *testing.T) {
	sess := pisession.Parse([]byte(`{"type":"session","version":3,"id":"s","cwd":"/"}
{"type":"message","id":"a","parentId":null}
{"type":"message","id":"b","parentId":"a"}
{"type":"message","id":"c","parentId":"a"}
{"type":"message","id":"d","parentId":"b"}
{"type":"message","id":"e","parentId":"c"}
`))
	for id, want := range map[string]string{"a": "e", "b": "d", "c": "e", "d": "d", "gone": ""} {
		got := ""
		if e := branchTip(sess, id); e != nil {
			got = e.ID
		}
		if got != want {
			t.Errorf("tip of %s: %q, want %q", id, got, want)
		}
	}
}
