package server

import (
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
