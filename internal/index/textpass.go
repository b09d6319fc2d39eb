package index

import (
	"context"
	"database/sql"
	"fmt"
)

// prepareText reads the lines of a file that are in the listing but not yet
// in the text index. It only reads complete lines the listing pass already
// parsed; a file that changed since is left to the next listing pass (the
// writer checks the offsets).
func (ix *Index) prepareText(ctx context.Context, path string) *update {
	old, err := loadRow(ctx, ix.db, path)
	if err != nil || old == nil {
		return &update{path: path, skip: true}
	}
	u := &update{path: path, old: old, textOnly: true, text: true, textFrom: old.textOffset, offset: old.offset, line: old.line, fid: old.fid}
	f, err := ix.open(path)
	if err != nil {
		return &update{path: path, skip: true}
	}
	defer f.Close()
	data, err := ix.readAt(f, old.textOffset, old.offset)
	if err != nil {
		return &update{path: path, skip: true}
	}
	c := parseChunk(data, old.textOffset, int(old.textLin), true)
	if int64(c.consumed) != old.offset-old.textOffset {
		ix.logf("%s: text pass read %d of %d bytes", path, c.consumed, old.offset-old.textOffset)
		return &update{path: path, skip: true}
	}
	u.entries = c.entries
	u.msgs = make([]*msg, len(c.entries))
	for i, e := range c.entries {
		if e.Type == "message" {
			m := decodeMessage(e.Field("message"), true)
			u.msgs[i] = &m
		}
	}
	return u
}

// applyText writes a text-only update if the file is still as it was read.
func (ix *Index) applyText(ctx context.Context, tx *sql.Tx, u *update) (bool, error) {
	res, err := tx.ExecContext(ctx, `UPDATE files SET text_offset = ?, text_line = ? WHERE id = ? AND text_offset = ? AND offset = ?`,
		u.offset, u.line, u.old.id, u.textFrom, u.offset)
	if err != nil {
		return false, wrap("text offset", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return false, nil
	}
	if err := ix.writeText(ctx, tx, u.old.id, u); err != nil {
		return false, fmt.Errorf("index: text of %s: %w", u.path, err)
	}
	return true, nil
}
