package fleet

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"piweb/internal/pgtest"
	"piweb/internal/testkit"
)

// TestPushConverges follows one machine through appends, a branch switch,
// a rename, a delete and its restore, and a rewrite: after each the
// database holds exactly the files; also when a batch sends its rows
// after each file (a rewritten file's old rows deleted before its new
// rows go), as a batch bigger than flushBytes does.
func TestPushConverges(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flush int
	}{{"whole batches", 0}, {"rows sent per file", 1}} {
		t.Run(tc.name, func(t *testing.T) { testPushConverges(t, tc.flush) })
	}
}

func testPushConverges(t *testing.T, flush int) {
	d := newFleetDB(t, pgtest.Shared(t))
	url := d.role(t, "laptop")
	a := newAgentDir(t)
	p1, p2, p3 := a.create(t, 2), a.create(t, 1), a.create(t, 3)
	cat := openCatalog(t, a)
	startPusher(t, Options{URL: url, Machine: "laptop", Source: cat, flushBytes: flush})
	conn := d.admin(t)
	ctx := context.Background()
	all := func() error {
		for _, p := range []string{p1, p2, p3} {
			if err := converged(ctx, conn, cat, "laptop", p); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
		return nil
	}
	eventually(t, all, "the first push")
	if n := count(t, conn, `SELECT count(*) FROM fleet.entries WHERE machine = 'laptop' AND tsv @@ to_tsquery('simple', 'zebras')`); n != 12 {
		t.Errorf("%d entries match zebras, want the 6 questions and their answers", n)
	}
	if n := count(t, conn, `SELECT count(*) FROM fleet.usage WHERE machine = 'laptop'`); n != 6 {
		t.Errorf("%d usage rows, want one per answer (6)", n)
	}

	appendExchange(t, p1, "x1", "s1-1a", "appended giraffe, read-only: see e.g. /usr/share/giraffe.txt")
	eventually(t, all, "an append")
	wantBranch(t, conn, p1, []string{"s1-0u", "s1-0a", "s1-1u", "s1-1a", "x1u", "x1a"})
	// A text only the server tokenizes (a path, a hyphenated word) gets its
	// tsvector from the schema's trigger; plain ones came from the pusher.
	if n := count(t, conn, `SELECT count(*) FROM fleet.entries WHERE tsv @@ to_tsquery('simple', '/usr/share/giraffe.txt & read-only')`); n != 2 {
		t.Errorf("%d entries match the path and the hyphenated word, want the question and its answer", n)
	}

	appendExchange(t, p1, "x2", "s1-0a", "a new branch from the first answer")
	eventually(t, all, "a branch switch")
	wantBranch(t, conn, p1, []string{"s1-0u", "s1-0a", "x2u", "x2a"})

	appendLine(t, p1, `{"type":"message","id":"damaged","parentId":"x2a","timest`) // pushed with its problem, as locally
	appendLine(t, p1, `{"type":"session_info","id":"n1","parentId":"x2a","timestamp":"2026-12-04T10:05:00.000Z","name":"Zebra talk"}`)
	eventually(t, func() error {
		if err := all(); err != nil {
			return err
		}
		return wantColumn(ctx, conn, "name", p1, "Zebra talk")
	}, "a rename")

	saved := testkit.ReadFile(t, p2)
	os.Remove(p2)
	eventually(t, func() error { return wantColumn(ctx, conn, "deleted", p2, true) }, "a delete marked")
	if err := os.WriteFile(p2, saved, 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() error {
		if err := wantColumn(ctx, conn, "deleted", p2, false); err != nil {
			return err
		}
		return all()
	}, "a restore")

	rewritten := strings.Replace(string(testkit.ReadFile(t, p3)), "question 1 about zebras", "question 1 about lemurs", 1)
	testkit.WriteFile(t, p3+".tmp", rewritten)
	if err := os.Rename(p3+".tmp", p3); err != nil {
		t.Fatal(err)
	}
	eventually(t, all, "a rewrite")
	if n := count(t, conn, `SELECT count(*) FROM fleet.entries WHERE path = $1 AND tsv @@ to_tsquery('simple', 'lemurs')`, p3); n != 1 {
		t.Errorf("rewritten file: %d entries match lemurs, want the rewritten question", n)
	}
	for _, table := range []string{"entries", "lines", "usage"} {
		if n := count(t, conn, `SELECT count(*) FROM (SELECT path, line FROM fleet.`+table+` GROUP BY 1, 2 HAVING count(*) > 1) d`); n != 0 {
			t.Errorf("%s: %d duplicated rows", table, n)
		}
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

// wantBranch checks the entries flagged on the current branch.
func wantBranch(t *testing.T, conn pgxConn, path string, want []string) {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT entry_id FROM fleet.entries WHERE path = $1 AND on_branch ORDER BY line`, path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.AppendRows([]string(nil), rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries on the branch (-want +got):\n%s", diff)
	}
}

// wantColumn checks column col of the pushed session at path.
func wantColumn[T comparable](ctx context.Context, conn pgxConn, col, path string, want T) error {
	var got T
	if err := conn.QueryRow(ctx, `SELECT `+col+` FROM fleet.sessions WHERE path = $1`, path).Scan(&got); err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%s = %#v, want %#v", col, got, want)
	}
	return nil
}

// TestPushInPieces: files bigger than a batch's byte budget, one line
// longer than the budget itself, go in several commits and converge.
func TestPushInPieces(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	url := d.role(t, "pieces")
	a := newAgentDir(t)
	big := a.create(t, 40)
	appendExchange(t, big, "long", "", strings.Repeat("a very long question ", 1000))
	small := a.create(t, 1)
	cat := openCatalog(t, a)
	p := startPusher(t, Options{URL: url, Machine: "pieces", Source: cat, MaxBytes: 4 << 10})
	conn := d.admin(t)
	ctx := context.Background()
	eventually(t, func() error {
		for _, path := range []string{big, small} {
			if err := converged(ctx, conn, cat, "pieces", path); err != nil {
				return err
			}
		}
		return nil
	}, "the push in pieces")
	if s := p.Status(); s.Pushed.Batches < 5 {
		t.Errorf("%d batches, want the big file in several", s.Pushed.Batches)
	}
	wantBranch(t, conn, big, []string{"longu", "longa"})
}

// TestNonUTF8Path: a session file whose name is not UTF-8 (PostgreSQL
// text cannot hold it) stays local; the others are pushed.
func TestNonUTF8Path(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	url := d.role(t, "latin")
	a := newAgentDir(t)
	good := a.create(t, 1)
	bad := strings.Replace(good, "_0199", "_\xff0199", 1)
	if err := os.WriteFile(bad, testkit.ReadFile(t, good), 0o644); err != nil {
		t.Fatal(err)
	}
	cat := openCatalog(t, a)
	if _, listed := cat.ByPath(bad); !listed {
		t.Skip("the catalog does not list the file")
	}
	startPusher(t, Options{URL: url, Machine: "latin", Source: cat})
	conn := d.admin(t)
	eventually(t, func() error { return converged(context.Background(), conn, cat, "latin", good) }, "the good file")
}
