package index

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// textPart is the most a text pass update holds of a file: a big session
// is read and written in parts of whole lines, in order, so that the pass
// holds a few such parts in memory instead of a few whole files (sessions
// of hundreds of MB exist).
var textPart int64 = 8 << 20

// prepareText reads the lines of a file that are in the listing but not yet
// in the text index, in parts of about textPart bytes, and emits an update
// per part. It only reads complete lines the listing pass already parsed;
// a file that changed since is left to the next listing pass (the writer
// checks the offsets).
func (ix *Index) prepareText(ctx context.Context, path string, b *budget, emit func(*update)) {
	old, err := loadRow(ctx, ix.db, path)
	if err != nil || old == nil {
		emit(&update{path: path, skip: true})
		return
	}
	f, err := ix.open(path)
	if err != nil {
		emit(&update{path: path, skip: true})
		return
	}
	defer f.Close()
	from, line := old.textOffset, old.textLin
	var rest []byte
	for from < old.offset && ctx.Err() == nil {
		var u *update
		u, rest = ix.textPartOf(f, old, from, line, b, rest)
		// Read before emit: the writer may apply u and clear it (done)
		// while this loop goes on.
		skip, next, nextLine := u.skip, u.offset, u.line
		emit(u)
		if skip {
			return
		}
		from, line = next, nextLine
	}
}

// textPartOf reads and parses the part of the text backlog that starts at
// from, at line line+1: the whole lines within textPart bytes, or the one
// line that is longer, read into a buffer of its size once the workers'
// read budget has room for it. carry is the start of the part, read with
// the part before; it returns what it read beyond its last line, for the
// next part, so that each byte is read once.
func (ix *Index) textPartOf(f readFile, old *fileRow, from, line int64, b *budget, carry []byte) (*update, []byte) {
	skip := &update{path: old.path, skip: true}
	data, rest, held, err := ix.readPart(f, from, old.offset, b, carry)
	if err != nil {
		return skip, nil
	}
	c, _ := feedChunk(data, from, int(line), true)
	if c.consumed != len(data) {
		ix.warn("text pass read part of a file", "path", old.path, "read", c.consumed, "size", len(data))
		b.release(held)
		return skip, nil
	}
	// A later part is an append to the text already written.
	part := *old
	part.textOffset, part.textLin = from, line
	u := &update{path: old.path, old: &part, textOnly: true, text: true, textFrom: from,
		offset: from + int64(len(data)), line: line + int64(c.lines), fid: old.fid,
		budget: b, held: held}
	u.noteHuge(int64(len(data)))
	u.entries = c.entries
	u.msgs = make([]*msg, len(c.entries))
	for i, e := range c.entries {
		u.msgs[i] = entryMsg(e, ix.o.Tools)
	}
	return u, rest
}

// readPart reads the part of a file's text backlog that starts at from,
// up to textPart bytes and at most to end (a line end), carry being its
// first bytes, read already. It returns the part's whole lines, what it
// read after them, and the budget it holds for the lines. A line longer
// than the part is read whole, into a buffer of its size, once the
// budget has room for it (its end is found first, so that its bytes after
// the part are read twice).
func (ix *Index) readPart(f readFile, from, end int64, b *budget, carry []byte) (data, rest []byte, held int64, err error) {
	to := min(end, from+textPart)
	held = b.acquire(to - from)
	data = make([]byte, to-from)
	n := copy(data, carry)
	if _, err = ix.readInto(f, data[n:], from+int64(n), to); err != nil {
		b.release(held)
		return nil, nil, 0, err
	}
	if to == end {
		return data, nil, held, nil
	}
	if cut := bytes.LastIndexByte(data, '\n') + 1; cut > 0 {
		return data[:cut], bytes.Clone(data[cut:]), held, nil
	}
	long, err := ix.lineEnd(f, to, end)
	b.release(held)
	if err != nil {
		return nil, nil, 0, err
	}
	held = b.acquire(long - from)
	whole := make([]byte, long-from)
	copy(whole, data)
	if _, err = ix.readInto(f, whole[len(data):], to, long); err != nil {
		b.release(held)
		return nil, nil, 0, err
	}
	return whole, nil, held, nil
}

// applyText writes a text-only update if the file is still as it was read.
func (ix *Index) applyText(ctx context.Context, tx *sql.Tx, u *update) (bool, error) {
	res, err := tx.ExecContext(ctx, `UPDATE files SET text_offset = ?, text_line = ? WHERE id = ? AND text_offset = ? AND offset = ?`,
		u.offset, u.line, u.old.id, u.textFrom, u.old.offset)
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

// bulkBytes is the text backlog from which a text pass is a bulk pass: its
// new words are listed once at the end, from FTS5's own list, instead of
// tokenizing all the text a second time (vocab.go).
var bulkBytes int64 = 32 << 20 // a variable for tests

// syncText brings the text of every file up to its parsed offset, oldest
// sessions first so that rowids grow with time (search ranks recent hits
// by rowid).
//
// The pass lets other writers in between its parts (a live session must
// not wait seconds for a big file's text): a file one of them changed
// meanwhile has its later parts refused (applyText), and is taken up
// again from where its text stopped, up to textRounds times.
//
// bulk is set when the listing pass before it started a bulk pass already
// (oneRead), which this one finishes.
func (ix *Index) syncText(ctx context.Context, bulk bool) (int, error) {
	defer func() { ix.bulkText = false }()
	paths, backlog, err := ix.textBacklog(ctx)
	if err != nil {
		return 0, err
	}
	var ok bool
	err = ix.textW.read(func(q querier) error {
		var err error
		ok, err = vocabOK(ctx, q)
		return err
	})
	if err != nil {
		return 0, err
	}
	if !bulk && backlog >= bulkBytes {
		if err := ix.startBulk(ctx); err != nil {
			return 0, err
		}
		bulk = true
	}
	ix.bulkText = bulk
	n := len(paths)
	for round := 0; len(paths) > 0 && round < textRounds && err == nil; round++ {
		err = ix.runEach(ctx, len(paths), true, func(i int, b *budget, emit func(*update)) { ix.prepareText(ctx, paths[i], b, emit) })
		if err == nil {
			paths, _, err = ix.textBacklog(ctx)
		}
	}
	if err == nil && (ix.bulkText || !ok) {
		err = ix.finishBulk(ctx)
	}
	return n, err
}

// textRounds bounds the text pass's rounds: a file written to all the time
// is left behind after that (its appends are indexed with their text once
// it has caught up, at the next sync).
const textRounds = 3

// textBacklog lists the files whose text is behind, oldest first, and the
// bytes to read.
func (ix *Index) textBacklog(ctx context.Context) ([]string, int64, error) {
	rows, err := ix.wdb.QueryContext(ctx, `SELECT path, offset - text_offset FROM files
		WHERE text_offset < offset AND error = '' ORDER BY created, id`)
	if err != nil {
		return nil, 0, wrap("text backlog", err)
	}
	defer rows.Close()
	var paths []string
	var total int64
	for rows.Next() {
		var p string
		var n int64
		if err := rows.Scan(&p, &n); err != nil {
			return nil, 0, wrap("text backlog", err)
		}
		paths, total = append(paths, p), total+n
	}
	return paths, total, wrap("text backlog", rows.Err())
}

// bulkFTS are FTS5's settings for a bulk pass: text is kept in memory up to
// 64 MB before it is written as a segment (1 MB by default), and segments
// are not merged as they come (automerge), nor when 16 wait on a level
// (crisismerge: 64), since they are all merged after it (Tidy). The
// crisis merges were 1-2 s of a 2.16 GB build's critical path, the text
// writer; its 20 segments instead of 5 cost searches up to 4 ms more (a
// prefix of one letter, 3.0 -> 7.0 ms p50) until the merge. normalFTS are
// the defaults, for small updates.
var (
	bulkFTS   = [][2]any{{"hashsize", 64 << 20}, {"automerge", 0}, {"crisismerge", 64}}
	normalFTS = [][2]any{{"hashsize", 1 << 20}, {"automerge", 4}, {"crisismerge", 16}}
)

func setFTS(ctx context.Context, tx *sql.Tx, settings [][2]any) error {
	for _, kv := range settings {
		if _, err := tx.ExecContext(ctx, `INSERT INTO fts(fts, rank) VALUES(?, ?)`, kv[0], kv[1]); err != nil {
			return wrap("fts settings", err)
		}
	}
	return nil
}

// startBulk marks the vocabulary stale and sets FTS5 up for a bulk pass,
// whose segments it marks for a merge (tidy.go).
func (ix *Index) startBulk(ctx context.Context) error {
	return ix.textOnly(ctx, func(tx *sql.Tx) error {
		if err := setVocab(ctx, tx, false); err != nil {
			return err
		}
		if err := markMerge(ctx, tx); err != nil {
			return err
		}
		return setFTS(ctx, tx, bulkFTS)
	})
}

// finishBulk restores FTS5's settings after a bulk pass (also after an
// interrupted one) and lists the index's words, on the text writer, while
// this goroutine creates the branch index a bulk pass may have dropped
// (dropBranchIndex). FTS5's segments are merged later (Tidy).
func (ix *Index) finishBulk(ctx context.Context) error {
	ix.textW.run(ctx, func(tx *sql.Tx) error {
		if err := setFTS(ctx, tx, normalFTS); err != nil {
			return err
		}
		return rebuildVocab(ctx, tx)
	})
	err := createBranchIndex(ctx, ix.wdb)
	// The writer's page cache is not needed until the next write: its
	// pages go back while the word list takes memory of its own.
	ix.wdb.ExecContext(ctx, `PRAGMA shrink_memory`)
	err = errors.Join(err, ix.textW.commit())
	ix.textW.read(func(q querier) error { q.QueryRowContext(ctx, `PRAGMA shrink_memory`).Scan(); return nil })
	return err
}

// textOnly runs fn in a transaction of the text file alone, as the index's
// writer (which holds no transaction).
func (ix *Index) textOnly(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := ix.textW.wait(ctx, fn); err != nil {
		ix.textW.rollback()
		return err
	}
	return ix.textW.commit()
}
