package index

import (
	"context"
	"fmt"
	"testing"
)

// TestHeldText: the text rows of a transaction are written a row a
// statement by the text writer, so that FTS5 makes one segment of them,
// not one per statement (textwriter.go); rows sent before a file's
// entries are cleared are cleared too, so that none is left without its
// entry.
func TestHeldText(t *testing.T) {
	for _, tc := range []struct {
		name       string
		clear      bool
		maxData    int // most fts_data rows after the transaction (7 if not held)
		wantTexts  int
		wantOrphan int
	}{
		{name: "held", maxData: 4, wantTexts: 40},
		{name: "held then cleared", clear: true, maxData: 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			ix := openTest(t, t.TempDir())
			tx, err := ix.wdb.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			for i := range 5 { // rows of file 1, batchSmall at a time, as insertEntries writes them
				var entries, texts []any
				for j := range batchSmall {
					id := int64(batchSmall*i + j + 1)
					entries = append(entries, id, 1, fmt.Sprint("e", id), "", "message", "user", 0, "", false, -1, 0, 0)
					texts = append(texts, id, fmt.Sprintf("word%d common", id))
				}
				if err := ix.entryIns.exec(ctx, tx, entries); err != nil {
					t.Fatal(err)
				}
				ix.textW.insertText(ctx, texts)
			}
			if tc.clear {
				if err := ix.clearEntries(ctx, tx, 1); err != nil {
					t.Fatal(err)
				}
			}
			if err := ix.commit(ctx, tx); err != nil {
				t.Fatal(err)
			}
			var data, texts, orphans int
			ix.db.QueryRow(`SELECT count(*) FROM fts_data`).Scan(&data)
			ix.db.QueryRow(`SELECT count(*) FROM fts`).Scan(&texts)
			ix.db.QueryRow(`SELECT count(*) FROM fts WHERE rowid NOT IN (SELECT rowid FROM entries)`).Scan(&orphans)
			if data > tc.maxData || texts != tc.wantTexts || orphans != tc.wantOrphan {
				t.Errorf("fts_data rows %d (at most %d), texts %d (want %d), without entry %d (want %d)",
					data, tc.maxData, texts, tc.wantTexts, orphans, tc.wantOrphan)
			}
		})
	}
}
