package client

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOptionsAndErrors: every request carries the extra headers through
// the caller's http.Client; an error answer is an *Error with the API's
// code and message, and a foreign error page keeps its status.
func TestOptionsAndErrors(t *testing.T) {
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" key="+r.Header.Get("X-Fleet-Key"))
		switch r.URL.EscapedPath() {
		case "/api/sessions/a%2Fb":
			w.WriteHeader(404)
			w.Write([]byte(`{"error":{"code":"not_found","message":"session not found"}}`))
		case "/api/trash":
			w.WriteHeader(502)
			w.Write([]byte("<html>bad gateway</html>"))
		default:
			w.Write([]byte(`{"sessions":[{"id":"x","cwd":"/p"}],"total":1}`))
		}
	}))
	defer ts.Close()
	c := New(ts.URL+"/", Options{HTTPClient: ts.Client(), Header: http.Header{"X-Fleet-Key": {"k1"}}})
	list, err := c.Sessions(t.Context(), ListOptions{Project: "/p", Asc: true, Limit: 2})
	if err != nil || list.Total != 1 || list.Sessions[0].ID != "x" {
		t.Fatalf("list %+v, %v", list, err)
	}
	_, err = c.Session(t.Context(), "a/b")
	var e *Error
	if !errors.As(err, &e) || *e != (Error{Status: 404, Kind: "not_found", Message: "session not found"}) {
		t.Errorf("error %#v", err)
	}
	if _, err := c.Trash(t.Context()); StatusOf(err) != 502 || KindOf(err) != "" {
		t.Errorf("foreign error page: %v", err)
	}
	want := []string{"GET /api/sessions?limit=2&order=asc&project=%2Fp key=k1",
		"GET /api/sessions/a%2Fb key=k1", "GET /api/trash key=k1"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
