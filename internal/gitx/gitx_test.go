package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// needGit stops a test without git (a failure under CI=true).
func needGit(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		pitest.Missing(tb, "git not on PATH")
	}
}

// sh runs a git command in dir for a test's setup.
func sh(tb testing.TB, dir string, args ...string) {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-c", "gc.auto=0", "-c", "maintenance.auto=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// newRepo makes a repository with one commit of a.txt, b.txt and
// "sp ace ü.txt" on branch main.
func newRepo(tb testing.TB) string {
	tb.Helper()
	needGit(tb)
	dir := tb.TempDir()
	sh(tb, dir, "init", "-q", "-b", "main")
	testkit.WriteFile(tb, filepath.Join(dir, "a.txt"), "one\ntwo\n")
	testkit.WriteFile(tb, filepath.Join(dir, "b.txt"), "bee\n")
	testkit.WriteFile(tb, filepath.Join(dir, "sp ace ü.txt"), "space\n")
	sh(tb, dir, "add", ".")
	sh(tb, dir, "commit", "-qm", "first")
	return dir
}

func TestStatus(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	sh(t, dir, "branch", "base")
	testkit.WriteFile(t, filepath.Join(dir, "c.txt"), "sea\n")
	sh(t, dir, "add", "c.txt")
	sh(t, dir, "commit", "-qm", "second")
	sh(t, dir, "branch", "--set-upstream-to=base")
	testkit.WriteFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n") // unstaged
	testkit.WriteFile(t, filepath.Join(dir, "new.txt"), "new\n")           // staged add, then unstaged change
	sh(t, dir, "add", "new.txt")
	testkit.WriteFile(t, filepath.Join(dir, "new.txt"), "new\nnewer\n")
	sh(t, dir, "mv", "sp ace ü.txt", "nom näme.txt")                          // renamed
	os.Remove(filepath.Join(dir, "b.txt"))                                    // deleted, unstaged
	testkit.WriteFile(t, filepath.Join(dir, "sub/untracked file.txt"), "u\n") // untracked folder
	testkit.WriteFile(t, filepath.Join(dir, "-dash.txt"), "d\n")              // untracked, a leading dash
	g := New(Options{})
	st, err := g.Status(context.Background(), filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	want := &Status{Root: real, Branch: "main", Head: st.Head, Upstream: "base", Ahead: 1, Behind: 0, Total: 6, Files: []File{
		{Path: "a.txt", Staged: ".", Unstaged: "M", Kind: "tracked"},
		{Path: "b.txt", Staged: ".", Unstaged: "D", Kind: "tracked"},
		{Path: "new.txt", Staged: "A", Unstaged: "M", Kind: "tracked"},
		{Path: "nom näme.txt", OrigPath: "sp ace ü.txt", Staged: "R", Unstaged: ".", Kind: "renamed"},
		{Path: "-dash.txt", Staged: "?", Unstaged: "?", Kind: "untracked"},
		{Path: "sub/", Staged: "?", Unstaged: "?", Kind: "untracked"},
	}}
	if len(st.Head) != 40 {
		t.Errorf("head %q", st.Head)
	}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}

	d, err := g.FileDiff(context.Background(), st.Root, "a.txt", AgainstHead)
	if err != nil || !strings.Contains(d.Text, "\n+three\n") || d.Truncated {
		t.Errorf("diff of a.txt: %+v, %v", d, err)
	}
	d, err = g.FileDiff(context.Background(), st.Root, "new.txt", Staged)
	if err != nil || !strings.Contains(d.Text, "+new\n") || strings.Contains(d.Text, "newer") {
		t.Errorf("staged diff of new.txt: %+v, %v", d, err)
	}
	d, err = g.FileDiff(context.Background(), st.Root, "-dash.txt", Untracked)
	if err != nil || !strings.Contains(d.Text, "+d\n") {
		t.Errorf("untracked diff: %+v, %v", d, err)
	}
	d, err = g.FileDiff(context.Background(), st.Root, "nom näme.txt", AgainstHead)
	if err != nil || !strings.Contains(d.Text, "nom näme.txt") {
		t.Errorf("diff of a unicode name: %+v, %v", d, err)
	}
	for _, bad := range []string{"../x", "/etc/passwd", "", "a\x00b", "."} {
		if _, err := g.FileDiff(context.Background(), st.Root, bad, AgainstHead); !errors.Is(err, ErrBadPath) {
			t.Errorf("FileDiff(%q): %v, want ErrBadPath", bad, err)
		}
	}
}

func TestDiffCapAndBinaryAndNoHead(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	sh(t, dir, "init", "-q", "-b", "main")
	testkit.WriteFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("a line of text\n", 100000))
	testkit.WriteFile(t, filepath.Join(dir, "bin.dat"), "\x00\x01\x02binary")
	sh(t, dir, "add", ".")
	g := New(Options{MaxDiff: 4096})
	d, err := g.FileDiff(context.Background(), dir, "big.txt", AgainstHead)
	if err != nil || !d.Truncated || len(d.Text) != 4096 {
		t.Fatalf("capped diff before the first commit: truncated %v, %d bytes, %v", d != nil && d.Truncated, len(d.Text), err)
	}
	d, err = g.FileDiff(context.Background(), dir, "bin.dat", Staged)
	if err != nil || !d.Binary {
		t.Errorf("binary diff: %+v, %v", d, err)
	}
	st, err := g.Status(context.Background(), dir)
	if err != nil || st.Head != "" || st.Branch != "main" || st.Total != 2 {
		t.Errorf("status before the first commit: %+v, %v", st, err)
	}
}

func TestStatusErrors(t *testing.T) {
	t.Parallel()
	needGit(t)
	ctx := context.Background()
	plain := t.TempDir()
	os.WriteFile(filepath.Join(plain, "x"), nil, 0o644)
	if _, err := New(Options{}).Status(ctx, plain); !errors.Is(err, ErrNotRepo) {
		t.Errorf("not a repository: %v", err)
	}
	if _, err := New(Options{}).Status(ctx, filepath.Join(plain, "gone")); !errors.Is(err, ErrNoDir) {
		t.Errorf("missing folder: %v", err)
	}
	if _, err := New(Options{Path: filepath.Join(plain, "no-git")}).Status(ctx, plain); !errors.Is(err, ErrNoGit) {
		t.Errorf("missing git: %v", err)
	}
	// A git that hangs (a lock, a prompt) is killed at the timeout.
	hang := filepath.Join(t.TempDir(), "git")
	os.WriteFile(hang, []byte("#!/bin/sh\nsleep 30\n"), 0o755)
	start := time.Now()
	if _, err := New(Options{Path: hang, Timeout: 200 * time.Millisecond}).Status(ctx, plain); !errors.Is(err, ErrTimeout) {
		t.Errorf("hanging git: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("the timeout took %v", time.Since(start))
	}
	// git never prompts: the environment says so.
	env := filepath.Join(t.TempDir(), "git")
	os.WriteFile(env, []byte("#!/bin/sh\necho \"prompt=$GIT_TERMINAL_PROMPT locks=$GIT_OPTIONAL_LOCKS $*\"\n"), 0o755)
	root, err := New(Options{Path: env}).Root(ctx, plain)
	if err != nil || !strings.Contains(root, "prompt=0 locks=0 -c core.quotepath=off") {
		t.Errorf("git's environment and arguments: %q, %v", root, err)
	}
}

func TestParseStatus(t *testing.T) {
	in := "# branch.oid (initial)\x00# branch.head (detached)\x00# branch.ab +3 -2\x00# future.header x\x00" +
		"1 M. N... 100644 100644 100644 aaaa bbbb with space.txt\x00" +
		"2 R. N... 100644 100644 100644 aaaa bbbb R90 new\x00old\x00" +
		"u UU N... 100644 100644 100644 100644 aaaa bbbb cccc conflict.txt\x00" +
		"? untracked\x00! ignored\x00x newtype\x00"
	st, err := ParseStatus([]byte(in), 2)
	if err != nil {
		t.Fatal(err)
	}
	want := &Status{Ahead: 3, Behind: 2, Total: 4, Files: []File{
		{Path: "with space.txt", Staged: "M", Unstaged: ".", Kind: "tracked"},
		{Path: "new", OrigPath: "old", Staged: "R", Unstaged: ".", Kind: "renamed"},
	}}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{"1 M. x\x00", "2 R. N... 1 1 1 a b R1 new\x00", "? no terminator"} {
		if _, err := ParseStatus([]byte(bad), 0); !errors.Is(err, ErrParse) {
			t.Errorf("ParseStatus(%q): %v, want ErrParse", bad, err)
		}
	}
}

// FuzzParseStatus: any bytes are parsed or refused, never a panic, and
// the files kept are within the cap and the total.
func FuzzParseStatus(f *testing.F) {
	f.Add([]byte("# branch.oid abc\x00# branch.head main\x001 .M N... 100644 100644 100644 a b f\x00? u\x00"), 1)
	f.Add([]byte("2 R. N... 100644 100644 100644 a b R100 n\x00o\x00"), 0)
	f.Add([]byte("u UU N... 1 1 1 1 a b c p q\x00"), 5)
	f.Fuzz(func(t *testing.T, b []byte, max int) {
		st, err := ParseStatus(b, max)
		if err != nil {
			return
		}
		if len(st.Files) > st.Total || (max > 0 && len(st.Files) > max) {
			t.Fatalf("%d files kept of %d, cap %d", len(st.Files), st.Total, max)
		}
		for _, f := range st.Files {
			if f.Path == "" && f.Kind != "untracked" {
				t.Fatalf("file without a path: %+v", f)
			}
		}
	})
}

// BenchmarkStatus10k: git status (and the parse) of a 10,000-file
// repository with 100 modified and 100 untracked files.
func BenchmarkStatus10k(b *testing.B) {
	needGit(b)
	dir := b.TempDir()
	sh(b, dir, "init", "-q", "-b", "main")
	for i := range 10000 {
		testkit.WriteFile(b, filepath.Join(dir, fmt.Sprintf("d%02d/f%05d.txt", i%100, i)), fmt.Sprintf("file %d\n", i))
	}
	sh(b, dir, "add", ".")
	sh(b, dir, "commit", "-qm", "10k")
	for i := range 100 {
		testkit.WriteFile(b, filepath.Join(dir, fmt.Sprintf("d%02d/f%05d.txt", i%100, i*7)), "changed\n")
		testkit.WriteFile(b, filepath.Join(dir, fmt.Sprintf("new/n%03d.txt", i)), "new\n")
	}
	g := New(Options{})
	ctx := context.Background()
	if _, err := g.Status(ctx, dir); err != nil { // the index's stat cache warm, as in use
		b.Fatal(err)
	}
	for b.Loop() {
		st, err := g.Status(ctx, dir)
		if err != nil || st.Total != 101 {
			b.Fatalf("%v, %d files", err, st.Total)
		}
	}
}
