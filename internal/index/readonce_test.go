package index

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
	"piweb/pisession"
)

// TestTextPassReadsEachByteOnce: after the listing, the text pass reads
// every byte of the corpus once (issue 24 item 3), a big file's parts
// included: each part takes over the bytes the one before read past its
// last line (it read a 64 KB probe for the part's first line end, then
// the part, before: 2.9x the corpus for a cold index of small files).
func TestTextPassReadsEachByteOnce(t *testing.T) {
	dir := genCorpus(t, corpus.Options{Files: 20, Bytes: 1 << 20, Seed: 3})
	writeBig(t, dir, 10<<20) // two parts of textPart, lines of 1 MB
	size := corpusBytes(pisession.SessionFiles(dir))
	ix := openTest(t, dir)
	if _, err := ix.Sync(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	before := ix.BytesRead()
	syncAll(t, ix)
	if got := ix.BytesRead() - before; got != size {
		t.Errorf("text pass read %d bytes of a %d-byte corpus, want each byte once", got, size)
	}
	if got := search(t, ix, Query{Text: "read the big file"}); !got["u0"] {
		t.Error("the big file's text is not searchable")
	}
}

// TestColdIndexReadsEachByteOnce: a cold Sync with text reads each byte
// once (oneRead), a file bigger than a text part too (in parts, each
// checking the header line and the 64 bytes before it as an append's
// read does), and builds the index the listing-first passes of Watch
// build, row for row.
func TestColdIndexReadsEachByteOnce(t *testing.T) {
	dir := genCorpus(t, corpus.Options{Files: 30, Bytes: 2 << 20, Seed: 4})
	writeEdgeFiles(t, dir)
	writeBig(t, dir, 10<<20) // two parts, lines of 1 MB cut by them
	size := corpusBytes(pisession.SessionFiles(dir))
	once := openTest(t, dir)
	syncAll(t, once)
	if got := once.BytesRead(); got < size || got > size+1<<10 {
		t.Errorf("cold index read %d bytes of a %d-byte corpus, want each once (and under 1 KB of checks)", got, size)
	}
	checkAsListingFirst(t, once, dir, "one read")
}

// checkAsListingFirst compares once's index of dir, row for row, with the
// one the listing-first passes of Watch build (what names once's way).
func checkAsListingFirst(t *testing.T, once *Index, dir, what string) {
	t.Helper()
	twice := openTest(t, dir)
	if _, err := twice.sync(context.Background(), true, false); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(dumpIndex(t, twice), dumpIndex(t, once)); diff != "" {
		t.Errorf("%s vs listing first (-want +got):\n%s", what, diff)
	}
	checkList(t, once, dir)
}

// dumpIndex lists what the index holds of every file, without its row
// ids (the order files were written in decides those) and the branch
// positions of entries off the branch (a branch that moved in an append
// leaves them, and nothing reads them).
func dumpIndex(t *testing.T, ix *Index) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT path, listall, dev, ino, size, mtime_ns, offset, line, hdr_off, hdr_len, hex(hdr_hash), hex(tail_hash),
			text_offset, text_line, error, listed, session_id, id_raw, cwd, parent_raw, parent_path, created, created_str,
			name, has_name, activity, msg_count, first_message, first_size, body, meta, problems, modified, info_json FROM files`,
		`SELECT f.path, e.eid, e.parent, e.type, e.role, e.ts, e.model, e.on_branch, CASE WHEN e.on_branch THEN e.bpos ELSE -1 END, e.off, e.len, coalesce(x.text, '')
			FROM entries e JOIN files f ON f.id = e.file_id LEFT JOIN fts x ON x.rowid = e.rowid`,
		`SELECT f.path, u.slot, u.model, u.copy, u.input, u.output, u.cache_read, u.cache_write, u.cost, u.messages
			FROM usage u JOIN files f ON f.id = u.file_id`,
		`SELECT f.path, m.model FROM file_models m JOIN files f ON f.id = m.file_id`,
		`SELECT term FROM vocab`,
	} {
		rows, err := ix.db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(vals...))
		}
		rows.Close()
	}
	slices.Sort(out)
	return out
}

// TestColdIndexInSmallParts: with parts of 700 bytes every file is read in
// parts, most lines cut by a part's end and many longer than a part; the
// index is still the one of the listing-first passes, with no text left
// behind.
func TestColdIndexInSmallParts(t *testing.T) {
	defer func(p int64) { textPart = p }(textPart)
	textPart = 700
	dir := genCorpus(t, corpus.Options{Files: 8, Bytes: 256 << 10, Seed: 5})
	writeEdgeFiles(t, dir)
	once := openTest(t, dir)
	syncAll(t, once)
	var behind int
	once.db.QueryRow(`SELECT count(*) FROM files WHERE text_offset < offset`).Scan(&behind)
	if behind != 0 {
		t.Errorf("%d files' text behind after a cold sync", behind)
	}
	checkAsListingFirst(t, once, dir, "one read in parts")
}
