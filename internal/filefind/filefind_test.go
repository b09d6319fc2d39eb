package filefind

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// TestMatchRanks: what comes first for typical queries.
func TestMatchRanks(t *testing.T) {
	l := NewList([]string{"README.md", "cmd/piweb/main.go", "internal/web/static/js/composer.js",
		"internal/web/static/chat/complete.js", "internal/server/routes.go", "docs/api.md",
		"internal/filefind/match.go", "a b/space name.txt", "internal/main_test.go"}, "")
	for _, tc := range []struct {
		query string
		want  []string // the first results, in order
	}{
		{"main", []string{"cmd/piweb/main.go", "internal/main_test.go"}},
		{"compl", []string{"internal/web/static/chat/complete.js"}},
		{"routes", []string{"internal/server/routes.go"}},
		{"srvrt", []string{"internal/server/routes.go"}},
		{"API", []string{"docs/api.md"}},
		{"web/", []string{"internal/web/"}},
		{"internal/", []string{"internal/web/", "internal/server/", "internal/filefind/"}},
		{"internal/mai", []string{"internal/main_test.go"}},
		{"space n", []string{"a b/space name.txt"}},
		{"", []string{"a b/", "cmd/", "docs/"}},
		{"zzz", nil},
	} {
		var got []string
		for _, m := range l.Match(tc.query, len(tc.want)) {
			got = append(got, m.Path)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.query, got, tc.want)
		}
	}
	if m := l.Match("piweb", 1); len(m) != 1 || !m[0].Dir || m[0].Path != "cmd/piweb/" {
		t.Errorf("a folder: %+v", m)
	}
}

func files(t testing.TB, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		testkit.WriteFile(t, filepath.Join(dir, filepath.FromSlash(n)), "")
	}
}

func found(t *testing.T, f *Finder, dir, query string) []string {
	t.Helper()
	a, err := f.Find(t.Context(), dir, query, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range a.Matches {
		out = append(out, m.Path)
	}
	slices.Sort(out)
	return out
}

// TestFindInRepository: git's list: tracked and untracked files, not the
// ignored ones, with their folders; from a subfolder, paths relative to
// it; more than MaxPaths make a partial list.
func TestFindInRepository(t *testing.T) {
	dir := t.TempDir()
	pitest.Git(t, dir, "init", "-q")
	files(t, dir, ".gitignore", "src/a.go", "build/out.bin", "new.txt", "src/sub/b.go")
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("build/\n"), 0o644)
	pitest.Git(t, dir, "add", ".gitignore", "src")
	f := New(Options{})
	defer f.Close()
	want := []string{".gitignore", "new.txt", "src/", "src/a.go", "src/sub/", "src/sub/b.go"}
	if got := found(t, f, dir, ""); !slices.Equal(got, want) {
		t.Errorf("repository: %q, want %q", got, want)
	}
	if got := found(t, f, filepath.Join(dir, "src"), ""); !slices.Equal(got, []string{"a.go", "sub/", "sub/b.go"}) {
		t.Errorf("subfolder: %q", got)
	}
	small := New(Options{MaxPaths: 2})
	defer small.Close()
	if a, err := small.Find(t.Context(), dir, "", 10); err != nil || !a.Partial || a.Reason != reasonMany || a.Files != 2 {
		t.Errorf("over MaxPaths: %+v, %v", a, err)
	}
}

// TestFindWalks: a folder outside git is walked (.git folders and the
// targets of symlinks left out); more files than MaxPaths make a partial
// list that says so; a cwd that is gone is not found.
func TestFindWalks(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, "a.txt", "x/b.txt", "x/.git/config")
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	os.Symlink("/etc", filepath.Join(dir, "etc"))
	f := New(Options{Git: nil})
	defer f.Close()
	if got, want := found(t, f, dir, ""), []string{"a.txt", "empty/", "etc", "x/", "x/b.txt"}; !slices.Equal(got, want) {
		t.Errorf("walk: %q, want %q", got, want)
	}
	small := New(Options{MaxPaths: 2})
	defer small.Close()
	a, err := small.Find(t.Context(), dir, "", 10)
	if err != nil || !a.Partial || a.Reason != reasonMany || a.Files != 1 { // a.txt and empty/
		t.Errorf("over MaxPaths: %+v, %v", a, err)
	}
	if _, err := f.Find(t.Context(), filepath.Join(dir, "gone"), "", 10); err == nil {
		t.Error("a gone folder was listed")
	}
}

// badDir fails reading one folder, as one the user may not read does.
type badDir struct {
	fstest.MapFS
	bad string
}

func (b badDir) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == b.bad {
		return nil, fs.ErrPermission
	}
	return b.MapFS.ReadDir(name)
}

// TestWalkBounds: an unreadable folder is skipped and said; a walk stops
// at its count and at its deadline.
func TestWalkBounds(t *testing.T) {
	m := fstest.MapFS{"a": {}, "locked/s": {}, "z/b": {}}
	got, cut, unreadable := Walk(t.Context(), badDir{m, "locked"}, 10)
	if !slices.Equal(got, []string{"a", "locked/", "z/", "z/b"}) || cut || !unreadable {
		t.Errorf("unreadable: %q %v %v", got, cut, unreadable)
	}
	if got, cut, _ := Walk(t.Context(), m, 1); len(got) != 1 || !cut {
		t.Errorf("count: %q %v", got, cut)
	}
	ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	many := fstest.MapFS{}
	for i := range 3000 {
		many[filepath.Join("d", string(rune('a'+i%26)), time.Duration(i).String())] = &fstest.MapFile{}
	}
	if got, _, _ := Walk(ctx, many, 10000); len(got) >= 3000 {
		t.Errorf("a walk past its deadline listed %d", len(got))
	}
}

// TestFindCache: a list answers from the cache; once older than TTL it
// still answers while it is listed again, and then the new file shows; a
// list unused for Idle is dropped.
func TestFindCache(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, "a.txt")
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	f := New(Options{TTL: time.Minute, Now: clock})
	defer f.Close()
	found(t, f, dir, "")
	files(t, dir, "b.txt")
	if got := found(t, f, dir, ""); !slices.Equal(got, []string{"a.txt"}) {
		t.Errorf("cached: %q", got)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	found(t, f, dir, "") // stale: starts listing again
	testkit.Eventually(t, func() error {
		if got := found(t, f, dir, ""); !slices.Equal(got, []string{"a.txt", "b.txt"}) {
			return errors.New(cmp.Diff([]string{"a.txt", "b.txt"}, got))
		}
		return nil
	}, 5*time.Second, "the new file after the TTL")

	other := t.TempDir()
	found(t, f, other, "")
	if n := f.Folders(); n != 2 {
		t.Errorf("%d lists kept, want 2", n)
	}
	mu.Lock()
	now = now.Add(DefaultIdle + time.Second)
	mu.Unlock()
	found(t, f, other, "")
	if n := f.Folders(); n != 1 {
		t.Errorf("%d lists kept after one was idle, want 1", n)
	}
}

// FuzzMatch: any query against any paths answers without panic, at most
// limit matches, each a path of the list.
func FuzzMatch(f *testing.F) {
	f.Add("src/a.go\nb/c/\nÄrger.txt", "a/", 3)
	f.Add("x", "", 0)
	f.Add("日本/語.md\n/abs", "語", 1)
	f.Fuzz(func(t *testing.T, list, query string, limit int) {
		limit = limit % 300
		l := NewList(strings.Split(list, "\n"), "")
		got := l.Match(query, limit)
		if len(got) > max(limit, 0) {
			t.Fatalf("%d matches for limit %d", len(got), limit)
		}
		for _, m := range got {
			if !slices.Contains(l.paths, m.Path) {
				t.Fatalf("%q is not in the list", m.Path)
			}
		}
	})
}
