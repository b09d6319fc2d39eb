package index

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"piweb/pisession"
)

// List returns what pi's SessionManager.listAll returns for the agent dir,
// in its order: it first brings the listing up to date (a stat per file,
// reading only what changed), then answers from the index. As in pi 1.6,
// sessions with equal modified times are in candidate order (file mtime,
// then name: pisession.SortCandidates).
func (ix *Index) List(ctx context.Context) ([]pisession.Info, error) {
	ix.wmu.Lock()
	rs, _, err := ix.currentRoots(ctx)
	if err != nil {
		ix.wmu.Unlock()
		return nil, err
	}
	files, _ := discover(rs)
	// One read of the files table serves both the change check and, when
	// nothing changed (the common case), the answer.
	known, byPath, err := ix.listed(ctx)
	mtimes := make(map[string]int64, len(known))
	for p, r := range known {
		mtimes[p] = r.fid.mtimeNs // syncFiles consumes known
	}
	var st SyncStats
	if err == nil {
		st, err = ix.syncFiles(ctx, files, false, false, known)
	}
	if err == nil && st.Changed+st.Removed > 0 {
		known, byPath, err = ix.listed(ctx)
		for p, r := range known {
			mtimes[p] = r.fid.mtimeNs
		}
	}
	ix.wmu.Unlock()
	if err != nil {
		return nil, err
	}
	out := make([]pisession.Info, 0, len(byPath))
	for _, f := range files {
		if in, ok := byPath[f.path]; ok && f.listAll {
			out = append(out, in)
		}
	}
	mtime := func(path string) float64 { return pisession.MtimeMsNs(mtimes[path]) }
	slices.SortStableFunc(out, func(a, b pisession.Info) int {
		return pisession.CompareCandidates(a.Path, mtime(a.Path), b.Path, mtime(b.Path))
	})
	slices.SortStableFunc(out, func(a, b pisession.Info) int { return cmp.Compare(b.Modified, a.Modified) })
	return out, nil
}

// listed reads the stat state of every file and the listing of every
// listed file of the sessions tree.
func (ix *Index) listed(ctx context.Context) (map[string]statRow, map[string]pisession.Info, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT id, dev, ino, size, error != '', text_offset < offset,
		listall = 1 AND listed = 1 AND error = '',
		path, id_raw, cwd, name, has_name, parent_raw, created, created_str,
		activity, msg_count, first_message, mtime_ns, first_size FROM files`)
	if err != nil {
		return nil, nil, wrap("list", err)
	}
	defer rows.Close()
	known := map[string]statRow{}
	out := map[string]pisession.Info{}
	long := map[string]longFirst{} // rows whose first message is longer than its head
	for rows.Next() {
		var r statRow
		var dev, ino int64
		var show bool
		in, err := scanInfo(rows, &r.id, &dev, &ino, &r.fid.size, &r.bad, &r.textBehind, &show)
		if err != nil {
			return nil, nil, err
		}
		r.fid.dev, r.fid.ino, r.fid.mtimeNs = uint64(dev), uint64(ino), in.mtimeNs
		known[in.Path] = r
		if show {
			out[in.Path] = in.Info
			if in.firstSize > int64(len(in.FirstMessage)) {
				long[in.Path] = longFirst{r.id, in.FirstMessage, in.firstSize}
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, wrap("list", err)
	}
	rows.Close()
	return known, out, ix.wholeFirsts(ctx, out, long)
}

// longFirst is the row of a listed file whose first message is longer
// than the head the row holds.
type longFirst struct {
	id   int64
	head string
	size int64
}

// wholeFirsts reads the whole first message of the long rows into their
// listings.
func (ix *Index) wholeFirsts(ctx context.Context, out map[string]pisession.Info, long map[string]longFirst) error {
	for path, r := range long {
		s, err := readFirst(ctx, ix.db, r.id, r.head, r.size)
		if err != nil {
			return err
		}
		in := out[path]
		in.FirstMessage = s
		out[path] = in
	}
	return nil
}

// infoRow is a listing (with the first message's head) with the file's
// mtime and the first message's size.
type infoRow struct {
	pisession.Info
	mtimeNs, firstSize int64
}

func scanInfo(rows *sql.Rows, pre ...any) (infoRow, error) {
	var in pisession.Info
	var idRaw, parentRaw sql.NullString
	var created sql.NullFloat64
	var createdStr bool
	var activity float64
	var mtime, size int64
	err := rows.Scan(append(pre, &in.Path, &idRaw, &in.Cwd, &in.Name, &in.HasName, &parentRaw, &created, &createdStr,
		&activity, &in.MessageCount, &in.FirstMessage, &mtime, &size)...)
	if err != nil {
		return infoRow{}, wrap("list", err)
	}
	if idRaw.Valid {
		in.ID = []byte(idRaw.String)
	}
	if parentRaw.Valid {
		in.ParentSessionPath = []byte(parentRaw.String)
	}
	in.Created = math.NaN()
	if created.Valid {
		in.Created = created.Float64
	}
	in.Modified = modified(activity, in.Created, createdStr, time.Unix(0, mtime))
	return infoRow{in, mtime, size}, nil
}

// MarshalList returns json.Marshal(infos), pi's listing as JSON, without
// encoding/json's second pass over every element when no character needs
// its HTML escaping.
func MarshalList(infos []pisession.Info) ([]byte, error) {
	b := make([]byte, 0, 256*len(infos)+2)
	b = append(b, '[')
	for i, in := range infos {
		if i > 0 {
			b = append(b, ',')
		}
		j, err := in.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b = append(b, j...)
	}
	b = append(b, ']')
	if needsHTMLEscape(b) {
		return json.Marshal(infos)
	}
	return b, nil
}

// Meta is everything the index knows about one session file.
type Meta struct {
	// Info is pi's SessionInfo of the file.
	Info pisession.Info `json:"-"`
	// ListAll is true for files pi's listAll reads; Listed is false when
	// pi's listing would leave the file out.
	ListAll bool `json:"listAll"`
	Listed  bool `json:"listed"`
	// SessionID is the header id when it is a string.
	SessionID string `json:"sessionId"`
	Size      int64  `json:"size"`
	Entries   int    `json:"entries"`
	// Branches counts the leaves of the entry tree; LeafID is pi's leaf
	// after loading (the last entry).
	Branches int    `json:"branches"`
	LeafID   string `json:"leafId"`
	Totals
	// LastActivity is pi's modified time as ms (see pisession.Info), the
	// file's mtime where that is an Invalid Date: always a number.
	LastActivity float64 `json:"lastActivity"`
	// ParentSessionID resolves the header's parentSession path to the id of
	// that session when it is indexed, else to the id in that path's file
	// name when a session with it is (see parentsByName).
	ParentSessionID string `json:"parentSessionId,omitempty"`
	// Problems lists what is wrong with the file; Error is set when it
	// could not be read at all.
	Problems []problemJSON `json:"problems,omitempty"`
	Error    string        `json:"error,omitempty"`
	// TextBehind is true while the file's text is not yet searchable.
	TextBehind bool `json:"textBehind,omitempty"`

	mtimeMs float64 // the file's mtime, for pi's candidate order
}

// MarshalJSON keeps pisession.Info's own JSON (pi's field names) and adds the
// index's fields.
func (m Meta) MarshalJSON() ([]byte, error) {
	info, err := m.Info.MarshalJSON()
	if err != nil {
		return nil, err
	}
	type plain Meta // without this method
	rest, err := json.Marshal(plain(m))
	if err != nil {
		return nil, err
	}
	return append(append(info[:len(info)-1:len(info)-1], ','), rest[1:]...), nil
}

// metaSelect reads scanMeta's columns of the files f.
const metaSelect = `SELECT f.path, f.id_raw, f.cwd, f.name, f.has_name, f.parent_raw, f.created,
		f.created_str, f.activity, f.msg_count, f.first_message, f.mtime_ns,
		f.listall, f.listed, f.session_id, f.size, f.meta, f.problems, f.error, f.text_offset < f.offset,
		coalesce(p.session_id, '')
		FROM files f LEFT JOIN files p ON p.path = f.parent_path AND f.parent_path != ''`

// Sessions returns the metadata of every indexed file, newest first, as the
// index has it (call Sync first for a current answer).
func (ix *Index) Sessions(ctx context.Context) ([]Meta, error) {
	out, err := ix.metasOf(ctx, metaSelect, nil)
	if err != nil {
		return nil, err
	}
	parentsByName(out)
	slices.SortFunc(out, func(a, b Meta) int {
		if c := pisession.CompareCandidates(a.Info.Path, a.mtimeMs, b.Info.Path, b.mtimeMs); c != 0 {
			return c
		}
		return strings.Compare(a.Info.Path, b.Info.Path)
	})
	slices.SortStableFunc(out, func(a, b Meta) int { return cmp.Compare(b.Info.Modified, a.Info.Modified) })
	return out, nil
}

// parentsByName links the forks whose parentSession names no indexed file
// (the parent was moved or copied, its project folder renamed, or the path
// is relative) to the session whose id pi wrote into that path's file
// name, as the server and the web sidebar do.
func parentsByName(ms []Meta) {
	ids := make(map[string]bool, len(ms))
	for _, m := range ms {
		if m.SessionID != "" {
			ids[m.SessionID] = true
		}
	}
	for i := range ms {
		m := &ms[i]
		if m.ParentSessionID != "" || len(m.Info.ParentSessionPath) == 0 {
			continue
		}
		var p string
		if json.Unmarshal(m.Info.ParentSessionPath, &p) != nil {
			continue
		}
		if id := pisession.IDFromFileName(p); ids[id] && id != m.SessionID {
			m.ParentSessionID = id
		}
	}
}

func scanMeta(rows *sql.Rows) (Meta, error) {
	var m Meta
	var idRaw, parentRaw sql.NullString
	var created sql.NullFloat64
	var createdStr bool
	var activity float64
	var mtime int64
	var metaJ, probJ string
	err := rows.Scan(&m.Info.Path, &idRaw, &m.Info.Cwd, &m.Info.Name, &m.Info.HasName, &parentRaw, &created, &createdStr,
		&activity, &m.Info.MessageCount, &m.Info.FirstMessage, &mtime,
		&m.ListAll, &m.Listed, &m.SessionID, &m.Size, &metaJ, &probJ, &m.Error, &m.TextBehind, &m.ParentSessionID)
	if err != nil {
		return m, wrap("sessions", err)
	}
	if idRaw.Valid {
		m.Info.ID = []byte(idRaw.String)
	}
	if parentRaw.Valid {
		m.Info.ParentSessionPath = []byte(parentRaw.String)
	}
	m.Info.Created = math.NaN()
	if created.Valid {
		m.Info.Created = created.Float64
	}
	m.Info.Modified = modified(activity, m.Info.Created, createdStr, time.Unix(0, mtime))
	m.mtimeMs = pisession.MtimeMsNs(mtime)
	m.LastActivity = m.Info.Modified
	if math.IsNaN(m.LastActivity) {
		m.LastActivity = float64(time.Unix(0, mtime).UnixMilli())
	}
	var md meta
	if err := unmarshalAll(metaJ, &md, probJ, &m.Problems); err != nil {
		return m, wrap("sessions", err)
	}
	m.Entries, m.Branches, m.LeafID, m.Totals = md.Entries, len(md.Leaves), md.LeafID, md.Totals
	return m, nil
}

// ListJSON is json.Marshal of List, pi's listAll as JSON: the fast path of
// piweb ls --json. With a listing snapshot (snapshot.go) it reads and
// writes only the rows of the files that changed since; without one, or
// when many changed, it syncs every file and reads the whole files table,
// and then writes the snapshot for next time.
func (ix *Index) ListJSON(ctx context.Context) ([]byte, error) {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	var old []snapEntry
	snap, done := readSnapshot(snapPath(ix.path), nil)
	defer done()
	if snap != nil {
		old = snap.entries
	}
	rs, _, err := ix.currentRoots(ctx)
	if err != nil {
		return nil, err
	}
	files, _ := scan(rs, true)
	es, err := ix.listEntries(ctx, files, old)
	if err != nil {
		return nil, err
	}
	// The sessions just indexed may be of cwds whose project settings name
	// more session dirs: a second round lists those too. The snapshot
	// keeps the cwds, whose settings a quick answer reads again.
	rs2, cwds, err := ix.currentRoots(ctx)
	if err == nil && !slices.Equal(rs, rs2) {
		files, _ = scan(rs2, true)
		es, err = ix.listEntries(ctx, files, es)
	}
	if err != nil {
		return nil, err
	}
	b, s := encodeSnapshot(cwds, es) // copies the elements out of the old snapshot
	if err := writeSnapshot(snapPath(ix.path), b); err != nil {
		ix.warn("listing snapshot", "err", err)
	}
	return outputJSON(s.out, s.escape), nil
}

// maxStale is how many changed files ListJSON brings up to date one by one
// from the snapshot; beyond it a whole sync is cheaper.
const maxStale = 200

// listEntries brings the listing of files up to date and returns their
// snapshot entries, in discovery order.
func (ix *Index) listEntries(ctx context.Context, files []found, snap []snapEntry) ([]snapEntry, error) {
	if snap != nil {
		es, stale, gone := diffSnapshot(files, snap)
		if len(stale)+len(gone) <= maxStale {
			return es, ix.refresh(ctx, files, es, stale, gone)
		}
	}
	known, err := ix.loadStats(ctx)
	if err == nil {
		_, err = ix.syncFiles(ctx, files, false, false, known)
	}
	if err != nil {
		return nil, err
	}
	return ix.entriesOf(ctx, files)
}

// refresh syncs the stale and gone files and fills the entries of the
// stale ones from their rows.
func (ix *Index) refresh(ctx context.Context, files []found, es []snapEntry, stale, gone []string) error {
	if len(stale)+len(gone) == 0 {
		return nil
	}
	known := map[string]statRow{}
	for _, p := range append(slices.Clip(stale), gone...) {
		if r, ok, err := ix.statRowOf(ctx, p); err != nil {
			return err
		} else if ok {
			known[p] = r
		}
	}
	isStale := map[string]bool{}
	for _, p := range stale {
		isStale[p] = true
	}
	var sub []found
	for _, f := range files {
		if isStale[f.path] {
			sub = append(sub, f)
		}
	}
	if _, err := ix.syncFiles(ctx, sub, false, false, known); err != nil {
		return err
	}
	for i := range es {
		if isStale[es[i].path] {
			e, err := ix.entryOf(ctx, es[i].path)
			if err != nil {
				return err
			}
			es[i] = e
		}
	}
	return nil
}

// entryCols are the files columns of a snapshot entry.
const entryCols = `path, dev, ino, size, mtime_ns, error != '', listall = 1 AND listed = 1 AND error = '', modified, info_json,
	id, first_message, first_size`

// scanEntry reads a snapshot entry; a first message longer than its row's
// head is left for whole to read (the rows being read hold the writer's
// one connection).
func scanEntry(sc interface{ Scan(...any) error }) (e snapEntry, whole *longFirst, err error) {
	var dev, ino, id, size int64
	var show bool
	var elem, first string
	err = sc.Scan(&e.path, &dev, &ino, &e.fid.size, &e.fid.mtimeNs, &e.bad, &show, &e.modified, &elem, &id, &first, &size)
	e.fid.dev, e.fid.ino = uint64(dev), uint64(ino)
	if show && !e.bad {
		e.elem = []byte(elem)
		if size > int64(len(first)) {
			whole = &longFirst{id, first, size}
		} else {
			e.elem = infoElem(elem, first)
		}
	}
	return e, whole, wrap("list", err)
}

// complete ends the element of e, whose first message is long.
func (ix *Index) complete(ctx context.Context, e *snapEntry, l *longFirst) error {
	first, err := readFirst(ctx, ix.wdb, l.id, l.head, l.size)
	if err == nil {
		e.elem = infoElem(string(e.elem), first)
	}
	return err
}

// entryOf reads the snapshot entry of one file; a file without a row gets
// an entry without identity, which never matches the disk.
func (ix *Index) entryOf(ctx context.Context, path string) (snapEntry, error) {
	e, whole, err := scanEntry(ix.wdb.QueryRowContext(ctx, `SELECT `+entryCols+` FROM files WHERE path = ?`, path))
	if errors.Is(err, sql.ErrNoRows) {
		return snapEntry{path: path}, nil
	}
	if err == nil && whole != nil {
		err = ix.complete(ctx, &e, whole)
	}
	return e, err
}

// entriesOf reads the snapshot entries of files from the whole files table.
func (ix *Index) entriesOf(ctx context.Context, files []found) ([]snapEntry, error) {
	rows, err := ix.wdb.QueryContext(ctx, `SELECT `+entryCols+` FROM files`)
	if err != nil {
		return nil, wrap("list", err)
	}
	defer rows.Close()
	byPath := make(map[string]snapEntry, len(files))
	long := map[string]*longFirst{}
	for rows.Next() {
		e, whole, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		byPath[e.path] = e
		if whole != nil {
			long[e.path] = whole
		}
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("list", err)
	}
	rows.Close()
	es := make([]snapEntry, len(files))
	for i, f := range files {
		es[i] = snapEntry{path: f.path}
		if e, ok := byPath[f.path]; ok {
			es[i] = e
		}
		if !f.listAll {
			es[i].elem = nil
		} else if l := long[f.path]; l != nil && es[i].elem != nil {
			if err := ix.complete(ctx, &es[i], l); err != nil {
				return nil, err
			}
		}
	}
	return es, nil
}

// needsHTMLEscape reports whether encoding/json would escape something in
// b: <, >, & or U+2028, U+2029 (whose UTF-8 starts with 0xE2).
func needsHTMLEscape(b []byte) bool {
	if bytes.IndexByte(b, '<') >= 0 || bytes.IndexByte(b, '>') >= 0 || bytes.IndexByte(b, '&') >= 0 {
		return true
	}
	for i := bytes.IndexByte(b, 0xE2); i >= 0; {
		if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9) {
			return true
		}
		j := bytes.IndexByte(b[i+1:], 0xE2)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}
