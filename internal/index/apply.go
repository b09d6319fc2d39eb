package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"time"

	"piweb/internal/jsjson"
	"piweb/pisession"
)

// Event tells subscribers that a session changed.
type Event struct {
	Path      string `json:"path"`
	SessionID string `json:"sessionId"`
	// Appended lists the ids of the entries added at the end of the file,
	// in file order. When Reset is set the file was reread from the start
	// (replaced, rewritten or new) and Appended lists all its entries.
	Appended []string `json:"appended,omitempty"`
	Reset    bool     `json:"reset,omitempty"`
	Removed  bool     `json:"removed,omitempty"`
	// Problem is set when the file could not be read.
	Problem string `json:"problem,omitempty"`
	// End is the offset after the file's last complete line. From and
	// Lines are the growth of a file read incrementally (not Reset): the
	// complete lines appended, as read once by the index, starting at
	// file offset From. Readers of new lines (live session views, the agent's check
	// for other writers) take them from here instead of reading the file
	// again. Lines is nil when nothing complete was appended, or when the
	// growth was over 8 MB (LinesOver: read the file).
	From      int64  `json:"-"`
	Lines     []byte `json:"-"`
	End       int64  `json:"-"`
	LinesOver bool   `json:"-"`
}

// applySafe is apply for any update: a panic while writing it (a fault of
// piweb's, which no file's content may turn into a dead process) is logged
// and makes the file an unreadable one, retried on the next scan.
func (ix *Index) applySafe(ctx context.Context, tx *sql.Tx, u *update) (ev Event, err error) {
	defer func() {
		if v := recover(); v != nil {
			ix.o.Log.Error("index: internal error while indexing", "path", u.path, "panic", v, "stack", string(debug.Stack()))
			u.err = fmt.Errorf("piweb could not index this file (internal error: %v)", v)
			ev, err = Event{Path: u.path, Problem: u.err.Error()}, ix.saveError(ctx, tx, u)
		}
	}()
	return ix.apply(ctx, tx, u)
}

// apply writes one update in tx and returns the event it makes.
func (ix *Index) apply(ctx context.Context, tx *sql.Tx, u *update) (Event, error) {
	switch {
	case u.skip:
		return Event{}, nil
	case u.textOnly:
		_, err := ix.applyText(ctx, tx, u)
		return Event{}, err
	}
	ev := Event{Path: u.path, Reset: u.full}
	if u.removed {
		ev.Removed, ev.Reset = true, false
		return ev, ix.remove(ctx, tx, u.old)
	}
	row, err := encodeRow(u)
	if err != nil {
		u.err = err
	}
	if u.err != nil {
		ev.Problem = u.err.Error()
		ix.warn("cannot index", "path", u.path, "err", u.err)
		return ev, ix.saveError(ctx, tx, u)
	}
	if u.full && u.old != nil {
		if err := ix.clearEntries(ctx, tx, u.old.id); err != nil {
			return ev, err
		}
	}
	id, err := ix.saveRow(ctx, tx, u, row)
	if err == nil {
		err = ix.saveUsage(ctx, tx, id, u.full, &u.meta)
	}
	if err != nil {
		return ev, err
	}
	ev.SessionID = u.h.idStr
	for _, e := range u.entries {
		ev.Appended = append(ev.Appended, e.ID)
	}
	ev.Appended = append(ev.Appended, u.ids...)
	ev.End = u.offset
	if !u.full {
		ev.From, ev.Lines, ev.LinesOver = u.from, u.lines, u.linesOver
	}
	if u.text {
		err = ix.writeText(ctx, tx, id, u)
	}
	return ev, err
}

func (ix *Index) remove(ctx context.Context, tx *sql.Tx, r *fileRow) error {
	if err := ix.clearEntries(ctx, tx, r.id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM firsts WHERE file_id = ?`, r.id); err != nil {
		return wrap("remove", err)
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM files WHERE id = ?`, r.id)
	return wrap("remove", err)
}

// clearEntries deletes a file's entries, text and usage.
func (ix *Index) clearEntries(ctx context.Context, tx *sql.Tx, fileID int64) error {
	if err := ix.clearText(ctx, tx, fileID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM usage WHERE file_id = ?`, fileID)
	return wrap("clear entries", err)
}

// saveError records an unreadable file: it leaves the listing (pi's listAll
// skips files it cannot read) and is retried on every scan.
func (ix *Index) saveError(ctx context.Context, tx *sql.Tx, u *update) error {
	if u.old != nil {
		_, err := tx.ExecContext(ctx, `UPDATE files SET error = ?, listed = 0 WHERE id = ?`, u.err.Error(), u.old.id)
		return wrap("save error", err)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO files(path, listall, dev, ino, size, mtime_ns, offset, line, hdr_off, hdr_len,
		text_offset, text_line, error, listed, session_id, cwd, parent_path, created_str, name, has_name, activity,
		msg_count, first_message, body, meta, problems)
		VALUES(?, ?, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, ?, 0, '', '', '', 0, '', 0, 0, 0, '', '{}', '{}', '[]')`,
		u.path, u.listAll, u.err.Error())
	return wrap("save error", err)
}

// saveRow writes the files row and returns its id.
func (ix *Index) saveRow(ctx context.Context, tx *sql.Tx, u *update, row rowJSON) (int64, error) {
	in, listed := listing(u.path, u.h, u.listBody, time.Unix(0, u.fid.mtimeNs))
	if !listed {
		in = u.h.info
	}
	textOffset, textLine := int64(0), int64(0)
	switch {
	case u.text:
		textOffset, textLine = u.offset, u.line
	case !u.full:
		textOffset, textLine = u.old.textOffset, u.old.textLin
	}
	var id int64
	err := ix.ws.in(ctx, tx, saveRowSQL).QueryRowContext(ctx,
		u.path, u.listAll, int64(u.fid.dev), int64(u.fid.ino), u.fid.size, u.fid.mtimeNs, u.offset, u.line,
		u.h.off, u.h.len, u.h.hash, u.tailHash, textOffset, textLine, listed,
		u.h.idStr, nullable(u.h.info.ID), u.h.info.Cwd, nullable(u.h.info.ParentSessionPath), str(u.h.info.ParentSessionPath),
		nullFloat(u.h.info.Created), u.h.created,
		in.Name, in.HasName, u.listBody.Activity, in.MessageCount, headOfFirst(in.FirstMessage), firstSize(in, u.listBody),
		row.body, row.meta, row.problems, sortKey(in.Modified), infoHead(in, listed)).Scan(&id)
	if err == nil {
		err = saveFirst(ctx, tx, id, u.listBody, u.old)
	}
	return id, wrap("save "+u.path, err)
}

// firstSize is the size of the listing's whole first message, which an
// update that did not read it has from the row.
func firstSize(in pisession.Info, b body) int64 {
	if b.FirstStored && b.FirstMessage != "" {
		return b.FirstSize
	}
	return int64(len(in.FirstMessage))
}

func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("index: %s: %w", what, err)
}

// ftsText joins the searchable parts of an entry.
func (ix *Index) ftsText(m *msg) string {
	if m == nil {
		return ""
	}
	return m.text.Join(ix.o.Tools)
}

// saveRowSQL writes a files row.
const saveRowSQL = `INSERT INTO files(path, listall, dev, ino, size, mtime_ns, offset, line,
		hdr_off, hdr_len, hdr_hash, tail_hash, text_offset, text_line, error, listed,
		session_id, id_raw, cwd, parent_raw, parent_path, created, created_str,
		name, has_name, activity, msg_count, first_message, first_size, body, meta, problems, modified, info_json)
		VALUES(?,?,?,?,?,?,?,?, ?,?,?,?,?,?,'',?, ?,?,?,?,?,?,?, ?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(path) DO UPDATE SET listall=excluded.listall, dev=excluded.dev, ino=excluded.ino,
		size=excluded.size, mtime_ns=excluded.mtime_ns, offset=excluded.offset, line=excluded.line,
		hdr_off=excluded.hdr_off, hdr_len=excluded.hdr_len, hdr_hash=excluded.hdr_hash, tail_hash=excluded.tail_hash,
		text_offset=excluded.text_offset, text_line=excluded.text_line, error='', listed=excluded.listed,
		session_id=excluded.session_id, id_raw=excluded.id_raw, cwd=excluded.cwd, parent_raw=excluded.parent_raw,
		parent_path=excluded.parent_path, created=excluded.created, created_str=excluded.created_str,
		name=excluded.name, has_name=excluded.has_name, activity=excluded.activity, msg_count=excluded.msg_count,
		first_message=excluded.first_message, first_size=excluded.first_size, body=excluded.body, meta=excluded.meta, problems=excluded.problems,
		modified=excluded.modified, info_json=excluded.info_json
		RETURNING id`

// infoJSON is the file's element of pi's listing JSON. It depends on the
// mtime only through pi's last fallback for modified, and a new mtime means
// the row is written again, so it is always current.
func infoJSON(in pisession.Info, listed bool) string {
	if !listed {
		return ""
	}
	b, _ := in.MarshalJSON()
	return string(b)
}

// noFirst ends the element of a listing without its first message.
const noFirst = `,"firstMessage":""}`

// infoHead is infoJSON up to its firstMessage, which is last: the row
// keeps the message once (first.go) and infoElem completes the element.
func infoHead(in pisession.Info, listed bool) string {
	in.FirstMessage = ""
	return strings.TrimSuffix(infoJSON(in, listed), noFirst)
}

// infoElem is the element infoHead began, with the first message.
func infoElem(head, first string) []byte {
	// Room for the escapes of a text as most are (a log's quotes, tabs
	// and newlines), so that a long one is not copied as it grows.
	b := make([]byte, 0, len(head)+len(first)+len(first)/4+len(noFirst)+16)
	b = append(append(b, head...), noFirst[:len(noFirst)-3]...)
	b = jsjson.AppendString(b, first)
	return append(b, '}')
}

// rowJSON is an update's body, meta and problems as the files row keeps
// them.
type rowJSON struct{ body, meta, problems string }

// encodeRow encodes an update's row. An error (a value JSON cannot hold)
// is the file's problem, reported like an unreadable file's, never a
// panic.
func encodeRow(u *update) (r rowJSON, err error) {
	for _, f := range []struct {
		dst *string
		v   any
	}{{&r.body, u.body.row()}, {&r.meta, u.meta}, {&r.problems, u.problems}} {
		b, err := json.Marshal(f.v)
		if err != nil {
			return r, fmt.Errorf("piweb cannot index this file: %w", err)
		}
		*f.dst = string(b)
	}
	return r, nil
}

// sortKey is the listing's order key for pi's modified time: an Invalid
// Date (NaN, whose place in pi's own sort depends on its neighbours) is
// older than every date, where cmp.Compare puts NaN in the listings
// sorted in Go.
func sortKey(modified float64) float64 {
	if math.IsNaN(modified) {
		return -math.MaxFloat64
	}
	return modified
}
