package server

import (
	"context"
	"crypto/sha256"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/apitype"
	"piweb/internal/app"
	"piweb/internal/client"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// guardFixture is a rig with, for every route of routes.go, a request
// that the handler would accept, so that a refusal can only come from the
// security layer.
type guardFixture struct {
	r      *rig
	id     string // the session most routes act on
	doomed string // the session DELETE acts on
	trash  string // a trash item to restore
	trash2 string // a trash item to delete for good
	tid    string // a terminal of the session id
	share  string // a share link's id, to revoke
	bodies map[string]string
}

func newGuardFixture(t *testing.T, opts Options, cfg app.Config) *guardFixture {
	t.Helper()
	opts.Executable = "/opt/piweb" // for POST /api/config/mcp/piweb
	r := newRig(t, opts, cfg)
	f := &guardFixture{r: r}
	if cfg.Terminals == nil {
		t.Fatal("newGuardFixture needs app.Config.Terminals")
	}
	auth := []string{}
	if opts.Token != "" {
		auth = []string{"Authorization", "Bearer " + opts.Token}
	}
	api, ctx := r.apiAs(auth...), t.Context()
	trash := func(id string) string {
		t.Helper()
		a, err := api.Delete(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return a.TrashID
	}
	var leaf, user, cwd string
	all, _, _ := r.cat.List(context.Background(), ListQuery{})
	for _, m := range all {
		first := m.FirstMessage
		switch {
		case strings.HasPrefix(first, "Add a dark theme"):
			f.id, cwd = m.Key, m.Cwd
		case strings.HasPrefix(first, "Summarize README"):
			f.doomed = m.Key
		case strings.HasPrefix(first, "Read ideas.md"):
			f.trash = trash(m.Key)
		case strings.HasPrefix(first, "The due-date") && m.ParentPath != "":
			f.trash2 = trash(m.Key)
		}
	}
	d, err := api.Session(ctx, f.id)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range d.Tree {
		leaf = n.ID
		if n.Role == "user" && user == "" {
			user = leaf
		}
	}
	if f.id == "" || f.doomed == "" || f.trash == "" || f.trash2 == "" || user == "" {
		t.Fatalf("demo sessions changed: %+v", f)
	}
	f.bodies = map[string]string{
		"POST /api/signout":                         `{}`,
		"POST /api/sessions/{id}/rename":            `{"name":"renamed"}`,
		"POST /api/sessions/{id}/label":             `{"entryId":"` + leaf + `","label":"x"}`,
		"POST /api/sessions/{id}/repair":            `{}`,
		"DELETE /api/sessions/{id}":                 `{}`,
		"POST /api/trash/{trashId}/restore":         `{}`,
		"DELETE /api/trash/{trashId}":               `{}`,
		"POST /api/sessions/{id}/fork":              `{"entryId":"` + user + `"}`,
		"POST /api/sessions/{id}/clone":             `{}`,
		"POST /api/sessions":                        `{"cwd":"` + cwd + `","message":"hi"}`,
		"POST /api/sessions/{id}/commands":          `{"type":"prompt","message":"hi"}`,
		"PUT /api/models-config":                    `{"config":{"providers":{}}}`,
		"POST /api/trust":                           `{"cwd":"` + cwd + `"}`,
		"POST /api/demo/leave":                      `{}`,
		"PUT /api/config/settings":                  `{"changes":[{"key":"steeringMode","value":"all"}]}`,
		"PUT /api/config/auth/{provider}":           `{"key":"sk-guard-test-key"}`,
		"DELETE /api/config/auth/{provider}":        `{}`,
		"POST /api/config/test":                     `{"provider":"fake","modelId":"fake-model"}`,
		"PUT /api/config/resources":                 `{"cwd":"` + cwd + `","type":"skills","path":"` + cwd + `/skill","enabled":false}`,
		"PUT /api/config/mcp":                       `{"cwd":"` + cwd + `","scope":"user","name":"guard","enabled":false}`,
		"POST /api/config/mcp/piweb":                `{"cwd":"` + cwd + `"}`,
		"POST /api/config/packages":                 `{"cwd":"` + cwd + `","action":"install","source":"npm:guard-test"}`,
		"PUT /api/prefs":                            `{"modelTitles":false}`,
		"POST /api/config/signin/{provider}":        `{}`,
		"POST /api/config/signin/{provider}/answer": `{"text":"code#state"}`,
		"DELETE /api/config/signin/{provider}":      `{}`,
		"POST /api/push/subscribe":                  `{"endpoint":"https://push.example/x","keys":{"p256dh":"k","auth":"a"}}`,
		"POST /api/push/unsubscribe":                `{"endpoint":"https://push.example/x"}`,
		"POST /api/attention/read":                  `{"ids":["` + f.id + `"]}`,
		"POST /api/attention/mute":                  `{"id":"` + f.id + `","muted":true}`,
		"POST /api/order":                           `{"ids":["` + f.id + `"],"pinned":true}`,
		"POST /api/export":                          `{"ids":["` + f.id + `"]}`,
	}
	// An MCP server for PUT /api/config/mcp to switch.
	testkit.WriteFile(t, filepath.Join(r.srv.agentDir, "mcp.json"), `{"mcpServers":{"guard":{"command":"guard"}}}`)
	// The session's folder as a git repository, for the worktree routes.
	pitest.Git(t, cwd, "init", "-q", "-b", "main")
	pitest.Git(t, cwd, "commit", "-q", "--allow-empty", "-m", "start")
	wt := filepath.Join(filepath.Dir(cwd), "guard-worktree")
	f.bodies["POST /api/sessions/{id}/worktrees"] = `{"folder":"guard-worktree","branch":"guard"}`
	f.bodies["POST /api/sessions/{id}/worktrees/remove"] = `{"path":"` + wt + `"}`
	// And for the git actions: a file to stage and unstage, one to
	// discard, one staged to commit.
	pitest.Git(t, cwd, "config", "user.name", "Guard")
	pitest.Git(t, cwd, "config", "user.email", "guard@example.com")
	for _, n := range []string{"guard-a.txt", "guard-b.txt", "guard-c.txt"} {
		os.WriteFile(filepath.Join(cwd, n), []byte(n), 0o644)
	}
	pitest.Git(t, cwd, "add", "guard-c.txt")
	f.bodies["POST /api/sessions/{id}/git/stage"] = `{"paths":["guard-a.txt"]}`
	f.bodies["POST /api/sessions/{id}/git/unstage"] = `{"paths":["guard-a.txt"]}`
	f.bodies["POST /api/sessions/{id}/git/discard"] = `{"paths":["guard-b.txt"],"untracked":true}`
	f.bodies["POST /api/sessions/{id}/git/commits"] = `{"message":"guard"}`
	f.bodies["POST /api/sessions/{id}/terminals"] = `{"cols":80,"rows":24}`
	f.bodies["DELETE /api/sessions/{id}/terminals/{tid}"] = `{}`
	f.bodies["POST /api/sessions/{id}/upload"] = "hi" // raw bytes; the folder and name are in the query (url)
	term, err := api.StartTerminal(ctx, f.id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.tid = term.ID
	sh, err := api.Share(ctx, apitype.ShareRequest{Session: f.id})
	if err != nil {
		t.Fatal(err)
	}
	f.share = sh.ID
	f.bodies["POST /api/shares"] = `{"session":"` + f.id + `"}`
	f.bodies["DELETE /api/shares/{shareId}"] = `{}`
	sid := openStream(t, api)
	f.bodies["POST /api/stream/subscribe"] = `{"stream":"` + sid + `","topic":"index"}`
	f.bodies["POST /api/stream/unsubscribe"] = `{"stream":"` + sid + `","topic":"index"}`
	return f
}

// url fills in a route's path parameters.
func (f *guardFixture) url(rt route) string {
	id := f.id
	if strings.Contains(rt.path, "{tid}") {
		return strings.NewReplacer("{id}", f.id, "{tid}", f.tid).Replace(rt.path)
	}
	if rt.method == "DELETE" {
		id = f.doomed
	}
	p := strings.NewReplacer("{id}", id, "{provider}", "openai", "{shareId}", f.share).Replace(rt.path)
	if strings.HasSuffix(p, "/upload") {
		p += "?path=&name=guard-upload.txt&overwrite=1"
	}
	if rt.method == "DELETE" && strings.Contains(p, "{trashId}") {
		return strings.ReplaceAll(p, "{trashId}", f.trash2)
	}
	return strings.ReplaceAll(p, "{trashId}", f.trash)
}

// send makes a request with exactly the headers given (Host is set as the
// request's host), without adding a Content-Type.
func (f *guardFixture) send(t *testing.T, rt route, body string, hdr ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(rt.method, f.r.ts.URL+f.url(rt), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	client := *f.r.ts.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// SSE routes answer 200 and stream; a refusal is a short JSON body.
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, b
}

// treeDigest hashes every file under root, to prove a refused request
// changed nothing on disk.
func treeDigest(t *testing.T, root string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		out[p] = sha256.Sum256(b)
		return nil
	})
	return out
}

// TestGuardEveryMutation: every state-changing route of routes.go refuses
// a cross-site request (by Origin or by fetch metadata), a request that is
// not application/json (what an HTML form can send) and a forged Host,
// before its handler runs: nothing on disk changes. The same requests with
// this server's own Origin get through the guard.
func TestGuardEveryMutation(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	f := newGuardFixture(t, Options{}, app.Config{Terminals: testTerminals(t), Push: testPush(t)})
	const js = "application/json"
	refusals := []struct {
		name   string
		hdr    []string
		status int
	}{
		{"cross-origin", []string{"Content-Type", js, "Origin", "http://evil.example"}, 403},
		{"opaque origin", []string{"Content-Type", js, "Origin", "null"}, 403},
		{"other port", []string{"Content-Type", js, "Origin", "http://127.0.0.1:1"}, 403},
		{"cross-site fetch", []string{"Content-Type", js, "Sec-Fetch-Site", "cross-site"}, 403},
		{"same-site fetch", []string{"Content-Type", js, "Sec-Fetch-Site", "same-site"}, 403},
		{"forged Host", []string{"Content-Type", js, "Host", "rebind.example"}, 403},
		{"no content type", nil, 415},
		{"form", []string{"Content-Type", "application/x-www-form-urlencoded"}, 415},
		{"multipart", []string{"Content-Type", "multipart/form-data; boundary=x"}, 415},
		{"text/plain", []string{"Content-Type", "text/plain"}, 415},
	}
	before := treeDigest(t, f.r.d.Root)
	var mutating []route
	for _, rt := range apiRoutes(t) {
		if !rt.mutating() {
			continue
		}
		mutating = append(mutating, rt)
		body, known := f.bodies[rt.String()]
		if !known {
			t.Errorf("%s: no valid body in the test's table; add one", rt)
			continue
		}
		for _, c := range refusals {
			status, b := f.send(t, rt, body, c.hdr...)
			if status != c.status || !strings.Contains(string(b), `"error"`) {
				t.Errorf("%s, %s: status %d, want %d: %s", rt, c.name, status, c.status, b)
			}
		}
	}
	if diff := cmp.Diff(before, treeDigest(t, f.r.d.Root)); diff != "" {
		t.Errorf("refused requests changed files:\n%s", diff)
	}
	if len(mutating) < 9 {
		t.Fatalf("only %d state-changing routes found", len(mutating))
	}
	// The app's own requests pass the guard (pi is missing, hence 503).
	for _, rt := range mutating {
		origin := f.r.ts.URL
		ct := js + "; charset=utf-8"
		if strings.HasSuffix(rt.path, "/upload") {
			ct = "application/octet-stream" // the one route that takes raw bytes
		}
		status, b := f.send(t, rt, f.bodies[rt.String()], "Content-Type", ct, "Origin", origin,
			"Sec-Fetch-Site", "same-origin")
		if status != 200 && status != 503 {
			t.Errorf("%s from the app: status %d: %s", rt, status, b)
		}
	}
}

// shareStatus is what a share link's route answers without its token
// (the fixture's path has none), whatever the credentials; 0 for the
// other routes.
func shareStatus(rt route) int {
	switch {
	case rt.path == "/share/live.js":
		return 200
	case strings.HasPrefix(rt.path, "/share/"):
		return 404
	}
	return 0
}

// TestGuardEveryRoute: every route, reading ones included, refuses a
// forged Host (DNS rebinding), a request another site's page made, and,
// when sign-in is required, a request without credentials or with a wrong
// token. The web app and a typed address still reach the API.
func TestGuardEveryRoute(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	const token = "right-token"
	f := newGuardFixture(t, Options{Token: token}, app.Config{Terminals: testTerminals(t), Push: testPush(t)})
	for _, rt := range apiRoutes(t) {
		body := f.bodies[rt.String()]
		hdr := []string{"Content-Type", "application/json"}
		cases := []struct {
			name   string
			hdr    []string
			status int
		}{
			{"forged Host", append(hdr, "Authorization", "Bearer "+token, "Host", "evil.example:30141"), 403},
			{"no token", hdr, 401},
			{"wrong token", append(hdr, "Authorization", "Bearer wrong"), 401},
			{"wrong cookie", append(hdr, "Cookie", f.r.srv.auth.cookie+"=abc.def"), 401},
			{"cross-site page", append(hdr, "Authorization", "Bearer "+token, "Sec-Fetch-Site", "cross-site"), 403},
			{"same-site page", append(hdr, "Authorization", "Bearer "+token, "Sec-Fetch-Site", "same-site"), 403},
		}
		for _, c := range cases {
			if c.status == 403 && strings.Contains(c.name, "site") && !strings.HasPrefix(rt.path, "/api/") {
				continue // a sign-in link may come from anywhere
			}
			f.r.srv.auth.throttle.Reset() // stay under the limit of failures
			status, b := f.send(t, rt, body, c.hdr...)
			if want := shareStatus(rt); want != 0 && c.status == 401 {
				c.status = want // a share link's routes check their own token (shares_test.go)
			}
			if status != c.status {
				t.Errorf("%s, %s: status %d, want %d: %s", rt, c.name, status, c.status, b)
			}
		}
	}
	for _, site := range []string{"same-origin", "none"} {
		if _, err := f.r.apiAs("Authorization", "Bearer "+token, "Sec-Fetch-Site", site).Sessions(t.Context(), client.ListOptions{}); err != nil {
			t.Errorf("Sec-Fetch-Site %s: %v", site, err)
		}
	}
	// A link to the app or a sign-in link may come from another site.
	if _, _, err := f.r.apiAs("Authorization", "Bearer "+token, "Sec-Fetch-Site", "cross-site").Raw(t.Context(), "GET", "/", nil); err != nil {
		t.Errorf("the app's page from a link on another site: %v", err)
	}
	if status, _ := f.send(t, route{"GET", "/auth?token=" + token}, "", "Sec-Fetch-Site", "cross-site"); status != 303 {
		t.Errorf("a sign-in link from another site: %d", status)
	}
}
