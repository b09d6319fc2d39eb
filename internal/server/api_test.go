package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"piweb/internal/piconfig"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/cwdfs"
	"piweb/internal/session"
)

func TestListSessions(t *testing.T) {
	r := newRig(t, Options{})
	out := r.json("GET", "/api/sessions", nil, 200)
	list := out["sessions"].([]any)
	if len(list) != len(r.d.Sessions) || int(out["total"].(float64)) != len(list) {
		t.Fatalf("%d sessions, total %v, want %d", len(list), out["total"], len(r.d.Sessions))
	}
	keys := []string{"id", "path", "cwd", "name", "created", "modified", "messageCount", "firstMessage",
		"parentSessionId", "size", "running"}
	for _, it := range list {
		m := it.(map[string]any)
		for _, k := range keys {
			if _, has := m[k]; !has {
				t.Errorf("session item without %s: %v", k, m)
			}
		}
	}
	// Newest first by default, and the same order pi's listAll gives.
	var ids []string
	for _, it := range list {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	var want []string
	for _, in := range session.ListAll(r.d.AgentDir) {
		var id string
		json.Unmarshal(in.ID, &id)
		want = append(want, id)
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("order differs from pi's listing (-pi +piweb):\n%s", diff)
	}
	// Paging, sorting and filters.
	page := r.json("GET", "/api/sessions?sort=created&order=asc&limit=2&offset=1", nil, 200)["sessions"].([]any)
	if len(page) != 2 {
		t.Fatalf("page of %d", len(page))
	}
	proj := r.find("Dark theme")["cwd"].(string)
	for _, it := range r.json("GET", "/api/sessions?project="+proj, nil, 200)["sessions"].([]any) {
		if it.(map[string]any)["cwd"] != proj {
			t.Errorf("project filter let through %v", it)
		}
	}
	hits := r.json("GET", "/api/sessions?q=PREFERS-COLOR", nil, 200)["sessions"].([]any)
	if len(hits) == 0 {
		t.Errorf("text filter found nothing")
	}
}

func TestGetSession(t *testing.T) {
	r := newRig(t, Options{})
	flaky := r.find("Fix the flaky")
	out := r.json("GET", "/api/sessions/"+flaky["id"].(string), nil, 200)
	tree := out["tree"].([]any)
	sess, _ := session.ReadFile(flaky["path"].(string))
	if len(tree) != len(sess.Entries) {
		t.Errorf("tree has %d nodes, file %d entries", len(tree), len(sess.Entries))
	}
	if out["leaf"] != sess.Leaf().ID {
		t.Errorf("leaf %v, want %s", out["leaf"], sess.Leaf().ID)
	}
	if h := out["header"].(map[string]any); h["type"] != "session" || h["id"] != flaky["id"] || h["cwd"] != flaky["cwd"] {
		t.Errorf("header %v", h)
	}
	if it := out["session"].(map[string]any); it["id"] != flaky["id"] || it["messageCount"] != flaky["messageCount"] {
		t.Errorf("metadata %v, listed %v", it, flaky)
	}
	labels := out["labels"].(map[string]any)
	if len(labels) != 1 {
		t.Errorf("labels %v", labels)
	}
	lin := out["lineage"].(map[string]any)
	if kids := lin["children"].([]any); len(kids) != 1 {
		t.Fatalf("children %v", kids)
	}
	child := lin["children"].([]any)[0].(map[string]any)
	if child["parentSessionId"] != flaky["id"] {
		t.Errorf("fork's parentSessionId %v", child["parentSessionId"])
	}
	fork := r.json("GET", "/api/sessions/"+child["id"].(string), nil, 200)
	if p := fork["lineage"].(map[string]any)["parent"].(map[string]any); p["id"] != flaky["id"] {
		t.Errorf("fork's parent %v", p["id"])
	}
}

func TestContextPaging(t *testing.T) {
	r := newRig(t, Options{})
	s := r.find("Fix the flaky")
	base := "/api/sessions/" + s["id"].(string) + "/context"
	all := r.json("GET", base, nil, 200)
	sess, _ := session.ReadFile(s["path"].(string))
	c := sess.Context("")
	msgs := all["messages"].([]any)
	if len(msgs) != len(c.Messages) || all["hasMore"] != false || all["before"] != nil {
		t.Fatalf("whole context: %d messages (want %d), hasMore %v", len(msgs), len(c.Messages), all["hasMore"])
	}
	// Messages are pi's objects unchanged.
	raw, _ := json.Marshal(msgs[0])
	var want any
	json.Unmarshal(c.Messages[0], &want)
	wantRaw, _ := json.Marshal(want)
	if string(raw) != string(wantRaw) {
		t.Errorf("message changed:\n%s\n%s", raw, wantRaw)
	}
	// Pages from the end backwards cover everything once.
	var ids []any
	before := ""
	for range 10 {
		q := base + "?limit=3"
		if before != "" {
			q += "&before=" + before
		}
		p := r.json("GET", q, nil, 200)
		ids = append(p["entryIds"].([]any), ids...)
		if p["before"] == nil {
			break
		}
		before = p["before"].(string)
	}
	if diff := cmp.Diff(all["entryIds"], ids); diff != "" {
		t.Errorf("paged ids differ:\n%s", diff)
	}
	r.json("GET", base+"?leaf=nope", nil, 404)
	r.json("GET", base+"?before=x", nil, 400)
}

func TestSearch(t *testing.T) {
	r := newRig(t, Options{})
	out := r.json("GET", "/api/search?q=toggle", nil, 200)
	hits := out["hits"].([]any)
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	onBranch := map[bool]int{}
	for _, h := range hits {
		m := h.(map[string]any)
		onBranch[m["onCurrentBranch"].(bool)]++
		sess, _ := session.ReadFile(m["session"].(map[string]any)["path"].(string))
		if e := sess.ByID(m["entryId"].(string)); e == nil || sess.Header == nil || m["sessionId"] != m["session"].(map[string]any)["id"] {
			t.Errorf("hit %v: no such entry in its session", m)
		}
		snip := m["snippet"].(string)
		hl := m["highlights"].([]any)[0].([]any)
		if got := strings.ToLower(snip[int(hl[0].(float64)):int(hl[1].(float64))]); got != "toggle" {
			t.Errorf("highlight %q in %q", got, snip)
		}
	}
	// "A toggle" is on the abandoned branch of the dark-theme session.
	if onBranch[false] == 0 {
		t.Errorf("no off-branch hit: %v", onBranch)
	}
	if out["more"] != false || int(out["total"].(float64)) != len(hits) {
		t.Errorf("all hits: total %v more %v, want %d and false", out["total"], out["more"], len(hits))
	}
	// A limit below the number of matches says there are more: the count
	// is "at least", never presented as the whole.
	one := r.json("GET", "/api/search?q=toggle&limit=1", nil, 200)
	if len(one["hits"].([]any)) != 1 || one["total"] != 1.0 || one["more"] != true {
		t.Errorf("limit 1 of %d: %d hits, total %v, more %v", len(hits), len(one["hits"].([]any)), one["total"], one["more"])
	}
	r.json("GET", "/api/search", nil, 400)
}

func TestRenameLabel(t *testing.T) {
	r := newRig(t, Options{})
	s := r.find("Dark theme")
	id := s["id"].(string)
	before, _ := os.ReadFile(s["path"].(string))
	out := r.json("POST", "/api/sessions/"+id+"/rename", map[string]string{"name": "  Dark mode  "}, 200)
	if got := out["session"].(map[string]any)["name"]; got != "Dark mode" {
		t.Errorf("name %v", got)
	}
	after, _ := os.ReadFile(s["path"].(string))
	if !strings.HasPrefix(string(after), string(before)) {
		t.Error("rename did not append")
	}
	leaf := r.json("GET", "/api/sessions/"+id, nil, 200)["tree"].([]any)[2].(map[string]any)["id"].(string)
	out = r.json("POST", "/api/sessions/"+id+"/label", map[string]any{"entryId": leaf, "label": "choice"}, 200)
	if out["labels"].(map[string]any)[leaf] != "choice" {
		t.Errorf("labels %v", out["labels"])
	}
	out = r.json("POST", "/api/sessions/"+id+"/label", map[string]any{"entryId": leaf, "label": nil}, 200)
	if _, has := out["labels"].(map[string]any)[leaf]; has {
		t.Errorf("label not cleared: %v", out["labels"])
	}
	r.json("POST", "/api/sessions/"+id+"/label", map[string]any{"entryId": "nope", "label": "x"}, 404)
	r.json("POST", "/api/sessions/"+id+"/rename", map[string]string{"name": " "}, 400)
}

// TestDeleteRestore deletes a session into the trash and restores it,
// with the trash on the session's file system and on another one (a
// project's own session folder may be on another disk than the agent dir).
func TestDeleteRestore(t *testing.T) {
	t.Run("same file system", func(t *testing.T) { testDeleteRestore(t, newRig(t, Options{})) })
	t.Run("trash on another file system", func(t *testing.T) {
		r := newRig(t, Options{})
		elsewhere := otherFS(t, r.d.AgentDir)
		if err := os.Symlink(elsewhere, filepath.Join(r.d.AgentDir, "trash")); err != nil {
			t.Fatal(err)
		}
		testDeleteRestore(t, r)
	})
}

// otherFS returns a folder on another file system than dir (tmpfs under
// /dev/shm), or skips when there is none.
func otherFS(t *testing.T, dir string) string {
	t.Helper()
	other, err := os.MkdirTemp("/dev/shm", "piweb-trash-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	var a, b syscall.Stat_t
	if syscall.Stat(other, &a) != nil || syscall.Stat(dir, &b) != nil || a.Dev == b.Dev {
		t.Skip("/dev/shm is on the agent dir's file system")
	}
	return other
}

func testDeleteRestore(t *testing.T, r *rig) {
	flaky := r.find("Fix the flaky")
	id, path := flaky["id"].(string), flaky["path"].(string)
	before, _ := os.ReadFile(path)
	child := r.json("GET", "/api/sessions/"+id, nil, 200)["lineage"].(map[string]any)["children"].([]any)[0].(map[string]any)
	out := r.json("DELETE", "/api/sessions/"+id, map[string]any{}, 200) // as the web app sends it
	trashID, _ := out["trashId"].(string)
	if trashID == "" || out["session"].(map[string]any)["id"] != id {
		t.Fatalf("delete answered %v, want trashId and the session", out)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file still there: %v", err)
	}
	r.json("GET", "/api/sessions/"+id, nil, 404)
	// The fork now points at the deleted session's parent (none).
	c := r.json("GET", "/api/sessions/"+child["id"].(string), nil, 200)["session"].(map[string]any)
	if c["parentSessionPath"] != nil {
		t.Errorf("child still points at %v", c["parentSessionPath"])
	}
	items := r.json("GET", "/api/trash", nil, 200)["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["trashId"] != trashID {
		t.Fatalf("trash %v", items)
	}
	restored := r.json("POST", "/api/trash/"+trashID+"/restore", map[string]any{}, 200)
	if restored["session"].(map[string]any)["id"] != id {
		t.Errorf("restore answered %v", restored)
	}
	if after, err := os.ReadFile(path); err != nil || string(after) != string(before) {
		t.Fatalf("not restored as it was (%v): %d bytes, had %d", err, len(after), len(before))
	}
	c = r.json("GET", "/api/sessions/"+child["id"].(string), nil, 200)["session"].(map[string]any)
	if c["parentSessionId"] != id {
		t.Errorf("child not re-pointed back: %v", c["parentSessionPath"])
	}
	r.json("POST", "/api/trash/"+trashID+"/restore", map[string]any{}, 404)
	r.json("POST", "/api/trash/..%2F..%2Fx/restore", map[string]any{}, 404)
}

func TestForkClone(t *testing.T) {
	r := newRig(t, Options{})
	s := r.find("Dark theme")
	id := s["id"].(string)
	var userIDs []string
	for _, n := range r.json("GET", "/api/sessions/"+id, nil, 200)["tree"].([]any) {
		if m := n.(map[string]any); m["role"] == "user" {
			userIDs = append(userIDs, m["id"].(string))
		}
	}
	out := r.json("POST", "/api/sessions/"+id+"/fork", map[string]string{"entryId": userIDs[1]}, 200)
	if out["text"] != "A toggle, please." {
		t.Errorf("fork text %v", out["text"])
	}
	f := r.json("GET", "/api/sessions/"+out["id"].(string), nil, 200)
	if f["session"].(map[string]any)["parentSessionId"] != id {
		t.Errorf("fork parent %v", f["session"])
	}
	if n := len(f["tree"].([]any)); n != 4 { // model, thinking, user, assistant
		t.Errorf("fork has %d entries", n)
	}
	out = r.json("POST", "/api/sessions/"+id+"/clone", map[string]any{}, 200)
	c := r.json("GET", "/api/sessions/"+out["id"].(string)+"/context", nil, 200)
	orig := r.json("GET", "/api/sessions/"+id+"/context", nil, 200)
	if diff := cmp.Diff(orig["messages"], c["messages"]); diff != "" {
		t.Errorf("clone context differs:\n%s", diff)
	}
	r.json("POST", "/api/sessions/"+id+"/fork", map[string]string{"entryId": "nope"}, 404)
}

func TestExport(t *testing.T) {
	r := newRig(t, Options{})
	s := r.find("Fix the flaky")
	for format, want := range map[string]string{"jsonl": `"type":"session"`, "md": "# Fix the flaky due-date test", "html": "<h1>Fix the flaky due-date test</h1>"} {
		resp := r.do("GET", "/api/sessions/"+s["id"].(string)+"/export?format="+format, nil)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("%s: status %d, body %.200s", format, resp.StatusCode, b)
		}
		if !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") {
			t.Errorf("%s: not an attachment", format)
		}
		if format == "html" && strings.Contains(string(b), "<script") {
			t.Errorf("html export has a script")
		}
	}
	r.json("GET", "/api/sessions/"+s["id"].(string)+"/export?format=pdf", nil, 400)
	// JSONL is the file byte for byte; the branch alone is asked for.
	file, _ := os.ReadFile(s["path"].(string))
	resp := r.do("GET", "/api/sessions/"+s["id"].(string)+"/export?format=jsonl", nil)
	if b, _ := io.ReadAll(resp.Body); string(b) != string(file) {
		t.Errorf("JSONL export is not the file (%d bytes, file %d)", len(b), len(file))
	}
	resp = r.do("GET", "/api/sessions/"+s["id"].(string)+"/export?format=jsonl&scope=branch", nil)
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || !strings.Contains(string(b), `"type":"session"`) ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), "-branch.jsonl") {
		t.Errorf("branch export: %d %s %.100s", resp.StatusCode, resp.Header.Get("Content-Disposition"), b)
	}
}

func TestFiles(t *testing.T) {
	r := newRig(t, Options{})
	s := r.find("Dark theme")
	base := "/api/sessions/" + s["id"].(string)
	out := r.json("GET", base+"/files", nil, 200)
	var names []string
	for _, e := range out["entries"].([]any) {
		names = append(names, e.(map[string]any)["name"].(string))
	}
	if diff := cmp.Diff([]string{"src", "tests", "README.md", "logo.svg", "package.json"}, names); diff != "" {
		t.Errorf("listing:\n%s", diff)
	}
	resp := r.do("GET", base+"/file?path=src/due.js", nil)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("content type %s", ct)
	}
	if ct := r.do("GET", base+"/file?path=logo.svg", nil).Header.Get("Content-Type"); ct != "image/svg+xml" {
		t.Errorf("svg content type %s", ct)
	}
	big := strings.Repeat("x", cwdfs.MaxFileRead+1)
	os.WriteFile(s["cwd"].(string)+"/big.txt", []byte(big), 0o644)
	r.json("GET", base+"/file?path=big.txt", nil, 413)
	r.json("GET", base+"/file?path=missing.txt", nil, 404)
	crowd := filepath.Join(s["cwd"].(string), "crowd")
	os.Mkdir(crowd, 0o755)
	for i := range cwdfs.MaxDirEntries + 1 {
		os.WriteFile(filepath.Join(crowd, strconv.Itoa(i)), nil, 0o644)
	}
	if code := errCode(t, r.json("GET", base+"/files?path=crowd", nil, 413)); code != "too_large" {
		t.Errorf("crowded directory: %s", code)
	}
}

func TestModelsConfig(t *testing.T) {
	r := newRig(t, Options{})
	cfg := map[string]any{"providers": map[string]any{"acme": map[string]any{
		"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "apiKey": "sk-literal",
		"models": []any{map[string]any{"id": "m1", "contextWindow": 1000}}}}}
	r.json("PUT", "/api/models-config", map[string]any{"config": cfg}, 200)
	got := r.json("GET", "/api/models-config", nil, 200)
	p := got["config"].(map[string]any)["providers"].(map[string]any)["acme"].(map[string]any)
	if p["apiKey"] != piconfig.MaskedKey {
		t.Errorf("key not masked: %v", p["apiKey"])
	}
	// Writing the masked value back keeps the stored key.
	r.json("PUT", "/api/models-config", map[string]any{"config": got["config"]}, 200)
	b, _ := os.ReadFile(r.d.AgentDir + "/models.json")
	if !strings.Contains(string(b), "sk-literal") {
		t.Errorf("stored key lost: %s", b)
	}
	bad := map[string]any{"providers": map[string]any{"acme": map[string]any{"models": []any{map[string]any{"id": ""}}}}}
	r.json("PUT", "/api/models-config", map[string]any{"config": bad}, 400)
	models := r.json("GET", "/api/models", nil, 200)["models"].([]any)
	if len(models) != 1 {
		t.Errorf("models without pi: %v", models)
	}
}

func TestAgentWithoutPi(t *testing.T) {
	r := newRig(t, Options{})
	s := r.find("Dark theme")
	code := errCode(t, r.json("POST", "/api/sessions/"+s["id"].(string)+"/commands", map[string]string{"type": "prompt", "message": "hi"}, 503))
	if code != "pi_missing" {
		t.Errorf("code %s", code)
	}
	r.json("POST", "/api/sessions/"+s["id"].(string)+"/commands", map[string]string{"type": "rm -rf"}, 400)
	r.json("POST", "/api/sessions", map[string]string{"cwd": "relative", "message": "hi"}, 400)
	leaf := r.json("GET", "/api/sessions/"+s["id"].(string), nil, 200)["leaf"].(string)
	stale := map[string]string{"type": "prompt", "message": "hi", "expectLeaf": "00000000"}
	if code := errCode(t, r.json("POST", "/api/sessions/"+s["id"].(string)+"/commands", stale, 409)); code != "stale" {
		t.Errorf("stale leaf: %s", code)
	}
	fresh := map[string]string{"type": "prompt", "message": "hi", "expectLeaf": leaf}
	r.json("POST", "/api/sessions/"+s["id"].(string)+"/commands", fresh, 503)
	st := r.json("GET", "/api/status", nil, 200)
	if st["pi"].(map[string]any)["found"] != false {
		t.Errorf("status %v", st)
	}
}

func TestUsage(t *testing.T) {
	r := newRig(t, Options{})
	for _, by := range []string{"day", "model", "project"} {
		rows := r.json("GET", "/api/usage?by="+by, nil, 200)["rows"].([]any)
		if len(rows) == 0 {
			t.Errorf("%s: no rows", by)
		}
	}
	rows := r.json("GET", "/api/usage?by=model", nil, 200)["rows"].([]any)
	if k := rows[0].(map[string]any)["key"]; k != "fake/fake-model" {
		t.Errorf("model key %v", k)
	}
}

// TestDeleteRepointsEveryFolder: deleting a session in the middle of a fork
// chain re-points its children to its own parent, whichever project folder
// they are in, keeping a backup of each rewritten file; restoring points
// them back; a restore onto a path taken meanwhile is 409 busy.
func TestDeleteRepointsEveryFolder(t *testing.T) {
	r := newRig(t, Options{})
	flaky := r.find("Fix the flaky")
	mid := r.json("GET", "/api/sessions/"+flaky["id"].(string), nil, 200)["lineage"].(map[string]any)["children"].([]any)[0].(map[string]any)
	midPath := mid["path"].(string)
	notes := r.find("Read ideas.md")
	kids := map[string]string{ // id → folder
		"01a23b29-0000-7000-8000-000000000001": filepath.Dir(midPath),
		"01a23b29-0000-7000-8000-000000000002": filepath.Dir(notes["path"].(string)),
	}
	paths := map[string]string{}
	for id, dir := range kids {
		header := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":%q,"parentSession":%q}`,
			id, notes["cwd"], midPath)
		body := `{"type":"message","id":"aa000001","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"grandchild","timestamp":1}}`
		p, err := session.NewFile(dir, []byte(header+"\n"+body+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		paths[id] = p
	}
	r.sync()
	parentOf := func(id string) any {
		return r.json("GET", "/api/sessions/"+id, nil, 200)["session"].(map[string]any)["parentSessionPath"]
	}
	trashID := r.json("DELETE", "/api/sessions/"+mid["id"].(string), map[string]any{}, 200)["trashId"].(string)
	for id, p := range paths {
		if got := parentOf(id); got != flaky["path"] {
			t.Errorf("%s: parent %v after delete, want %v", filepath.Base(filepath.Dir(p)), got, flaky["path"])
		}
		data, _ := os.ReadFile(p)
		if !strings.HasSuffix(string(data), `"content":"grandchild","timestamp":1}}`+"\n") {
			t.Errorf("rewrite changed the entries: %s", data)
		}
		if backups, _ := filepath.Glob(p + ".piweb-backup-*"); len(backups) != 1 {
			t.Errorf("%d backups of %s", len(backups), filepath.Base(p))
		}
	}
	r.json("POST", "/api/trash/"+trashID+"/restore", map[string]any{}, 200)
	for id := range paths {
		if got := parentOf(id); got != midPath {
			t.Errorf("parent %v after restore, want %v", got, midPath)
		}
	}
	// Something new at the old path: the restore refuses to overwrite it.
	trashID = r.json("DELETE", "/api/sessions/"+mid["id"].(string), map[string]any{}, 200)["trashId"].(string)
	os.WriteFile(midPath, []byte("someone else's\n"), 0o644)
	if code := errCode(t, r.json("POST", "/api/trash/"+trashID+"/restore", map[string]any{}, 409)); code != "busy" {
		t.Errorf("restore over a file: %s", code)
	}
	if b, _ := os.ReadFile(midPath); string(b) != "someone else's\n" {
		t.Errorf("the file at the old path was replaced: %s", b)
	}
	if items := r.json("GET", "/api/trash", nil, 200)["items"].([]any); len(items) != 1 {
		t.Errorf("trash after a refused restore: %v", items)
	}
}

// TestDeleteFailureKeepsChildren: when the session cannot be moved into
// the trash, delete fails and its children point at it again, as before.
func TestDeleteFailureKeepsChildren(t *testing.T) {
	r := newRig(t, Options{})
	r.srv.store.Fault = func(step string) error {
		if step == session.StepDeleteMove {
			return errors.New("disk on fire")
		}
		return nil
	}
	flaky := r.find("Fix the flaky")
	id := flaky["id"].(string)
	child := r.json("GET", "/api/sessions/"+id, nil, 200)["lineage"].(map[string]any)["children"].([]any)[0].(map[string]any)
	childBefore, _ := os.ReadFile(child["path"].(string))
	if code := errCode(t, r.json("DELETE", "/api/sessions/"+id, map[string]any{}, 500)); code != "internal" {
		t.Errorf("code %s", code)
	}
	if _, err := os.Stat(flaky["path"].(string)); err != nil {
		t.Errorf("the session is gone: %v", err)
	}
	c := r.json("GET", "/api/sessions/"+child["id"].(string), nil, 200)["session"].(map[string]any)
	if c["parentSessionId"] != id {
		t.Errorf("child points at %v after the failed delete", c["parentSessionPath"])
	}
	if after, _ := os.ReadFile(child["path"].(string)); string(after) != string(childBefore) {
		t.Errorf("child changed:\n%s\nwas\n%s", after, childBefore)
	}
	if items := r.json("GET", "/api/trash", nil, 200)["items"].([]any); len(items) != 0 {
		t.Errorf("trash %v", items)
	}
}

// TestDeleteReadOnlyFolder: a delete the file system refuses (a folder the
// user may not write, a read-only mount) is a 403 that says so, not a 500;
// the session stays. (Root writes anywhere, so the refusal is injected as
// the error unlinking the file gives.)
func TestDeleteReadOnlyFolder(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EACCES, syscall.EROFS} {
		r := newRig(t, Options{})
		r.srv.store.Fault = func(step string) error {
			if step == session.StepDeleteMove {
				return &fs.PathError{Op: "unlinkat", Path: "/x", Err: errno}
			}
			return nil
		}
		s := r.find("Fix the flaky")
		out := r.json("DELETE", "/api/sessions/"+s["id"].(string), map[string]any{}, 403)
		if code := errCode(t, out); code != "forbidden" {
			t.Errorf("%v: code %s", errno, code)
		}
		if msg, _ := out["error"].(map[string]any)["message"].(string); strings.Contains(msg, "/x") || !strings.Contains(msg, "nothing was changed") {
			t.Errorf("%v: message %q", errno, msg)
		}
		if _, err := os.Stat(s["path"].(string)); err != nil {
			t.Errorf("%v: the session is gone: %v", errno, err)
		}
	}
}
