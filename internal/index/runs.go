package index

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"piweb/pisession"
)

// A run is a range of consecutive entry rowids of one file with the range
// of their times, written with the entries; search turns its filters into
// rowid ranges with them (filter.go). Entries of one file written in one
// batch have consecutive rowids (one writer), so a cold pass makes one run
// per file; an append extends the file's last run when no other file was
// written in between, else it starts a new one. file_models lists the
// models each file used (assistant messages and model changes), for the
// model filter.
type run struct {
	lo, hi     int64
	tsLo, tsHi int64
	models     []string
	filled     bool
}

// add records one written entry.
func (r *run) add(rowid, ts int64, model string) {
	if !r.filled {
		r.lo, r.tsLo, r.tsHi, r.filled = rowid, ts, ts, true
	}
	r.hi, r.tsLo, r.tsHi = rowid, min(r.tsLo, ts), max(r.tsHi, ts)
	if model != "" && !slices.Contains(r.models, model) {
		r.models = append(r.models, model)
	}
}

// save writes the run and the models, extending the file's last run when
// it ends just before this one.
func (r *run) save(ctx context.Context, tx *sql.Tx, ws stmts, fileID int64) error {
	if !r.filled {
		return nil
	}
	// Each statement here writes one row: a statement that may write
	// several needs a statement journal, and opening one makes FTS5 flush
	// its pending text to a new segment, once per file instead of per MB.
	var lo int64
	err := ws.in(ctx, tx, runLoSQL).QueryRowContext(ctx, fileID, r.lo-1).Scan(&lo)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = ws.in(ctx, tx, runInsSQL).ExecContext(ctx, r.lo, r.hi, fileID, r.tsLo, r.tsHi)
	case err == nil:
		_, err = ws.in(ctx, tx, runUpdSQL).ExecContext(ctx, r.hi, r.tsLo, r.tsHi, lo)
	}
	if err != nil {
		return wrap("save run", err)
	}
	for _, m := range r.models {
		if _, err := ws.in(ctx, tx, modelSQL).ExecContext(ctx, m, fileID); err != nil {
			return wrap("save models", err)
		}
	}
	return nil
}

const (
	runLoSQL  = `SELECT lo FROM runs WHERE file_id = ? AND hi = ?`
	runInsSQL = `INSERT INTO runs(lo, hi, file_id, ts_lo, ts_hi) VALUES(?, ?, ?, ?, ?)`
	runUpdSQL = `UPDATE runs SET hi = ?, ts_lo = min(ts_lo, ?), ts_hi = max(ts_hi, ?) WHERE lo = ?`
	modelSQL  = `INSERT OR IGNORE INTO file_models(model, file_id) VALUES(?, ?)`
)

// entryModel names the model an entry shows the file used, as the
// metadata does: an assistant message's, or a model change's.
func entryModel(e *pisession.Entry, m *msg) string {
	if m != nil && e.Type == "message" && m.Role == "assistant" {
		return modelName(m.Provider, m.Model)
	}
	if e.Type == "model_change" {
		provider, _ := e.String("provider")
		id, _ := e.String("modelId")
		return modelName(provider, id)
	}
	return ""
}

// clearText deletes a file's entries, runs and models, and sends the
// deletion of its text to the text writer, a row a statement (as
// textWriter.insertText writes them).
func (ix *Index) clearText(ctx context.Context, tx *sql.Tx, fileID int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT rowid FROM entries WHERE file_id = ?`, fileID)
	ids, err := collect(rows, err, "clear entries", func(r *sql.Rows, v *int64) error { return r.Scan(v) })
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		ix.textW.run(ctx, func(ttx *sql.Tx) error {
			stmt, err := ttx.PrepareContext(ctx, `DELETE FROM fts WHERE rowid = ?`)
			if err != nil {
				return wrap("clear text", err)
			}
			defer stmt.Close()
			for _, id := range ids {
				if _, err := stmt.ExecContext(ctx, id); err != nil {
					return wrap("clear text", err)
				}
			}
			return nil
		})
	}
	for _, q := range []string{
		`DELETE FROM entries WHERE file_id = ?`,
		`DELETE FROM runs WHERE file_id = ?`,
		`DELETE FROM file_models WHERE file_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, fileID); err != nil {
			return wrap("clear entries", err)
		}
	}
	return nil
}
