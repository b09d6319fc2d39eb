package index

import (
	"context"
	"strings"
)

// SessionsOf returns the metadata of the indexed files among paths, in no
// order; a path the index does not hold has none. It is Sessions for a
// few files (the ones an event named), reading only their rows: at
// 100,000 sessions, reading every row after each change held the
// catalog's memory and CPU (decision 0036). ParentSessionID is resolved
// by the parent's path only (not by the id in its file name, as Sessions
// also does).
func (ix *Index) SessionsOf(ctx context.Context, paths []string) ([]Meta, error) {
	var out []Meta
	for len(paths) > 0 {
		n := min(len(paths), 500)
		args := make([]any, n)
		for i, p := range paths[:n] {
			args[i] = p
		}
		q := metaSelect + ` WHERE f.path IN (?` + strings.Repeat(`, ?`, n-1) + `)`
		ms, err := ix.metasOf(ctx, q, args)
		if err != nil {
			return nil, err
		}
		out, paths = append(out, ms...), paths[n:]
	}
	return out, nil
}

func (ix *Index) metasOf(ctx context.Context, q string, args []any) ([]Meta, error) {
	var out []Meta
	err := ix.eachMeta(ctx, q, args, func(m Meta) error { out = append(out, m); return nil })
	return out, err
}

// EachSession calls fn with the Meta of every indexed file, in no order,
// as it reads them: a caller that keeps part of each (the catalog's
// reload) holds one row at a time, not 100,000 (Sessions sorts them and
// links forks by name, and needs them all). An error of fn ends the read.
func (ix *Index) EachSession(ctx context.Context, fn func(Meta) error) error {
	return ix.eachMeta(ctx, metaSelect, nil, fn)
}

func (ix *Index) eachMeta(ctx context.Context, q string, args []any, fn func(Meta) error) error {
	rows, err := ix.db.QueryContext(ctx, q, args...)
	if err != nil {
		return wrap("sessions", err)
	}
	defer rows.Close()
	for rows.Next() {
		m, err := scanMeta(rows)
		if err != nil {
			return err
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return wrap("sessions", rows.Err())
}

// TextBehind counts the files whose text is not yet searchable (those
// whose Meta.TextBehind is set), reading no file's metadata.
func (ix *Index) TextBehind(ctx context.Context) (int, error) {
	var n int
	err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM files WHERE text_offset < offset`).Scan(&n)
	return n, wrap("text behind", err)
}
