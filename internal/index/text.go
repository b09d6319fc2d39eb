package index

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"slices"
	"strconv"

	"piweb/internal/jsjson"
	"piweb/pisession"
)

// The text index holds every entry (the tree links are needed to tell
// whether an entry is on the current branch) and the searchable text of
// user and assistant messages. Each entry row knows whether it lies on the
// path from pi's leaf (the last entry in file order) to the root, and its
// position on that path, so that when a file grows the flags change only
// below the point where the new path joins the old one.

// branchPos maps entry indexes of u.entries to positions on the current
// branch, computing it in memory; used when the file has no rows yet.
func branchPos(entries []*pisession.Entry) map[int]int {
	byID := make(map[string]int, len(entries))
	for i, e := range entries {
		if e.ID != "" {
			byID[e.ID] = i
		}
	}
	var path []int
	seen := map[int]bool{}
	for i := len(entries) - 1; i >= 0 && !seen[i]; {
		seen[i] = true
		path = append(path, i)
		e := entries[i]
		j, ok := byID[e.ParentID]
		if !e.HasParent() || !ok {
			break
		}
		i = j
	}
	pos := make(map[int]int, len(path))
	for k, i := range path {
		pos[i] = len(path) - 1 - k
	}
	return pos
}

// oldEntry is an entry row met while walking up from the new leaf.
type oldEntry struct {
	rowid    int64
	parent   string
	onBranch bool
	bpos     int
}

// joinBranch walks from the new leaf up to the first entry already on the
// current branch. It returns the positions of the new entries on the new
// branch, the rows of older entries that join it, and the position of the
// junction (-1 when the new branch shares nothing with the old one).
func (ix *Index) joinBranch(ctx context.Context, tx *sql.Tx, fileID int64, entries []*pisession.Entry) (pos map[int]int, oldPath []int64, junction int, tip bool, err error) {
	byID := make(map[string]int, len(entries))
	for i, e := range entries {
		if e.ID != "" {
			byID[e.ID] = i
		}
	}
	var newPath []int
	junction = -1
	parent := "" // the first parent outside the new entries
	seenNew, seenOld := map[int]bool{}, map[int64]bool{}
	for i := len(entries) - 1; !seenNew[i]; {
		seenNew[i] = true
		newPath = append(newPath, i)
		e := entries[i]
		if !e.HasParent() {
			break
		}
		j, ok := byID[e.ParentID]
		if !ok {
			parent = e.ParentID
			break
		}
		i = j
	}
	for parent != "" {
		o, err := ix.lookupEntry(ctx, tx, fileID, parent)
		if err != nil {
			return nil, nil, 0, false, err
		}
		if o == nil || seenOld[o.rowid] {
			break
		}
		if o.onBranch {
			junction, tip = o.bpos, o.rowid == ix.lastRows[fileID]
			break
		}
		seenOld[o.rowid] = true
		oldPath = append(oldPath, o.rowid)
		parent = o.parent
	}
	pos = make(map[int]int, len(newPath))
	next := junction + 1 + len(oldPath)
	for k, i := range newPath {
		pos[i] = next + len(newPath) - 1 - k
	}
	return pos, oldPath, junction, tip, nil
}

func (ix *Index) lookupEntry(ctx context.Context, tx *sql.Tx, fileID int64, id string) (*oldEntry, error) {
	var o oldEntry
	err := ix.ws.in(ctx, tx, lookupEntrySQL).QueryRowContext(ctx, fileID, id).Scan(&o.rowid, &o.parent, &o.onBranch, &o.bpos)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &o, wrap("lookup entry", err)
}

// lookupEntrySQL finds an entry of a file by id (the last of that id).
const lookupEntrySQL = `SELECT rowid, parent, on_branch, bpos FROM entries
	WHERE file_id = ? AND eid = ? ORDER BY rowid DESC LIMIT 1`

// writeText inserts the update's entries and their text and moves the
// current-branch flags.
func (ix *Index) writeText(ctx context.Context, tx *sql.Tx, fileID int64, u *update) error {
	if len(u.entries) == 0 {
		return nil
	}
	fresh := u.full || u.old == nil || u.old.textOffset == 0
	var pos map[int]int
	if fresh {
		pos = branchPos(u.entries)
	} else {
		var oldPath []int64
		var junction int
		var tip bool
		var err error
		if pos, oldPath, junction, tip, err = ix.joinBranch(ctx, tx, fileID, u.entries); err != nil {
			return err
		}
		if err := ix.moveBranch(ctx, tx, fileID, oldPath, junction, tip); err != nil {
			return err
		}
	}
	return ix.insertEntries(ctx, tx, fileID, u, pos)
}

// moveBranch clears the flags below the junction and sets them on the old
// entries that joined the branch (positions junction+1...). A junction at
// the old leaf (tip: the last entry this Sync wrote of the file, as for a
// big file's next part) has nothing below it to clear: without
// entries_branch (a bulk pass) clearing read every row of the file, for
// each part.
func (ix *Index) moveBranch(ctx context.Context, tx *sql.Tx, fileID int64, oldPath []int64, junction int, tip bool) error {
	if !tip {
		if _, err := ix.ws.in(ctx, tx, clearBranchSQL).ExecContext(ctx, fileID, junction); err != nil {
			return wrap("move branch", err)
		}
	}
	set := ix.ws.in(ctx, tx, setBranchSQL)
	for k, rowid := range oldPath {
		p := junction + len(oldPath) - k
		if _, err := set.ExecContext(ctx, p, rowid); err != nil {
			return wrap("move branch", err)
		}
	}
	return nil
}

const (
	clearBranchSQL = `UPDATE entries SET on_branch = 0 WHERE file_id = ? AND on_branch = 1 AND bpos > ?`
	setBranchSQL   = `UPDATE entries SET on_branch = 1, bpos = ? WHERE rowid = ?`
)

func (ix *Index) insertEntries(ctx context.Context, tx *sql.Tx, fileID int64, u *update, pos map[int]int) error {
	// Rowids are given, not taken from each insert, so that rows go in
	// batches, and never given twice (textdb.go: repairText).
	next, err := ix.takeRowids(ctx, tx, len(u.entries))
	if err != nil {
		return err
	}
	if ix.lastRows != nil {
		ix.lastRows[fileID] = next + int64(len(u.entries)) - 1
	}
	var r run
	var texts []string
	entryArgs := make([]any, 0, 12*len(u.entries))
	var textArgs []any
	var models modelBoxes
	file := any(fileID)
	for i, e := range u.entries {
		m := u.msgs[i]
		parent := ""
		if e.HasParent() {
			parent = e.ParentID
		}
		role, model, runModel := boxed(""), boxed(""), ""
		if m != nil && e.Type == "message" {
			role = boxed(m.Role)
			if m.Role == "assistant" && m.Model != "" {
				model, runModel = models.of(m.Provider, m.Model)
			}
		} else {
			runModel = entryModel(e, m)
		}
		p, on := pos[i]
		if !on {
			p = -1
		}
		rowid, ts := next+int64(i), entryTS(e)
		entryArgs = append(entryArgs, rowid, file, e.ID, parent, boxed(e.Type), role, ts, model, on, p, e.Offset, len(e.Raw))
		r.add(rowid, ts, runModel)
		if text := ix.ftsText(m); text != "" {
			textArgs = append(textArgs, rowid, text)
			texts = append(texts, text)
		}
	}
	if err := ix.entryIns.exec(ctx, tx, entryArgs); err != nil {
		return wrap("insert entries", err)
	}
	ix.textW.insertText(ctx, textArgs)
	if err := r.save(ctx, tx, ix.ws, fileID); err != nil {
		return err
	}
	if !ix.bulkText && len(texts) > 0 {
		ix.textW.run(ctx, func(ttx *sql.Tx) error { return addVocab(ctx, ttx, texts) })
	}
	return nil
}

// takeRowids gives out n entries rowids, above every one given before:
// meta's nextrow, which only grows (deleted rows' rowids are not given
// again, so that a text row is never taken for another entry's).
func (ix *Index) takeRowids(ctx context.Context, tx *sql.Tx, n int) (int64, error) {
	var next int64
	err := ix.ws.in(ctx, tx, nextRowSQL).QueryRowContext(ctx).Scan(&next)
	if err == nil {
		_, err = ix.ws.in(ctx, tx, setNextRowSQL).ExecContext(ctx, next+int64(n))
	}
	return next, wrap("insert entries", err)
}

const (
	nextRowSQL    = `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'nextrow'`
	setNextRowSQL = `UPDATE meta SET value = ? WHERE key = 'nextrow'`
)

// entryTS returns the entry's time in ms: its timestamp, else its message's
// numeric timestamp; 0 when neither is a valid Date's time.
func entryTS(e *pisession.Entry) int64 {
	if t := entryTime(e); t != 0 {
		return t
	}
	if raw := jsjson.Field(e.Field("message"), "timestamp"); len(raw) > 0 {
		f, _ := strconv.ParseFloat(string(raw), 64)
		if f = pisession.TimeClip(f); !math.IsNaN(f) {
			return int64(f)
		}
	}
	return 0
}

// boxes are the interface values of the strings entries rows repeat
// (types and roles), made once: boxing a string for database/sql is an
// allocation, and insertEntries made about ten a row.
var boxes = func() map[string]any {
	b := map[string]any{"": ""}
	for _, s := range append(slices.Clone(entryTypes), roles...) {
		b[s] = s
	}
	return b
}()

// boxed returns s as an interface value, without allocating for the
// strings of boxes.
func boxed(s string) any {
	if v, ok := boxes[s]; ok {
		return v
	}
	return s
}

// modelBoxes keeps the last answer's model, as the entries' model column
// boxed (provider/model) and as the run's model (modelName): the rows
// of a file mostly repeat one.
type modelBoxes struct {
	provider, model, name string
	column                any
}

// of returns the model column's value and the run's model name of an
// answer by provider and model.
func (b *modelBoxes) of(provider, model string) (any, string) {
	if b.column == nil || provider != b.provider || model != b.model {
		b.provider, b.model = provider, model
		b.column, b.name = provider+"/"+model, modelName(provider, model)
	}
	return b.column, b.name
}
