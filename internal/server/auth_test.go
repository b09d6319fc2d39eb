package server

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"piweb/internal/access"
)

const longToken = "a-token-long-enough-0123"

// TestThrottleCountsWrongTokensOnly: requests without credentials (the
// app's files, another site's subresources) and stale cookies are refused
// without counting; only wrong tokens lock a client out.
func TestThrottleCountsWrongTokensOnly(t *testing.T) {
	r := newRig(t, Options{Token: longToken, Addr: "0.0.0.0:30141"})
	for i := range 30 {
		r.headers("GET", "/")
		wantStatus(t, 401, r.listAs())
		wantStatus(t, 401, r.listAs("Cookie", r.srv.auth.cookie+"=1."+strconv.Itoa(i)+".AAAA"))
	}
	wantStatus(t, 200, r.listAs("Authorization", "Bearer "+longToken))
	for i := range 10 {
		wantStatus(t, 401, r.listAs("Authorization", "Bearer wrong"+strconv.Itoa(i)))
	}
	wantStatus(t, 429, r.listAs("Authorization", "Bearer "+longToken))
}

// TestThrottleProxy: X-Forwarded-For keys the throttle only for requests
// from a proxy named in Options.Proxies (serve's --proxy).
func TestThrottleProxy(t *testing.T) {
	for _, c := range []struct {
		proxies []string
		other   int // the other client's status after the first's lock-out
	}{{nil, 429}, {[]string{"127.0.0.1"}, 200}} {
		r := newRig(t, Options{Token: longToken, Addr: "0.0.0.0:30141", Proxies: c.proxies})
		for range 10 {
			wantStatus(t, 401, r.listAs("Authorization", "Bearer wrong", "X-Forwarded-For", "198.51.100.1"))
		}
		wantStatus(t, 429, r.listAs("Authorization", "Bearer "+longToken, "X-Forwarded-For", "198.51.100.1"))
		wantStatus(t, c.other, r.listAs("Authorization", "Bearer "+longToken,
			"X-Forwarded-For", "198.51.100.1, 203.0.113.7"))
	}
}

func TestCheckToken(t *testing.T) {
	for _, c := range []struct {
		token, addr string
		ok          bool
	}{{"short", "127.0.0.1:1", true}, {"short", "0.0.0.0:1", false}, {"", "0.0.0.0:1", true},
		{longToken, "0.0.0.0:1", true}, {"fifteen-chars15", ":1", false}} {
		if err := CheckToken(c.token, c.addr); (err == nil) != c.ok {
			t.Errorf("CheckToken(%q, %q) = %v", c.token, c.addr, err)
		}
	}
}

// TestCookieLife: the session cookie is named after the port, expires on
// the server after access.CookieAge, is revoked by sign-out, dies with the
// instance (another instance with the same token refuses it) and is never
// a bearer token.
func TestCookieLife(t *testing.T) {
	r := newRig(t, Options{Token: longToken, Addr: "127.0.0.1:30141"})
	if r.srv.auth.cookie != "piweb_30141" {
		t.Errorf("cookie name %q", r.srv.auth.cookie)
	}
	now := time.Now()
	r.srv.auth.Now = func() time.Time { return now }
	cookie := func() string {
		_, c := r.signIn("/auth?token=" + longToken)
		if c == nil {
			t.Fatal("no cookie")
		}
		return r.srv.auth.cookie + "=" + c.Value
	}
	old := cookie()
	wantStatus(t, 200, r.listAs("Cookie", old))
	wantStatus(t, 401, r.listAs("Authorization", "Bearer "+strings.SplitN(old, "=", 2)[1]))
	now = now.Add(access.CookieAge + time.Second)
	wantStatus(t, 401, r.listAs("Cookie", old))

	c := cookie()
	if got, err := r.apiAs("Cookie", c).Status(t.Context()); err != nil || !got.SignIn {
		t.Errorf("status signIn %v, %v", got.SignIn, err)
	}
	resp, err := r.apiAs("Cookie", c).Send(t.Context(), "POST", "/api/signout", strings.NewReader("{}"),
		http.Header{"Content-Type": {"application/json"}})
	if err != nil {
		t.Fatalf("sign-out: %v", err)
	}
	resp.Body.Close()
	if !cleared(resp, r.srv.auth.cookie) {
		t.Errorf("sign-out: cookies %v", resp.Cookies())
	}
	wantStatus(t, 401, r.listAs("Cookie", c))
	other := access.NewKeys(longToken)
	wantStatus(t, 401, r.listAs("Cookie", r.srv.auth.cookie+"="+other.NewCookie()))
}

func cleared(resp *http.Response, name string) bool {
	for _, c := range resp.Cookies() {
		if c.Name == name && c.MaxAge < 0 {
			return true
		}
	}
	return false
}

// TestSignInPages: beyond loopback a browser opening a page without
// sign-in, or a used link, reads a page, not JSON; the app's requests
// still get JSON; a used link in a browser signed in opens the app
// (issue 25 item 6).
func TestSignInPages(t *testing.T) {
	r := newRig(t, Options{Login: true, Addr: "0.0.0.0:30141"})
	link := r.srv.LoginLink()
	_, c := r.signIn(link)
	if c == nil {
		t.Fatal("the link signed nobody in")
	}
	page := func(path string, hdr ...string) (int, string, string) {
		resp := r.do("GET", path, nil, append([]string{"Accept", "text/html,application/xhtml+xml"}, hdr...)...)
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	for _, path := range []string{"/", link} { // not signed in; the link used up
		code, ct, body := page(path)
		if code != 401 || !strings.HasPrefix(ct, "text/html") || !strings.Contains(body, "open the link piweb printed") {
			t.Errorf("GET %s: %d %s\n%s", path, code, ct, body)
		}
	}
	if err := r.listAs(); statusOf(err) != 401 || !strings.Contains(err.Error(), "sign-in required") {
		t.Errorf("the API's refusal: %v", err)
	}
	client := r.ts.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, _ := http.NewRequestWithContext(t.Context(), "GET", r.ts.URL+link, nil)
	req.AddCookie(c)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Errorf("a used link in a browser signed in: %d to %q, want 303 to the app", resp.StatusCode, resp.Header.Get("Location"))
	}
}
