package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/catalog/catalogtest"
	"piweb/internal/client"
	"piweb/internal/demo"
	"piweb/internal/index"
	"piweb/internal/testkit"
)

// rig is a server over the demo's sample sessions, without pi.
type rig struct {
	t   testing.TB
	srv *Server
	ts  *httptest.Server
	cat *catalog.Catalog
	ix  *index.Index // the index of newIndexRig, else nil
	d   *demo.Demo
}

// seedDemo writes the demo's sessions into a temporary agent dir, or
// stops the test.
func seedDemo(t testing.TB) *demo.Demo {
	t.Helper()
	d, err := demo.Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// newRig serves the demo's sessions with opts and the parts of cfg (at
// most one; its AgentDir and Catalog are the rig's).
func newRig(t testing.TB, opts Options, cfg ...app.Config) *rig {
	t.Helper()
	d := seedDemo(t)
	c := app.Config{}
	if len(cfg) > 0 {
		c = cfg[0]
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:30141"
	}
	r := serveRig(t, d.AgentDir, opts, c)
	r.d = d
	return r
}

// serveRig serves the sessions of agentDir with opts and the parts of cfg
// (its AgentDir is agentDir; its Catalog, unless set, one opened on
// agentDir) over httptest, until tb ends.
func serveRig(tb testing.TB, agentDir string, opts Options, cfg app.Config) *rig {
	tb.Helper()
	if cfg.Catalog == nil {
		cfg.Catalog = openCatalog(tb, agentDir)
	}
	cfg.AgentDir = agentDir
	srv := newServer(tb, opts, cfg)
	ts := httptest.NewServer(srv)
	tb.Cleanup(ts.Close)
	return &rig{t: tb, srv: srv, ts: ts, cat: cfg.Catalog}
}

// newServer builds cfg's parts as serve does (internal/app) and a Server
// over them; when the test ends the server closes, then the parts.
func newServer(tb testing.TB, opts Options, cfg app.Config) *Server {
	tb.Helper()
	parts := app.New(cfg)
	srv := New(opts, parts)
	tb.Cleanup(func() {
		srv.Close()
		parts.Close()
	})
	return srv
}

// do sends a request; body, when not nil, is JSON-encoded (or sent as is
// when it is a string) with Content-Type application/json.
func (r *rig) do(method, path string, body any, hdr ...string) *http.Response {
	r.t.Helper()
	var rd io.Reader
	if body != nil {
		if s, isStr := body.(string); isStr {
			rd = strings.NewReader(s)
		} else {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
	}
	req, err := http.NewRequest(method, r.ts.URL+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	if body != nil || method == "DELETE" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := r.ts.Client().Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// json sends a request and decodes the JSON answer, checking the status.
func (r *rig) json(method, path string, body any, want int, hdr ...string) map[string]any {
	r.t.Helper()
	resp := r.do(method, path, body, hdr...)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		r.t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, b)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		r.t.Fatalf("%s %s: not JSON: %s", method, path, b)
	}
	return out
}

// send sends a request as it is: body ("" for none) as application/json
// unless hdr (name, value, ...) names another Content-Type, for the tests
// of what the typed client never sends; the answer is read and dropped.
func (r *rig) send(method, path, body string, hdr ...string) error {
	r.t.Helper()
	h := http.Header{}
	var rd io.Reader
	if body != "" {
		h.Set("Content-Type", "application/json")
		rd = strings.NewReader(body)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		h.Set(hdr[i], hdr[i+1])
	}
	resp, err := r.api().Send(r.t.Context(), method, path, rd, h)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return err
}

// headers are the headers of the answer to method path, whatever its
// status.
func (r *rig) headers(method, path string) http.Header {
	r.t.Helper()
	req, _ := http.NewRequestWithContext(r.t.Context(), method, r.ts.URL+path, nil)
	resp, err := r.ts.Client().Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header
}

// listAs lists the sessions with hdr (name, value, ...): a credential, a
// cookie; the error is the answer's refusal.
func (r *rig) listAs(hdr ...string) error {
	_, err := r.apiAs(hdr...).Sessions(r.t.Context(), client.ListOptions{})
	return err
}

// wantStatus checks that a request answered err has status want (200:
// no error).
func wantStatus(t testing.TB, want int, err error) {
	t.Helper()
	if got := statusOf(err); got != want {
		t.Errorf("status %d, want %d: %v", got, want, err)
	}
}

// statusOf is the status of a request that answered err: 200 when nil.
func statusOf(err error) int {
	if err == nil {
		return 200
	}
	return client.StatusOf(err)
}

// errCode returns the code of a uniform error answer.
func errCode(t *testing.T, m map[string]any) string {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	if e == nil {
		t.Fatalf("not an error answer: %v", m)
	}
	if msg, _ := e["message"].(string); msg == "" {
		t.Fatalf("error without message: %v", m)
	}
	code, _ := e["code"].(string)
	return code
}

// api is a client of the rig's server, as another program (a fleet, a
// script) uses it: the tests that speak the API read typed answers
// through it.
func (r *rig) api() *client.Client { return r.apiAs() }

// apiAs is r.api() whose requests carry hdr (name, value, ...): a
// credential, a cookie, fetch metadata, a Host.
func (r *rig) apiAs(hdr ...string) *client.Client {
	h := http.Header{}
	for i := 0; i+1 < len(hdr); i += 2 {
		h.Set(hdr[i], hdr[i+1])
	}
	return client.New(r.ts.URL, client.Options{HTTPClient: r.ts.Client(), Header: h})
}

// wantErr checks that err is the API's error answer with this status and,
// unless code is "", this code, with a message.
func wantErr(t testing.TB, what string, err error, status int, code string) {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) || e.Status != status || (code != "" && e.Code != code) || e.Message == "" {
		t.Errorf("%s: %v, want status %d %s", what, err, status, code)
	}
}

// detail is GET /api/sessions/{id}; an error stops the test.
func (r *rig) detail(id string) apitype.SessionDetail {
	r.t.Helper()
	d, err := r.api().Session(r.t.Context(), id)
	if err != nil {
		r.t.Fatalf("session %s: %v", id, err)
	}
	return d
}

// leaf is session id's leaf, "" when it has none or is not listed.
func (r *rig) leaf(id string) string {
	d, err := r.api().Session(r.t.Context(), id)
	if err != nil || d.Leaf == nil {
		return ""
	}
	return *d.Leaf
}

// name is session id's name, "" when it has none.
func (r *rig) name(id string) string {
	if n := r.detail(id).Session.Name; n != nil {
		return *n
	}
	return ""
}

// waitName waits up to timeout for session id to be named want.
func (r *rig) waitName(id, want string, timeout time.Duration) {
	r.t.Helper()
	testkit.Eventually(r.t, func() error {
		if n := r.name(id); n != want {
			return fmt.Errorf("name %q", n)
		}
		return nil
	}, timeout, "the name "+want)
}

// command sends one of pi's commands to session id and checks that it
// answers want: 200, or an error of that status.
func (r *rig) command(id string, cmd map[string]any, want int) apitype.CommandAnswer {
	r.t.Helper()
	a, err := r.api().Command(r.t.Context(), id, cmd)
	if want == 200 && err != nil {
		r.t.Fatalf("command %v: %v", cmd, err)
	} else if want != 200 {
		wantErr(r.t, fmt.Sprint(cmd), err, want, "")
	}
	return a
}

// items lists the sessions.
func (r *rig) items() []catalog.Item {
	r.t.Helper()
	list, err := r.api().Sessions(r.t.Context(), client.ListOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	return list.Sessions
}

// item finds a session by name or first message prefix.
func (r *rig) item(prefix string) catalog.Item {
	r.t.Helper()
	for _, s := range r.items() {
		if (s.Name != nil && strings.HasPrefix(*s.Name, prefix)) || strings.HasPrefix(s.FirstMessage, prefix) {
			return s
		}
	}
	r.t.Fatalf("no session %q", prefix)
	return catalog.Item{}
}

// openCatalog opens a catalog over a temporary index of agentDir, watched
// live, closed when the test ends.
func openCatalog(tb testing.TB, agentDir string) *catalog.Catalog {
	tb.Helper()
	return catalogtest.Open(tb, catalog.Options{AgentDir: agentDir,
		Log: testkit.Log(tb), Rescan: 200 * time.Millisecond, SyncFor: time.Minute})
}

// sync makes the catalog see files the test changed behind its back.
func (r *rig) sync() {
	r.t.Helper()
	if err := r.cat.Sync(context.Background()); err != nil {
		r.t.Fatal(err)
	}
}

// second is the error of a call that answers a value and an error, for a
// table of refusals.
func second[T any](_ T, err error) error { return err }

// third is the error of a call that answers two values and an error.
func third[T, U any](_ T, _ U, err error) error { return err }
