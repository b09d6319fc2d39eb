package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"piweb/internal/demo"
	"piweb/internal/index"
	"piweb/internal/testkit"
	"piweb/pisession"
)

func meta(path, id string) Meta {
	return Meta{ID: id, Path: path, Cwd: "/p", FirstMessage: "hi " + path, Created: 1, Modified: 2}
}

// TestCopiesShareHeaderID: files sharing a header id each get their own
// key; the file named with the id keeps the id; keys depend only on the
// paths (stable across restarts) and follow removals.
func TestCopiesShareHeaderID(t *testing.T) {
	const id = "0195f3b2-aaaa-7bbb-8ccc-000000000001"
	orig := "/s/2026-01-01T00-00-00-000Z_" + id + ".jsonl"
	cp := "/s/a copy.jsonl"
	cp2 := "/s/0-another copy.jsonl"
	c := Static()
	sub := c.Changes()
	defer sub.Close()
	c.Put(meta(cp, id))
	if m, _ := c.ByPath(cp); m.Key != id {
		t.Fatalf("a lone copy has key %q, want the header id", m.Key)
	}
	c.Put(meta(orig, id))
	c.Put(meta(cp2, id))
	keys := map[string]string{}
	for _, p := range []string{orig, cp, cp2} {
		m, _ := c.ByPath(p)
		keys[p] = m.Key
		if got, found := c.ByKey(m.Key); !found || got.Path != p {
			t.Errorf("ByKey(%q) = %q, want %q", m.Key, got.Path, p)
		}
	}
	if keys[orig] != id || !strings.HasPrefix(keys[cp], id+"~") || keys[cp] == keys[cp2] {
		t.Fatalf("keys %v", keys)
	}
	// Stable: the same files put in another order get the same keys.
	c2 := Static()
	for _, p := range []string{cp2, orig, cp} {
		c2.Put(meta(p, id))
	}
	for p, k := range keys {
		if m, _ := c2.ByPath(p); m.Key != k {
			t.Errorf("%s: key %q after a restart, was %q", p, m.Key, k)
		}
	}
	// The copy that was the id's holder was re-keyed, and said so.
	var changes []Change
	for len(sub.C) > 0 { // published before Put returned
		changes = append(changes, <-sub.C)
	}
	removedLone := false
	for _, ch := range changes {
		if ch.Kind == Removed && ch.Meta.Path == cp && ch.Meta.Key == id {
			removedLone = true
		}
	}
	if !removedLone {
		t.Errorf("re-keying the copy sent no removal of its old key: %+v", changes)
	}
	// A subscriber applying the changes in order (the page's sidebar)
	// ends with every file under its key: a removal of a re-keyed copy's
	// old key must not come after the addition that now holds that key.
	seen := map[string]string{}
	for _, ch := range changes {
		if ch.Kind == Removed {
			delete(seen, ch.Meta.Key)
		} else {
			seen[ch.Meta.Key] = ch.Meta.Path
		}
	}
	for p, k := range keys {
		if seen[k] != p {
			t.Errorf("after replaying the changes, key %q holds %q, want %q", k, seen[k], p)
		}
	}
	// A fork's stale parent path links to the canonical file.
	child := meta("/s/child.jsonl", "child")
	child.ParentPath = "/gone/2026-01-01T00-00-00-000Z_" + id + ".jsonl"
	c.Put(child)
	if p, found := c.Parent(child); !found || p.Path != orig {
		t.Errorf("parent %q, want %q", p.Path, orig)
	}
	c.Remove(orig)
	if m, _ := c.ByPath(cp2); m.Key != id {
		t.Errorf("after the original went, %s has key %q, want %q", cp2, m.Key, id)
	}
	if l := c.list(ListQuery{}, nil); len(l.Metas) != 3 {
		t.Errorf("listing has %d sessions", len(l.Metas))
	}
}

// openDemo opens a catalog over a fresh copy of the demo sessions.
func openDemo(t *testing.T) (*Catalog, *demo.Demo) {
	t.Helper()
	d, err := demo.Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(context.Background(), Options{AgentDir: d.AgentDir, Temporary: true, Log: testkit.Log(t),
		Rescan: 100 * time.Millisecond, ReloadEvery: 10 * time.Millisecond, SyncFor: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return c, d
}

// TestCloseEndsGoroutines: Open's watcher and follower end in Close, and
// the temporary index dir goes.
func TestCloseEndsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	c, _ := openDemo(t)
	if !c.State().Temporary || c.temp == "" {
		t.Fatal("no temporary index")
	}
	c.Close()
	c.Close() // twice is fine
	testkit.Eventually(t, func() bool { return runtime.NumGoroutine() <= before }, 5*time.Second,
		"goroutines back to the count before Open")
	if _, err := os.Stat(c.temp); !os.IsNotExist(err) {
		t.Errorf("temporary index dir left: %v", err)
	}
}

// TestUnusableIndexPath: an index path that cannot be created puts the
// index in a temporary dir.
func TestUnusableIndexPath(t *testing.T) {
	d, err := demo.Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	c, err := Open(context.Background(), Options{AgentDir: d.AgentDir, IndexPath: filepath.Join(file, "index.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if st := c.State(); !st.Temporary || st.Sessions != len(d.Sessions) {
		t.Errorf("state %+v, want a temporary index of %d sessions", st, len(d.Sessions))
	}
}

// TestReloadsSerialised: refreshes racing with the watcher's reloads
// while files change leave the listing equal to the index.
func TestReloadsSerialised(t *testing.T) {
	c, d := openDemo(t)
	defer c.Close()
	ctx := context.Background()
	first, found := c.ByKey(d.Sessions[0])
	if !found {
		t.Fatal("first demo session not listed")
	}
	path := first.Path
	var wg sync.WaitGroup
	for i := range 20 {
		testkit.AppendFile(t, path, fmt.Sprintf(`{"type":"session_info","id":"r%07d","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","name":"n%d"}`+"\n", i, i))
		wg.Go(func() { c.Refresh(path) })
		wg.Go(func() { c.reload(ctx) })
	}
	wg.Wait()
	want := "n19"
	testkit.Eventually(t, func() error {
		m, _ := c.ByPath(path)
		if m.Name != want {
			return fmt.Errorf("name %q", m.Name)
		}
		return nil
	}, 10*time.Second, "the listing to show the last name")
	if err := c.reload(ctx); err != nil {
		t.Fatal(err)
	}
	metas, _ := c.ix.Sessions(ctx)
	for _, im := range metas {
		if !im.Listed {
			continue
		}
		m, found := c.ByPath(im.Info.Path)
		if !found || !sameButKey(m, fromIndex(im)) {
			t.Errorf("%s: listing %+v differs from the index", im.Info.Path, m)
		}
	}
}

// TestReloadReadsChanged: a change to one file reloads that file's row,
// not every row (at 100,000 sessions, reading them all after each change
// held 700 MB; decision 0036), and the listing follows it.
func TestReloadReadsChanged(t *testing.T) {
	c, d := openDemo(t)
	defer c.Close()
	first, found := c.ByKey(d.Sessions[0])
	if !found || len(d.Sessions) < 4 {
		t.Fatalf("first demo session listed %v, %d sessions", found, len(d.Sessions))
	}
	testkit.AppendFile(t, first.Path, `{"type":"session_info","id":"rr000001","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","name":"read alone"}`+"\n")
	testkit.Eventually(t, func() error {
		if m, _ := c.ByPath(first.Path); m.Name != "read alone" || c.lastRead.Load() != 1 {
			return fmt.Errorf("name %q, the last reload read %d rows of %d", m.Name, c.lastRead.Load(), len(d.Sessions))
		}
		return nil
	}, 10*time.Second, "the listing to show the name, reloading that file alone")
	c.Refresh(first.Path)
	if n := c.lastRead.Load(); n != 1 {
		t.Errorf("a refresh of one file read %d rows", n)
	}
}

// TestReadyAfterTextPass: a catalog opened on files listed but not yet
// searchable becomes ready once the index's text pass, which publishes no
// events, has indexed them (it stayed "text behind" until some file
// changed).
func TestReadyAfterTextPass(t *testing.T) {
	c, d := openDemo(t)
	defer c.Close()
	testkit.Eventually(t, func() error {
		if st := c.State(); !st.Ready || st.Sessions != len(d.Sessions) {
			return fmt.Errorf("%+v", st)
		}
		return nil
	}, 10*time.Second, "the catalog to say the text is indexed")
}

// TestFirstMessageCut checks that the listing keeps at most
// MaxFirstMessage bytes of a first message, cut at a rune start (issue
// 21: a 52 MB pasted first message was held twice and sent with every
// listing).
func TestFirstMessageCut(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"short", 5},
		{strings.Repeat("x", MaxFirstMessage), MaxFirstMessage},
		{strings.Repeat("x", 50<<20), MaxFirstMessage},
		{"x" + strings.Repeat("é", MaxFirstMessage), MaxFirstMessage - 1},
	} {
		got := fromIndex(index.Meta{Info: pisession.Info{Path: "/p.jsonl", FirstMessage: tt.in}}).FirstMessage
		if len(got) != tt.want || !utf8.ValidString(got) || !strings.HasPrefix(tt.in, got) {
			t.Errorf("first message of %d bytes kept as %d bytes (valid %v), want %d", len(tt.in), len(got), utf8.ValidString(got), tt.want)
		}
	}
}
