package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/access"
	"piweb/internal/cwdfs"
	"piweb/internal/errs"
)

func TestRefusals(t *testing.T) {
	r := newRig(t, Options{})
	id := r.item("Dark theme").ID
	rename := "/api/sessions/" + id + "/rename"
	tests := []struct {
		name   string
		method string
		path   string
		body   string // sent as application/json unless hdr says otherwise
		hdr    []string
		status int
		code   string
	}{
		{"cross-origin POST", "POST", rename, `{"name":"x"}`, []string{"Origin", "http://evil.example"}, 403, "forbidden"},
		{"cross-site fetch metadata", "POST", rename, `{"name":"x"}`, []string{"Sec-Fetch-Site", "cross-site"}, 403, "forbidden"},
		{"forged Host", "GET", "/api/sessions", "", []string{"Host", "evil.example:30141"}, 403, "forbidden"},
		{"forged Host on the app", "GET", "/", "", []string{"Host", "rebind.example"}, 403, "forbidden"},
		{"form content type", "POST", rename, `name=x`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "unsupported"},
		{"text/plain content type", "POST", rename, `{"name":"x"}`, []string{"Content-Type", "text/plain"}, 415, "unsupported"},
		{"bad JSON", "POST", rename, `{"name":`, nil, 400, "invalid"},
		{"unknown field", "POST", rename, `{"nome":"x"}`, nil, 400, "invalid"},
		{"body too large", "POST", rename, `{"name":"` + strings.Repeat("x", maxBody) + `"}`, nil, 413, "too_large"},
		{"unknown session", "GET", "/api/sessions/nope", "", nil, 404, "not_found"},
		{"unknown route", "GET", "/api/nope", "", nil, 404, "not_found"},
		{"wrong method", "PUT", "/api/sessions", `{}`, nil, 405, "method_not_allowed"},
		{"traversal", "GET", "/api/sessions/" + id + "/file?path=../../agent/settings.json", "", nil, 403, "forbidden"},
		{"traversal in dir listing", "GET", "/api/sessions/" + id + "/files?path=src/../..", "", nil, 403, "forbidden"},
		{"absolute path", "GET", "/api/sessions/" + id + "/file?path=/etc/passwd", "", nil, 403, "forbidden"},
		{"bad sort", "GET", "/api/sessions?sort=bogus", "", nil, 400, "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.send(tt.method, tt.path, tt.body, tt.hdr...)
			wantErr(t, tt.name, err, tt.status, tt.code)
			if strings.Contains(errs.Message(err), r.d.Root) {
				t.Errorf("error leaks a path: %v", err)
			}
		})
	}
	if got := r.item("Dark theme").Name; got == nil || *got != "Dark theme" {
		t.Errorf("a refused rename changed the name to %v", got)
	}
}

func TestSymlinkEscape(t *testing.T) {
	r := newRig(t, Options{})
	s := r.item("Dark theme")
	cwd := s.Cwd
	api, ctx := r.api(), t.Context()
	secret := filepath.Join(r.d.Root, "secret.txt")
	os.WriteFile(secret, []byte("top secret"), 0o600)
	if err := os.Symlink(secret, filepath.Join(cwd, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(r.d.Root, filepath.Join(cwd, "up")); err != nil {
		t.Fatal(err)
	}
	os.Symlink("README.md", filepath.Join(cwd, "inside.md"))
	for what, err := range map[string]error{"file leak.txt": third(api.File(ctx, s.ID, "leak.txt")),
		"file up/secret.txt": third(api.File(ctx, s.ID, "up/secret.txt")), "files up": second(api.Files(ctx, s.ID, "up"))} {
		wantErr(t, what, err, 403, "forbidden")
	}
	// The listing shows links out as "other", without the size or time of
	// what they point to.
	all, err := api.Files(ctx, s.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	var listed []cwdfs.Entry
	for _, e := range all.Entries {
		if e.Name == "leak.txt" || e.Name == "up" || e.Name == "inside.md" {
			listed = append(listed, e)
		}
	}
	if len(listed) != 3 {
		t.Fatalf("links listed: %v", listed)
	}
	readme, _ := os.Stat(filepath.Join(cwd, "README.md"))
	want := []cwdfs.Entry{
		{Name: "inside.md", Type: "file", Size: readme.Size(), Modified: listed[0].Modified},
		{Name: "leak.txt", Type: "other"},
		{Name: "up", Type: "other"},
	}
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("listing of links (-want +got):\n%s", diff)
	}
	_, hdr, err := api.File(ctx, s.ID, "inside.md")
	if err != nil {
		t.Errorf("a symlink inside the cwd: %v", err)
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") {
		t.Errorf("file served without sandbox CSP: %q", csp)
	}
}

func TestSecurityHeaders(t *testing.T) {
	r := newRig(t, Options{})
	for _, p := range []string{"/", "/api/sessions", "/api/nope"} {
		h := r.headers("GET", p)
		if h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", p)
		}
		if !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", p, h.Get("Content-Security-Policy"))
		}
	}
}

// signIn opens a login link without following its redirect and returns
// the answer's status and session cookie (nil when none).
func (r *rig) signIn(link string) (int, *http.Cookie) {
	r.t.Helper()
	client := r.ts.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Get(r.ts.URL + link)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == r.srv.auth.cookie {
			return resp.StatusCode, c
		}
	}
	return resp.StatusCode, nil
}

// TestToken: a token the user chose works as a bearer token and as a
// reusable login link; the cookie the link sets is not the token.
func TestToken(t *testing.T) {
	const token = "s3cret-token"
	r := newRig(t, Options{Token: token, Addr: "0.0.0.0:30141"})
	wantErr(t, "missing token", r.listAs(), 401, "unauthorized")
	if err := r.listAs("Authorization", "Bearer "+token); err != nil {
		t.Error(err)
	}
	if link := r.srv.LoginLink(); link != "/auth?token="+token {
		t.Errorf("login link %q", link)
	}
	for range 2 {
		status, c := r.signIn("/auth?token=" + token)
		if status != http.StatusSeeOther || c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
			t.Fatalf("auth: status %d, cookie %+v", status, c)
		}
		if c.Value == token {
			t.Error("the cookie holds the token itself")
		}
		if err := r.listAs("Cookie", r.srv.auth.cookie+"="+c.Value); err != nil {
			t.Error(err)
		}
	}
	// A cookie made with another key, or tampered with, is refused.
	other := access.NewKeys("another-token").NewCookie()
	wantErr(t, "another key's cookie", r.listAs("Cookie", r.srv.auth.cookie+"="+other), 401, "")
}

// TestLoginLinkOneTime: without a chosen token, each printed link signs in
// one browser once; the cookie it sets is what authenticates later.
func TestLoginLinkOneTime(t *testing.T) {
	logins := make(chan string, 4)
	r := newRig(t, Options{Login: true, Addr: "0.0.0.0:30141", OnLogin: func(ip string) { logins <- ip }})
	wantErr(t, "no credential", r.listAs(), 401, "")
	link := r.srv.LoginLink()
	if !strings.HasPrefix(link, "/auth?token=") || link == r.srv.LoginLink() {
		t.Fatalf("links %q: want a new one each time", link)
	}
	status, c := r.signIn(link)
	if status != http.StatusSeeOther || c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
		t.Fatalf("first use: status %d, cookie %+v", status, c)
	}
	if strings.Contains(link, c.Value) {
		t.Error("the cookie holds the link's secret")
	}
	if err := r.listAs("Cookie", r.srv.auth.cookie+"="+c.Value); err != nil {
		t.Error(err)
	}
	wantErr(t, "cookie as a bearer token", r.listAs("Authorization", "Bearer "+c.Value), 401, "") // a cookie is never a bearer token
	if status, c2 := r.signIn(link); status != http.StatusUnauthorized || c2 != nil {
		t.Errorf("reused link: status %d, cookie %v", status, c2)
	}
	secret := strings.TrimPrefix(link, "/auth?token=")
	wantErr(t, "the link's secret as a token", r.listAs("Authorization", "Bearer "+secret), 401, "")
	nonce, _, _ := strings.Cut(c.Value, ".")
	wantErr(t, "a forged cookie", r.listAs("Cookie", r.srv.auth.cookie+"="+nonce+".AAAA"), 401, "")
	close(logins)
	var got []string
	for ip := range logins {
		got = append(got, ip)
	}
	if len(got) != 1 || got[0] != "127.0.0.1" {
		t.Errorf("OnLogin calls %v, want one from 127.0.0.1", got)
	}
}

func TestTokenThrottle(t *testing.T) {
	r := newRig(t, Options{Token: "right"})
	for i := range 10 {
		wantErr(t, "a wrong token", r.listAs("Authorization", "Bearer wrong"+string(rune('a'+i))), 401, "")
	}
	// Over the limit even the right token is not checked.
	wantErr(t, "the right token over the limit", r.listAs("Authorization", "Bearer right"), 429, "throttled")
	wantErr(t, "a sign-in link over the limit", r.send("GET", "/auth?token=guess", ""), 429, "throttled")
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:1": true, "[::1]:1": true, "localhost:1": true,
		"0.0.0.0:1": false, ":1": false, "192.168.1.2:1": false} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v", addr, got)
		}
	}
}

// TestExtraHosts: names given as Options.Hosts (serve's --host) are
// accepted, with or without a port; anything else is still refused.
func TestExtraHosts(t *testing.T) {
	r := newRig(t, Options{Hosts: []string{"piweb.example", "[fd00::1]:8080"}})
	for host, want := range map[string]int{"piweb.example": 200, "PIWEB.example:443": 200, "[fd00::1]:30141": 200,
		"localhost:30141": 200, "evil.example": 403, "example": 403} {
		if status := statusOf(r.send("GET", "/api/status", "", "Host", host)); status != want {
			t.Errorf("Host %s: status %d, want %d", host, status, want)
		}
	}
}
