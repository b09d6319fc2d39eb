package ops

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/broker"
	"piweb/internal/catalog"
	"piweb/internal/catalog/catalogtest"
	"piweb/internal/cwdfs"
	"piweb/internal/demo"
	"piweb/internal/gitx"
	"piweb/internal/live"
	"piweb/internal/sessionstore"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// newOps is Ops over the demo's sessions with no pi (the store writes), a
// real catalog and live topics, and one of its sessions.
func newOps(t *testing.T) (*Ops, catalog.Meta) {
	t.Helper()
	d, err := demo.Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cat := catalogtest.Open(t, catalog.Options{AgentDir: d.AgentDir, Log: testkit.Log(t), SyncFor: time.Minute})
	ag := agent.NoService{}
	store := &sessionstore.Store{AgentDir: d.AgentDir}
	cache := sessionstore.NewCache(4, 64<<20)
	events := broker.New[broker.Event](broker.Options{})
	files, git := cwdfs.NewPollers(events, 0), gitx.NewPollers(gitx.New(gitx.Options{}), events, 0)
	rl := live.New(live.Options{Catalog: cat, Agent: ag, Events: events, Cache: cache, Files: files, Git: git})
	t.Cleanup(func() { rl.Close(); files.Close(); git.Close(); events.Close() })
	metas, _, err := cat.List(context.Background(), catalog.ListQuery{Sort: "modified"})
	if err != nil || len(metas) == 0 {
		t.Fatalf("no demo sessions: %v", err)
	}
	return &Ops{Agent: ag, Store: store, Cat: cat, Cache: cache, Live: rl}, metas[0]
}

// firstUser is the id of the first user message on the session's branch.
func firstUser(t *testing.T, o *Ops, path string) string {
	t.Helper()
	sess, err := o.Cache.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range sess.PathTo(sess.Leaf()) {
		if e.Type == "message" && bytes.Contains(e.Raw, []byte(`"role":"user"`)) {
			return e.ID
		}
	}
	t.Fatal("no user message")
	return ""
}

// TestMutations: each mutation writes through the store (no pi), and its
// answer reads the catalog after the write; failures name their step.
func TestMutations(t *testing.T) {
	o, m := newOps(t)
	ctx := context.Background()
	ren, err := o.Rename(ctx, m, "Renamed by ops")
	if err != nil || ren.Session == nil || ren.Session.Name == nil || *ren.Session.Name != "Renamed by ops" {
		t.Fatalf("Rename: %+v, %v", ren.Session, err)
	}
	user := firstUser(t, o, m.Path)
	lab, err := o.Label(ctx, m, user, "start")
	if err != nil || lab.Labels[user] != "start" {
		t.Fatalf("Label: %v, %v", lab.Labels, err)
	}
	fk, err := o.Fork(m, apitype.ForkRequest{EntryID: user})
	if err != nil || fk.ID == "" || fk.Path == m.Path || fk.Text == nil {
		t.Fatalf("Fork: %+v, %v", fk, err)
	}
	cl, err := o.Clone(m, apitype.CloneRequest{})
	if err != nil || cl.ID == "" || cl.Text != nil {
		t.Fatalf("Clone: %+v, %v", cl, err)
	}
	del, err := o.Delete(ctx, m)
	if err != nil || del.TrashID == "" {
		t.Fatalf("Delete: %+v, %v", del, err)
	}
	if _, found := o.Cat.ByPath(m.Path); found {
		t.Error("the deleted session is still listed")
	}
	tr, err := o.Trash()
	if err != nil || len(tr.Items) != 1 || tr.Items[0].TrashID != del.TrashID || tr.Items[0].Session.Path != m.Path {
		t.Fatalf("Trash: %+v, %v", tr, err)
	}
	res, err := o.Restore(del.TrashID)
	if err != nil || res.Session == nil || res.Session.Path != m.Path {
		t.Fatalf("Restore: %+v, %v", res, err)
	}
	for _, c := range []struct {
		name   string
		err    error
		step   Step
		target error
	}{
		{"fork at no entry", second(o.Fork(m, apitype.ForkRequest{EntryID: "nope"})), StepStore, pisession.ErrNotFound},
		{"label no entry", second(o.Label(ctx, m, "nope", "x")), StepAgentStore, pisession.ErrNotFound},
		{"restore twice", second(o.Restore(del.TrashID)), StepRestore, sessionstore.ErrTrashItem},
		{"rename a gone file", second(o.Rename(ctx, catalog.Meta{Path: m.Path + ".gone"}, "x")), StepAgentStore, fs.ErrNotExist},
	} {
		var se *StepError
		if !errors.As(c.err, &se) || se.Step != c.step || !errors.Is(c.err, c.target) {
			t.Errorf("%s: %v, want step %d and %v", c.name, c.err, c.step, c.target)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestFail: fail keeps nil nil, and a StepError reads as its cause.
func TestFail(t *testing.T) {
	if fail(StepStore, nil) != nil {
		t.Error("fail(nil) is not nil")
	}
	cause := errors.New("disk full")
	err := fail(StepTrash, cause)
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepTrash || !errors.Is(err, cause) || err.Error() != "disk full" {
		t.Errorf("fail: %#v", err)
	}
}

// TestPages: the context and entries pages of a session, a page at a time
// from the end (the cursor of the page before, whether there is more).
func TestPages(t *testing.T) {
	o, m := newOps(t)
	sess, err := o.Cache.Load(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	leaf := sess.Leaf()
	path := sess.PathTo(leaf)
	c := sess.ContextAt(leaf)
	n, nm := len(path), len(c.Messages)
	if n < 3 || nm < 3 {
		t.Fatalf("the demo session is too short: %d entries, %d messages", n, nm)
	}
	for _, pc := range []struct {
		name       string
		start, end int
		before     *string
	}{
		{"whole", 0, n, nil},
		{"last two", n - 2, n, ptr(itoa(n - 2))},
		{"first", 0, 1, nil},
		{"empty", n, n, ptr(itoa(n))},
	} {
		page, raws := EntriesPage(path, leaf, pc.start, pc.end)
		want := struct {
			Before  *string
			HasMore bool
			Start   int
			Total   int
			N       int
		}{pc.before, pc.start > 0, pc.start, n, pc.end - pc.start}
		got := want
		got.Before, got.HasMore, got.Start, got.Total, got.N = page.Before, page.HasMore, page.Start, page.Total, len(raws)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("entries %s (-want +got):\n%s", pc.name, diff)
		}
		if page.Leaf == nil || *page.Leaf != leaf.ID {
			t.Errorf("entries %s: leaf %v", pc.name, page.Leaf)
		}
		if len(raws) > 0 && !bytes.Equal(raws[0], path[pc.start].Raw) {
			t.Errorf("entries %s: first entry %s", pc.name, raws[0])
		}
	}
	cp, msgs := ContextPage(sess, leaf, c, nm-2, nm)
	if cp.Total != nm || cp.Start != nm-2 || !cp.HasMore || len(msgs) != 2 || len(cp.EntryIDs) != 2 || *cp.Before != itoa(nm-2) {
		t.Errorf("context page: %+v with %d messages", cp, len(msgs))
	}
	if cp, _ := ContextPage(sess, leaf, c, 0, 0); cp.EntryIDs == nil || cp.Before != nil || cp.HasMore {
		t.Errorf("empty first context page: %+v", cp)
	}
}

// TestHelpers: the small conversions the pages share.
func TestHelpers(t *testing.T) {
	if got := string(rawOrNull(nil)); got != "null" {
		t.Errorf("rawOrNull(nil) = %s", got)
	}
	if got := string(rawOrNull([]byte(`"m"`))); got != `"m"` {
		t.Errorf("rawOrNull = %s", got)
	}
	if got := nonNil(nil); got == nil || len(got) != 0 {
		t.Errorf("nonNil(nil) = %#v", got)
	}
	for _, e := range []*pisession.Entry{nil, {}} {
		if entryID(e) != nil {
			t.Errorf("entryID(%v) is not nil", e)
		}
	}
	if got := entryID(&pisession.Entry{ID: "x"}); got == nil || *got != "x" {
		t.Errorf("entryID = %v", got)
	}
	if beforeCursor(0) != nil || *beforeCursor(7) != "7" {
		t.Error("beforeCursor")
	}
}

// TestConfig: without a project there is no project part and nothing to
// trust; with one, pi's trust of it: a folder without project resources
// is trusted, one with them is not until the user decides (pi's default
// "ask" is no in RPC mode).
func TestConfig(t *testing.T) {
	dir := t.TempDir()
	v, err := Config(dir, "")
	if err != nil || v.Project != nil || v.Trust != nil {
		t.Errorf("Config without a project: project %v trust %v, %v", v.Project, v.Trust, err)
	}
	plain, withResources := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(withResources, ".pi", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cwd     string
		trusted bool
	}{{"", false}, {plain, true}, {withResources, false}} {
		if ok, err := Trusted(dir, c.cwd); ok != c.trusted || err != nil {
			t.Errorf("Trusted(%q) = %v, %v; want %v", c.cwd, ok, err, c.trusted)
		}
		if c.cwd == "" {
			continue
		}
		v, err := Config(dir, c.cwd)
		if err != nil || v.Project == nil || v.Trust == nil || v.Trust.Trusted != c.trusted {
			t.Errorf("Config(%q): project %v trust %+v, %v", c.cwd, v.Project, v.Trust, err)
		}
	}
}

func ptr(s string) *string { return &s }

func itoa(n int) string { return strconv.Itoa(n) }

// TestDocument: an export is titled by the session's name, else its first
// message, and holds the branch's messages.
func TestDocument(t *testing.T) {
	o, m := newOps(t)
	sess, err := o.Cache.Load(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	named := m
	named.Name, named.HasName, named.FirstMessage = "A name", true, "first words"
	unnamed := named
	unnamed.HasName = false
	for _, c := range []struct {
		m    catalog.Meta
		want string
	}{{named, "A name"}, {unnamed, "first words"}} {
		d := Document(c.m, sess, sess.Leaf())
		if d.Title != c.want || d.ID != m.ID || len(d.Messages) == 0 || d.Created.IsZero() {
			t.Errorf("title %q id %q, %d messages, created %v; want title %q", d.Title, d.ID, len(d.Messages), d.Created, c.want)
		}
	}
}

// TestCreateWithoutPi: with no pi, Create is the agent's refusal as it is
// (the server words it as pi missing), and nothing is followed.
func TestCreateWithoutPi(t *testing.T) {
	o, _ := newOps(t)
	a, err := o.Create(context.Background(), agent.CreateRequest{Cwd: t.TempDir(), Message: "hi"})
	if !errors.Is(err, agent.ErrPiMissing) || a.ID != "" {
		t.Errorf("Create = %+v, %v; want agent.ErrPiMissing", a, err)
	}
}
