package gitx

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCommittable: each state a commit is refused in, before git runs.
func TestCommittable(t *testing.T) {
	staged := []File{{Path: "a", Staged: "M", Unstaged: ".", Kind: "tracked"}}
	for _, tc := range []struct {
		name string
		st   Status
		want error
	}{
		{"staged", Status{Branch: "main", Head: "abc", Files: staged}, nil},
		{"first commit", Status{Branch: "main", Files: staged}, nil},
		{"nothing staged", Status{Branch: "main", Head: "abc", Files: []File{{Path: "a", Staged: ".", Unstaged: "M"},
			{Path: "b", Staged: "?", Unstaged: "?", Kind: "untracked"}}}, ErrNothing},
		{"detached", Status{Head: "abc", Files: staged}, ErrDetached},
		{"unmerged", Status{Branch: "main", Head: "abc", Files: append([]File{{Path: "c", Staged: "U", Unstaged: "U",
			Kind: "unmerged"}}, staged...)}, ErrUnmerged},
	} {
		if got := committable(&tc.st); !errors.Is(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if err := committable(&Status{Branch: "main", Head: "abc", State: "rebase", Files: staged}); err == nil ||
		err.Error() == "" {
		t.Error("a rebase in progress was committable")
	}
}

// TestParseLog reads the log's separators, a subject with any character.
func TestParseLog(t *testing.T) {
	out := "aaa\x1fa\x1fPi User\x1f2026-12-05T07:00:00+01:00\x1fFix: a | b\x1e\nbbb\x1fb\x1fX\x1fbad date\x1fsecond\x1e\n"
	got := ParseLog([]byte(out))
	want := []Commit{
		{Hash: "aaa", Short: "a", Author: "Pi User", Date: time.Date(2026, 12, 5, 6, 0, 0, 0, time.UTC), Subject: "Fix: a | b"},
		{Hash: "bbb", Short: "b", Author: "X", Subject: "second"},
	}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); d != "" {
		t.Error(d)
	}
	if got := ParseLog(nil); len(got) != 0 || got == nil {
		t.Errorf("empty: %#v", got)
	}
}

// FuzzParseLog: any output parses without panic, into commits whose
// fields hold no separator.
func FuzzParseLog(f *testing.F) {
	f.Add([]byte("aaa\x1fa\x1fPi\x1f2026-12-05T07:00:00Z\x1fsubject\x1e\n"))
	f.Add([]byte("\x1f\x1f\x1f\x1f\x1e\x1e\x1f"))
	f.Fuzz(func(t *testing.T, out []byte) {
		for _, c := range ParseLog(out) {
			if strings.ContainsAny(c.Hash+c.Short+c.Author+c.Subject, "\x1e\x1f") {
				t.Fatalf("a separator in %+v", c)
			}
		}
	})
}
