package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/client"
	"piweb/internal/cwdfs"
	"piweb/internal/piconfig"
	"piweb/pisession"
)

func TestListSessions(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	var raw struct {
		Sessions []map[string]any `json:"sessions"`
		Total    int              `json:"total"`
	}
	if err := api.Do(ctx, "GET", "/api/sessions", nil, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Sessions) != len(r.d.Sessions) || raw.Total != len(raw.Sessions) {
		t.Fatalf("%d sessions, total %v, want %d", len(raw.Sessions), raw.Total, len(r.d.Sessions))
	}
	keys := []string{"id", "path", "cwd", "name", "created", "modified", "messageCount", "firstMessage",
		"parentSessionId", "size", "running"}
	for _, m := range raw.Sessions {
		for _, k := range keys {
			if _, has := m[k]; !has {
				t.Errorf("session item without %s: %v", k, m)
			}
		}
	}
	// Newest first by default, and the same order pi's listAll gives.
	var ids []string
	for _, it := range r.items() {
		ids = append(ids, it.ID)
	}
	var want []string
	for _, in := range pisession.ListAll(r.d.AgentDir) {
		var id string
		json.Unmarshal(in.ID, &id)
		want = append(want, id)
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("order differs from pi's listing (-pi +piweb):\n%s", diff)
	}
	// Paging, sorting and filters.
	page, err := api.Sessions(ctx, client.ListOptions{Sort: "created", Asc: true, Limit: 2, Offset: 1})
	if err != nil || len(page.Sessions) != 2 {
		t.Fatalf("page of %d: %v", len(page.Sessions), err)
	}
	proj := r.item("Dark theme").Cwd
	inProj, err := api.Sessions(ctx, client.ListOptions{Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range inProj.Sessions {
		if it.Cwd != proj {
			t.Errorf("project filter let through %v", it)
		}
	}
	if hits, err := api.Sessions(ctx, client.ListOptions{Text: "PREFERS-COLOR"}); err != nil || len(hits.Sessions) == 0 {
		t.Errorf("text filter found nothing: %v", err)
	}
}

func TestGetSession(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	flaky := r.item("Fix the flaky")
	out := r.detail(flaky.ID)
	sess, _ := pisession.ReadFile(flaky.Path)
	if len(out.Tree) != len(sess.Entries) {
		t.Errorf("tree has %d nodes, file %d entries", len(out.Tree), len(sess.Entries))
	}
	if out.Leaf == nil || *out.Leaf != sess.Leaf().ID {
		t.Errorf("leaf %v, want %s", out.Leaf, sess.Leaf().ID)
	}
	var h map[string]any
	json.Unmarshal(out.Header, &h)
	if h["type"] != "session" || h["id"] != flaky.ID || h["cwd"] != flaky.Cwd {
		t.Errorf("header %v", h)
	}
	if it := out.Session; it.ID != flaky.ID || it.MessageCount != flaky.MessageCount {
		t.Errorf("metadata %v, listed %v", it, flaky)
	}
	if len(out.Labels) != 1 {
		t.Errorf("labels %v", out.Labels)
	}
	if kids := out.Lineage.Children; len(kids) != 1 {
		t.Fatalf("children %v", kids)
	}
	child := out.Lineage.Children[0]
	if child.ParentSessionID == nil || *child.ParentSessionID != flaky.ID {
		t.Errorf("fork's parentSessionId %v", child.ParentSessionID)
	}
	fork, err := api.Session(ctx, child.ID)
	if err != nil || fork.Lineage.Parent == nil || fork.Lineage.Parent.ID != flaky.ID {
		t.Errorf("fork's parent %v (%v)", fork.Lineage.Parent, err)
	}
}

// normal is raw JSON decoded, for comparing JSON values whatever their
// spacing and key order.
func normal[T ~[]byte](t *testing.T, raws []T) []any {
	t.Helper()
	out := make([]any, len(raws))
	for i, m := range raws {
		if err := json.Unmarshal(m, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestContextPaging(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	s := r.item("Fix the flaky")
	all, err := api.Context(ctx, s.ID, client.PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := pisession.ReadFile(s.Path)
	c := sess.Context("")
	if len(all.Messages) != len(c.Messages) || all.HasMore || all.Before != nil {
		t.Fatalf("whole context: %d messages (want %d), hasMore %v", len(all.Messages), len(c.Messages), all.HasMore)
	}
	// Messages are pi's objects unchanged.
	if diff := cmp.Diff(normal(t, c.Messages[:1]), normal(t, all.Messages[:1])); diff != "" {
		t.Errorf("message changed:\n%s", diff)
	}
	// Pages from the end backwards cover everything once.
	var ids []string
	before := ""
	for range 10 {
		p, err := api.Context(ctx, s.ID, client.PageOptions{Limit: 3, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(p.EntryIDs, ids...)
		if p.Before == nil {
			break
		}
		before = *p.Before
	}
	if diff := cmp.Diff(all.EntryIDs, ids); diff != "" {
		t.Errorf("paged ids differ:\n%s", diff)
	}
	_, err = api.Context(ctx, s.ID, client.PageOptions{Leaf: "nope"})
	wantErr(t, "leaf=nope", err, 404, "")
	_, err = api.Context(ctx, s.ID, client.PageOptions{Before: "x"})
	wantErr(t, "before=x", err, 400, "")
}

func TestSearch(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	out, err := api.Search(ctx, client.SearchOptions{Text: "toggle"})
	if err != nil || len(out.Hits) == 0 {
		t.Fatalf("no hits: %v", err)
	}
	onBranch := map[bool]int{}
	for _, h := range out.Hits {
		onBranch[h.OnCurrentBranch]++
		sess, _ := pisession.ReadFile(h.Session.Path)
		if e := sess.ByID(h.EntryID); e == nil || sess.Header == nil || h.SessionID != h.Session.ID {
			t.Errorf("hit %v: no such entry in its session", h)
		}
		hl := h.Highlights[0]
		if got := strings.ToLower(h.Snippet[hl[0]:hl[1]]); got != "toggle" {
			t.Errorf("highlight %q in %q", got, h.Snippet)
		}
	}
	// "A toggle" is on the abandoned branch of the dark-theme session.
	if onBranch[false] == 0 {
		t.Errorf("no off-branch hit: %v", onBranch)
	}
	if out.More || out.Total != len(out.Hits) {
		t.Errorf("all hits: total %v more %v, want %d and false", out.Total, out.More, len(out.Hits))
	}
	// A limit below the number of matches says there are more: the count
	// is "at least", never presented as the whole.
	one, err := api.Search(ctx, client.SearchOptions{Text: "toggle", Limit: 1})
	if err != nil || len(one.Hits) != 1 || one.Total != 1 || !one.More {
		t.Errorf("limit 1 of %d: %d hits, total %v, more %v (%v)", len(out.Hits), len(one.Hits), one.Total, one.More, err)
	}
	_, err = api.Search(ctx, client.SearchOptions{})
	wantErr(t, "no q", err, 400, "")
}

func TestRenameLabel(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	s := r.item("Dark theme")
	before, _ := os.ReadFile(s.Path)
	out, err := api.Rename(ctx, s.ID, "  Dark mode  ")
	if err != nil || out.Session == nil || out.Session.Name == nil || *out.Session.Name != "Dark mode" {
		t.Errorf("rename answered %+v, %v", out.Session, err)
	}
	after, _ := os.ReadFile(s.Path)
	if !strings.HasPrefix(string(after), string(before)) {
		t.Error("rename did not append")
	}
	d := r.detail(s.ID)
	leaf, choice := d.Tree[2].ID, "choice"
	labelled, err := api.Label(ctx, s.ID, leaf, &choice)
	if err != nil || labelled.Labels[leaf] != "choice" {
		t.Errorf("labels %v, %v", labelled.Labels, err)
	}
	cleared, err := api.Label(ctx, s.ID, leaf, nil)
	if _, has := cleared.Labels[leaf]; err != nil || has {
		t.Errorf("label not cleared: %v, %v", cleared.Labels, err)
	}
	x := "x"
	_, err = api.Label(ctx, s.ID, "nope", &x)
	wantErr(t, "label of no entry", err, 404, "")
	_, err = api.Rename(ctx, s.ID, " ")
	wantErr(t, "blank name", err, 400, "")
}

func TestExport(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	s := r.item("Fix the flaky")
	for format, want := range map[string]string{"jsonl": `"type":"session"`, "md": "# Fix the flaky due-date test", "html": "<h1>Fix the flaky due-date test</h1>"} {
		b, h, err := api.Export(ctx, s.ID, format, "")
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v, body %.200s", format, err, b)
		}
		if !strings.HasPrefix(h.Get("Content-Disposition"), "attachment") {
			t.Errorf("%s: not an attachment", format)
		}
		if format == "html" && strings.Contains(string(b), "<script") {
			t.Errorf("html export has a script")
		}
	}
	_, _, err := api.Export(ctx, s.ID, "pdf", "")
	wantErr(t, "pdf", err, 400, "")
	// JSONL is the file byte for byte; the branch alone is asked for.
	file, _ := os.ReadFile(s.Path)
	if b, _, _ := api.Export(ctx, s.ID, "jsonl", ""); string(b) != string(file) {
		t.Errorf("JSONL export is not the file (%d bytes, file %d)", len(b), len(file))
	}
	b, h, err := api.Export(ctx, s.ID, "jsonl", "branch")
	if err != nil || !strings.Contains(string(b), `"type":"session"`) ||
		!strings.Contains(h.Get("Content-Disposition"), "-branch.jsonl") {
		t.Errorf("branch export: %v %s %.100s", err, h.Get("Content-Disposition"), b)
	}
}

func TestFiles(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	r := newRig(t, Options{})
	s := r.item("Dark theme")
	api, ctx := r.api(), t.Context()
	out, err := api.Files(ctx, s.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range out.Entries {
		names = append(names, e.Name)
	}
	if diff := cmp.Diff([]string{"src", "tests", "README.md", "logo.svg", "package.json"}, names); diff != "" {
		t.Errorf("listing:\n%s", diff)
	}
	if _, h, err := api.File(ctx, s.ID, "src/due.js"); err != nil || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		t.Errorf("content type %s, %v", h.Get("Content-Type"), err)
	}
	if _, h, err := api.File(ctx, s.ID, "logo.svg"); err != nil || h.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("svg content type %s, %v", h.Get("Content-Type"), err)
	}
	big := strings.Repeat("x", cwdfs.MaxFileRead+1)
	os.WriteFile(s.Cwd+"/big.txt", []byte(big), 0o644)
	wantErr(t, "a big file", third(api.File(ctx, s.ID, "big.txt")), 413, "")
	wantErr(t, "a missing file", third(api.File(ctx, s.ID, "missing.txt")), 404, "")
	crowd := filepath.Join(s.Cwd, "crowd")
	os.Mkdir(crowd, 0o755)
	for i := range cwdfs.MaxDirEntries + 1 {
		os.WriteFile(filepath.Join(crowd, strconv.Itoa(i)), nil, 0o644)
	}
	wantErr(t, "a crowded directory", second(api.Files(ctx, s.ID, "crowd")), 413, "too_large")
}

func TestModelsConfig(t *testing.T) {
	r := newRig(t, Options{})
	api, ctx := r.api(), t.Context()
	put := func(cfg string) error {
		_, err := api.PutModelsConfig(ctx, apitype.ModelsConfig{Config: json.RawMessage(cfg)})
		return err
	}
	if err := put(`{"providers": {"acme": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions",
		"apiKey": "sk-literal", "models": [{"id": "m1", "contextWindow": 1000}]}}}`); err != nil {
		t.Fatal(err)
	}
	got, err := api.ModelsConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Providers map[string]struct {
			APIKey string `json:"apiKey"`
		} `json:"providers"`
	}
	if err := json.Unmarshal(got.Config, &c); err != nil || c.Providers["acme"].APIKey != piconfig.MaskedKey {
		t.Errorf("key not masked: %s (%v)", got.Config, err)
	}
	// Writing the masked value back keeps the stored key.
	if err := put(string(got.Config)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(r.d.AgentDir + "/models.json")
	if !strings.Contains(string(b), "sk-literal") {
		t.Errorf("stored key lost: %s", b)
	}
	wantErr(t, "a model without an id", put(`{"providers": {"acme": {"models": [{"id": ""}]}}}`), 400, "")
	models, err := api.Models(ctx)
	if err != nil || len(models.Models) != 1 {
		t.Errorf("models without pi: %v (%v)", models.Models, err)
	}
}

func TestAgentWithoutPi(t *testing.T) {
	r := newRig(t, Options{})
	id := r.item("Dark theme").ID
	api, ctx := r.api(), t.Context()
	command := func(cmd map[string]any) error { _, err := api.Command(ctx, id, cmd); return err }
	wantErr(t, "a prompt without pi", command(map[string]any{"type": "prompt", "message": "hi"}), 503, "pi_missing")
	wantErr(t, "an unknown command", command(map[string]any{"type": "rm -rf"}), 400, "")
	_, err := api.Create(ctx, agent.CreateRequest{Cwd: "relative", Message: "hi"})
	wantErr(t, "a relative cwd", err, 400, "")
	leaf := r.leaf(id)
	stale := map[string]any{"type": "prompt", "message": "hi", "expectLeaf": "00000000"}
	wantErr(t, "a stale leaf", command(stale), 409, "stale")
	fresh := map[string]any{"type": "prompt", "message": "hi", "expectLeaf": leaf}
	wantErr(t, "a fresh leaf without pi", command(fresh), 503, "")
	if st, err := api.Status(ctx); err != nil || st.Pi.Found {
		t.Errorf("status %+v, %v", st.Pi, err)
	}
}

func TestUsage(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	for _, by := range []string{"day", "model", "project"} {
		if u, err := api.Usage(ctx, client.UsageOptions{By: by}); err != nil || len(u.Rows) == 0 {
			t.Errorf("%s: no rows (%v)", by, err)
		}
	}
	u, err := api.Usage(ctx, client.UsageOptions{By: "model"})
	if err != nil || len(u.Rows) == 0 || u.Rows[0].Key != "fake/fake-model" {
		t.Errorf("model rows %v, %v", u.Rows, err)
	}
}
