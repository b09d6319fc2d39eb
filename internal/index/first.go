package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"piweb/internal/jsjson"
)

// A session's first message is pi's whole first user text, which can be a
// pasted log of tens of MB (issue 21: a 52 MB one took 1.4 GB to index).
// It is stored once: the files row keeps its head (at most firstHead
// bytes, for Sessions and the listing's small readers) and its size, and a
// longer one is kept whole in the firsts table in parts of firstPart bytes,
// written when it changes and read only by the answers that give pi's
// whole listing (List, ListJSON). The files row, which every text-pass
// part rewrites, stays small. See docs/decisions/0022-huge-first-message.md.

// firstHead is the most of a first message the files row holds.
const firstHead = 16 << 10

// firstPart is the size of the parts a long first message is kept in, so
// that neither its write nor its read hands SQLite a value of its size.
const firstPart = 1 << 20

// headOfFirst is s cut to firstHead bytes at a rune start.
func headOfFirst(s string) string { return jsjson.Cut(s, firstHead) }

// saveFirst keeps the whole first message of file id when it is longer
// than its head, and drops the one kept before (old is the row before the
// update, nil for a new file). A message the update did not read (an
// earlier one kept it: FirstStored) is left as it is.
func saveFirst(ctx context.Context, tx *sql.Tx, id int64, b body, old *fileRow) error {
	if b.FirstStored {
		return nil
	}
	if old != nil && old.body.FirstSize > firstHead {
		if _, err := tx.ExecContext(ctx, `DELETE FROM firsts WHERE file_id = ?`, id); err != nil {
			return wrap("first message", err)
		}
	}
	s := b.FirstMessage
	if len(s) <= firstHead {
		return nil
	}
	for part := 0; len(s) > 0; part++ {
		p := jsjson.Cut(s, firstPart)
		if _, err := tx.ExecContext(ctx, `INSERT INTO firsts(file_id, part, text) VALUES(?, ?, ?)`, id, part, p); err != nil {
			return wrap("first message", err)
		}
		s = s[len(p):]
	}
	return nil
}

// readFirst returns the whole first message of file id, whose head and
// size the files row holds.
func readFirst(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, id int64, head string, size int64) (string, error) {
	if int64(len(head)) >= size {
		return head, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT text FROM firsts WHERE file_id = ? ORDER BY part`, id)
	if err != nil {
		return "", wrap("first message", err)
	}
	defer rows.Close()
	var b strings.Builder
	b.Grow(int(size))
	for rows.Next() {
		var p sql.RawBytes
		if err := rows.Scan(&p); err != nil {
			return "", wrap("first message", err)
		}
		b.Write(p)
	}
	if err := rows.Err(); err != nil {
		return "", wrap("first message", err)
	}
	if int64(b.Len()) != size {
		return "", fmt.Errorf("index: first message of file %d: %d bytes kept, not %d", id, b.Len(), size)
	}
	return b.String(), nil
}
