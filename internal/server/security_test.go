package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/access"
)

func TestRefusals(t *testing.T) {
	r := newRig(t, Options{})
	id := r.find("Dark theme")["id"].(string)
	rename := "/api/sessions/" + id + "/rename"
	tests := []struct {
		name   string
		method string
		path   string
		body   any
		hdr    []string
		status int
		code   string
	}{
		{"cross-origin POST", "POST", rename, map[string]string{"name": "x"}, []string{"Origin", "http://evil.example"}, 403, "forbidden"},
		{"cross-site fetch metadata", "POST", rename, map[string]string{"name": "x"}, []string{"Sec-Fetch-Site", "cross-site"}, 403, "forbidden"},
		{"forged Host", "GET", "/api/sessions", nil, []string{"Host", "evil.example:30141"}, 403, "forbidden"},
		{"forged Host on the app", "GET", "/", nil, []string{"Host", "rebind.example"}, 403, "forbidden"},
		{"form content type", "POST", rename, `name=x`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "unsupported"},
		{"text/plain content type", "POST", rename, `{"name":"x"}`, []string{"Content-Type", "text/plain"}, 415, "unsupported"},
		{"bad JSON", "POST", rename, `{"name":`, nil, 400, "invalid"},
		{"unknown field", "POST", rename, map[string]string{"nome": "x"}, nil, 400, "invalid"},
		{"body too large", "POST", rename, `{"name":"` + strings.Repeat("x", maxBody) + `"}`, nil, 413, "too_large"},
		{"unknown session", "GET", "/api/sessions/nope", nil, nil, 404, "not_found"},
		{"unknown route", "GET", "/api/nope", nil, nil, 404, "not_found"},
		{"wrong method", "PUT", "/api/sessions", `{}`, nil, 405, "method_not_allowed"},
		{"traversal", "GET", "/api/sessions/" + id + "/file?path=../../agent/settings.json", nil, nil, 403, "forbidden"},
		{"traversal in dir listing", "GET", "/api/sessions/" + id + "/files?path=src/../..", nil, nil, 403, "forbidden"},
		{"absolute path", "GET", "/api/sessions/" + id + "/file?path=/etc/passwd", nil, nil, 403, "forbidden"},
		{"bad sort", "GET", "/api/sessions?sort=bogus", nil, nil, 400, "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := r.json(tt.method, tt.path, tt.body, tt.status, tt.hdr...)
			if got := errCode(t, m); got != tt.code {
				t.Errorf("code %q, want %q", got, tt.code)
			}
			if strings.Contains(m["error"].(map[string]any)["message"].(string), r.d.Root) {
				t.Errorf("error leaks a path: %v", m)
			}
		})
	}
	if got := r.find("Dark theme")["name"]; got != "Dark theme" {
		t.Errorf("a refused rename changed the name to %v", got)
	}
}

func TestSymlinkEscape(t *testing.T) {
	r := newRig(t, Options{})
	s := r.find("Dark theme")
	cwd := s["cwd"].(string)
	secret := filepath.Join(r.d.Root, "secret.txt")
	os.WriteFile(secret, []byte("top secret"), 0o600)
	if err := os.Symlink(secret, filepath.Join(cwd, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(r.d.Root, filepath.Join(cwd, "up")); err != nil {
		t.Fatal(err)
	}
	os.Symlink("README.md", filepath.Join(cwd, "inside.md"))
	base := "/api/sessions/" + s["id"].(string)
	for _, p := range []string{"/file?path=leak.txt", "/file?path=up/secret.txt", "/files?path=up"} {
		if code := errCode(t, r.json("GET", base+p, nil, 403)); code != "forbidden" {
			t.Errorf("%s: code %s", p, code)
		}
	}
	// The listing shows links out as "other", without the size or time of
	// what they point to.
	var listed []any
	for _, e := range r.json("GET", base+"/files", nil, 200)["entries"].([]any) {
		if m := e.(map[string]any); m["name"] == "leak.txt" || m["name"] == "up" || m["name"] == "inside.md" {
			listed = append(listed, m)
		}
	}
	if len(listed) != 3 {
		t.Fatalf("links listed: %v", listed)
	}
	readme, _ := os.Stat(filepath.Join(cwd, "README.md"))
	want := []any{
		map[string]any{"name": "inside.md", "type": "file", "size": float64(readme.Size()), "modified": listed[0].(map[string]any)["modified"]},
		map[string]any{"name": "leak.txt", "type": "other", "size": float64(0), "modified": nil},
		map[string]any{"name": "up", "type": "other", "size": float64(0), "modified": nil},
	}
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("listing of links (-want +got):\n%s", diff)
	}
	resp := r.do("GET", base+"/file?path=inside.md", nil)
	if resp.StatusCode != 200 {
		t.Errorf("a symlink inside the cwd: status %d", resp.StatusCode)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") {
		t.Errorf("file served without sandbox CSP: %q", csp)
	}
}

func TestSecurityHeaders(t *testing.T) {
	r := newRig(t, Options{})
	for _, p := range []string{"/", "/api/sessions", "/api/nope"} {
		resp := r.do("GET", p, nil)
		h := resp.Header
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
	if code := errCode(t, r.json("GET", "/api/sessions", nil, 401)); code != "unauthorized" {
		t.Errorf("missing token: %s", code)
	}
	r.json("GET", "/api/sessions", nil, 200, "Authorization", "Bearer "+token)
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
		r.json("GET", "/api/sessions", nil, 200, "Cookie", r.srv.auth.cookie+"="+c.Value)
	}
	// A cookie made with another key, or tampered with, is refused.
	other := access.NewKeys("another-token").NewCookie()
	r.json("GET", "/api/sessions", nil, 401, "Cookie", r.srv.auth.cookie+"="+other)
}

// TestLoginLinkOneTime: without a chosen token, each printed link signs in
// one browser once; the cookie it sets is what authenticates later.
func TestLoginLinkOneTime(t *testing.T) {
	logins := make(chan string, 4)
	r := newRig(t, Options{Login: true, Addr: "0.0.0.0:30141", OnLogin: func(ip string) { logins <- ip }})
	r.json("GET", "/api/sessions", nil, 401)
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
	r.json("GET", "/api/sessions", nil, 200, "Cookie", r.srv.auth.cookie+"="+c.Value)
	r.json("GET", "/api/sessions", nil, 401, "Authorization", "Bearer "+c.Value) // a cookie is never a bearer token
	if status, c2 := r.signIn(link); status != http.StatusUnauthorized || c2 != nil {
		t.Errorf("reused link: status %d, cookie %v", status, c2)
	}
	secret := strings.TrimPrefix(link, "/auth?token=")
	r.json("GET", "/api/sessions", nil, 401, "Authorization", "Bearer "+secret)
	nonce, _, _ := strings.Cut(c.Value, ".")
	r.json("GET", "/api/sessions", nil, 401, "Cookie", r.srv.auth.cookie+"="+nonce+".AAAA")
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
		r.json("GET", "/api/sessions", nil, 401, "Authorization", "Bearer wrong"+string(rune('a'+i)))
	}
	// Over the limit even the right token is not checked.
	if code := errCode(t, r.json("GET", "/api/sessions", nil, 429, "Authorization", "Bearer right")); code != "throttled" {
		t.Errorf("code %s", code)
	}
	if code := errCode(t, r.json("GET", "/auth?token=guess", nil, 429)); code != "throttled" {
		t.Errorf("auth code %s", code)
	}
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
		if resp := r.do("GET", "/api/status", nil, "Host", host); resp.StatusCode != want {
			t.Errorf("Host %s: status %d, want %d", host, resp.StatusCode, want)
		}
	}
}
