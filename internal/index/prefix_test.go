package index

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// writeWords writes a session with one user entry per text.
func writeWords(t testing.TB, dir, name string, texts ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(hdr + "\n")
	parent := ""
	for i, text := range texts {
		id := name + string(rune('a'+i))
		b.WriteString(line(id, parent, "user", text, i%60))
		parent = id
	}
	return writeSession(t, dir, name, b.String())
}

// hitIDs returns the entry ids a query finds, sorted.
func hitIDs(t *testing.T, ix *Index, text string) []string {
	t.Helper()
	hits := searchOK(t, ix, Query{Text: text, Limit: 100})
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.EntryID)
	}
	slices.Sort(ids)
	return ids
}

// TestSearchPrefix checks that prefixes find the same entries whether they
// are rewritten from the vocabulary or left to FTS5, after a cold pass and
// after live appends of new words.
func TestSearchPrefix(t *testing.T) {
	dir := t.TempDir()
	p := writeWords(t, dir, "s", "migration of the schema", "migrate now", "Migräne heute", "a mig-ration typo",
		"foo.bar baz", "the functional function", "café au lait", "straße")
	ix := openTest(t, dir)
	syncAll(t, ix)
	testkit.AppendFile(t, p, line("late", "sh", "user", "migrating birds and foo.barbell", 59))
	syncAll(t, ix)
	tests := []struct {
		q    string
		want []string
	}{
		{"mig*", []string{"late", "sa", "sb", "sc", "sd"}},
		{"migr*", []string{"late", "sa", "sb", "sc"}},
		{"migra*", []string{"late", "sa", "sb", "sc"}},
		{"MIGRATION*", []string{"sa"}},
		{`"the func"*`, []string{"sf"}},
		{`"foo.bar"*`, []string{"late", "se"}},
		{"foo.bar*", []string{"late", "se"}},
		{"caf*", []string{"sg"}},
		{"café*", []string{"sg"}},
		{"straß*", []string{"sh"}},
		{"zz*", nil},
		{"mig* zz*", nil},
		{"mig* schema", []string{"sa"}},
	}
	check := func(state string) {
		for _, tt := range tests {
			if diff := cmp.Diff(tt.want, hitIDs(t, ix, tt.q)); diff != "" {
				t.Errorf("%s: %q (-want +got):\n%s", state, tt.q, diff)
			}
		}
	}
	if ok, err := vocabOK(context.Background(), ix.db); err != nil || !ok {
		t.Fatalf("vocabulary not complete after sync: %v %v", ok, err)
	}
	check("vocabulary")
	if err := ix.textOnly(context.Background(), func(tx *sql.Tx) error { return setVocab(context.Background(), tx, false) }); err != nil {
		t.Fatal(err)
	}
	check("FTS5 prefixes")
}

// TestPrefixExpansion checks that a prefix with too many completions is
// left to FTS5 and still finds every entry.
func TestPrefixExpansion(t *testing.T) {
	dir := t.TempDir()
	var texts []string
	for i := range maxExpand + 10 {
		texts = append(texts, "word"+itoa26(i))
	}
	writeWords(t, dir, "s", strings.Join(texts, " "), "wordy", "other")
	ix := openTest(t, dir)
	syncAll(t, ix)
	if got := hitIDs(t, ix, "word*"); !slices.Equal(got, []string{"sa", "sb"}) {
		t.Errorf("word*: %v", got)
	}
	expand, err := expander(context.Background(), ix.db)
	if err != nil || expand == nil {
		t.Fatal("no expander", err)
	}
	if _, ok := expand("word"); ok {
		t.Error("a prefix of more than maxExpand words was expanded")
	}
	if words, ok := expand("wordy"); !ok || !slices.Equal(words, []string{"wordy"}) {
		t.Errorf("wordy: %v %v", words, ok)
	}
	// A partial answer names the prefixes FTS5 merged (decision 0036).
	ix.o.BudgetFrom, ix.o.SearchBudget = -1, time.Nanosecond
	for text, want := range map[string][]string{"word*": {"word*"}, "other wordy* Word*": {"Word*"}, "wordy*": nil} {
		a, err := ix.Answer(context.Background(), Query{Text: text, Limit: 10})
		if err != nil || !a.Partial || !slices.Equal(a.Wide, want) {
			t.Errorf("%s at its budget: partial %v, wide %q (%v); want partial, wide %q", text, a.Partial, a.Wide, err, want)
		}
	}
}

// itoa26 writes n in letters, which the tokenizer keeps in one word.
func itoa26(n int) string {
	s := ""
	for {
		s = string(rune('a'+n%26)) + s
		if n /= 26; n == 0 {
			return s
		}
	}
}

// FuzzASCIIWords checks that asciiWords splits ASCII text into the words
// FTS5's tokenizer makes of it.
func FuzzASCIIWords(f *testing.F) {
	for _, s := range []string{"a", "foo.bar", "A_b-C", "x$y+z", "tab\tnew\nline", "a'b", "1.5e3", "~`!@#%^&*()[]{}|\\;:<>,/?"} {
		f.Add(s)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{`CREATE VIRTUAL TABLE t USING fts5(text, ` + tokenizer + `)`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)`} {
		if _, err := db.Exec(q); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, ok := asciiWords(s)
		if !ok {
			return
		}
		db.Exec(`DELETE FROM t`)
		if _, err := db.Exec(`INSERT INTO t(rowid, text) VALUES(1, ?)`, s); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(`SELECT term FROM v ORDER BY offset`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var want []string
		for rows.Next() {
			var w string
			rows.Scan(&w)
			want = append(want, w)
		}
		if diff := cmp.Diff(want, words); diff != "" {
			t.Errorf("%q (-fts5 +asciiWords):\n%s", s, diff)
		}
	})
}

// TestBulkPass checks that a bulk text pass ends with a complete word list
// (prefixes rewritten from it match the rows FTS5's own prefixes match) and
// leaves FTS5's settings as they were.
func TestBulkPass(t *testing.T) {
	// Not parallel: it sets bulkBytes, which every other test's text pass reads.
	dir := genCorpus(t, corpus.Options{Files: 12, Bytes: 2 << 20, Seed: 5})
	defer func(b int64) { bulkBytes = b }(bulkBytes)
	bulkBytes = 1
	ix := openTest(t, dir)
	syncAll(t, ix)
	ctx := context.Background()
	expand, err := expander(ctx, ix.db)
	if err != nil || expand == nil {
		t.Fatalf("vocabulary not complete: %v", err)
	}
	rows, err := ix.db.Query(`SELECT k, v FROM fts_config WHERE k IN ('hashsize', 'automerge') ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var k, v string
		rows.Scan(&k, &v)
		got = append(got, k+"="+v)
	}
	rows.Close()
	if !slices.Equal(got, []string{"automerge=4", "hashsize=1048576"}) {
		t.Errorf("settings after a bulk pass: %v", got)
	}
	count := func(match string) (n int) {
		if err := ix.db.QueryRow(`SELECT count(*) FROM fts WHERE fts MATCH ?`, match).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, q := range []string{"conf*", "f*", "t*", `"the func"*`, "zq*", "zqa*"} {
		rewritten, _ := ftsQuery(q, expand)
		native, _ := ftsQuery(q, nil)
		if rewritten == native {
			t.Errorf("%q was not rewritten", q)
		}
		if r, n := count(rewritten), count(native); r != n || n == 0 {
			t.Errorf("%q: %d rows rewritten, %d with FTS5's prefix", q, r, n)
		}
	}
}

// TestTextParts checks that reading files in parts of a few lines gives the
// branch flags pi computes and the same text as whole files.
func TestTextParts(t *testing.T) {
	dir := genCorpus(t, corpus.Options{Files: 6, Bytes: 1 << 20, Seed: 11})
	counts := map[int64]string{}
	for _, part := range []int64{textPart, 700} {
		defer func(p int64) { textPart = p }(textPart)
		textPart = part
		ix := openTest(t, dir)
		syncAll(t, ix)
		for _, p := range pisession.SessionFiles(dir) {
			checkBranch(t, ix, p)
		}
		var n int
		ix.db.QueryRow(`SELECT count(*) FROM fts`).Scan(&n)
		counts[part] = fmt.Sprint(n, strings.Join(hitIDs(t, ix, "the function"), ","))
	}
	if counts[700] != counts[textPart] {
		t.Errorf("in parts: %.80s, whole: %.80s", counts[700], counts[textPart])
	}
}
