package pisession

import "slices"

// A huge session's newest page of context, built from what an index knows
// of the branch (each entry's id, parent, type, role and line position)
// by reading only the lines that decide it: the page's own, the last
// compaction, the last model and thinking level changes, and the few
// entries whose message count the index cannot tell (branch summaries,
// system messages). The result equals ContextAt(Leaf()) on the page
// (TestTailMatchesContext); whatever the rows cannot answer exactly
// (context edits, a chain that does not hold, a line that is not what its
// row says) is refused, and the caller parses the whole file instead.

// BranchRow is what an index keeps of one entry on the branch from the
// root to the file's leaf.
type BranchRow struct {
	ID, ParentID, Type, Role string
	// Off and Len locate the entry's line in the file (without newline).
	Off, Len int64
	// Pos is the entry's position on the branch, the root's 0.
	Pos int
}

// ReadLine returns the n bytes of the file at offset off.
type ReadLine func(off, n int64) ([]byte, error)

// Tail is pi's context at a file's leaf, planned from its branch rows:
// the entries it projects and how many messages each gives, the thinking
// level and model in effect. Page builds any page of it.
type Tail struct {
	// Total is the number of messages, System of system messages among them.
	Total, System int
	// ThinkingLevel and Model are as in Context.
	ThinkingLevel, Model []byte
	// LeafID is the file's leaf.
	LeafID string

	rows []BranchRow
	ents []tailEnt
	read ReadLine
	got  map[int]*Entry // the rows read so far
}

// tailEnt is one entry the context projects: its row and message count.
type tailEnt struct{ row, n int }

// PlanTail plans the context at the leaf of a file of the current version
// whose header line is header, from rows of its branch in position order:
// every row from the first the context projects (the root, or the last
// compaction's first kept entry, or the compaction) to the leaf, and
// before them at least every thinking level change, model change,
// compaction and context edit, and the last assistant message. ok is
// false when the rows cannot give the context exactly (the caller parses
// the file); the rows the context projects must be contiguous.
func PlanTail(header []byte, rows []BranchRow, read ReadLine) (t *Tail, ok bool) {
	if !currentHeader(header) || !chained(rows) {
		return nil, false
	}
	t = &Tail{rows: rows, read: read, LeafID: rows[len(rows)-1].ID, ThinkingLevel: defaultThinking,
		got: map[int]*Entry{}}
	if rows[0].Pos == 0 {
		if root := t.entry(0); root == nil || root.HasParent() {
			return nil, false
		}
	}
	if !t.settings() || !t.plan() {
		return nil, false
	}
	return t, true
}

// FirstKeptID returns the id of the first entry a compaction line keeps,
// ok false when its firstKeptEntryId is no string (it keeps none).
func FirstKeptID(line []byte) (id string, ok bool) {
	e := newEntry(line, 0, 0, nil)
	if e == nil || e.kind != kindObject {
		return "", false
	}
	return e.String("firstKeptEntryId")
}

// currentHeader reports whether line is a valid header of the current
// version: older files are migrated in memory, which only a parse does.
func currentHeader(line []byte) bool {
	h := newEntry(line, 1, 0, nil)
	if h == nil || h.kind != kindObject || h.Type != "session" {
		return false
	}
	_, ok := h.String("id")
	return ok && headerVersion(h) == CurrentVersion
}

// chained reports whether rows are part of a path pi walks the same:
// string ids, in position order, each entry's parent the one before where
// both are given, the root without parent, no context edit (their
// projection reads entries anywhere on the path).
func chained(rows []BranchRow) bool {
	if len(rows) == 0 || (rows[0].Pos == 0 && rows[0].ParentID != "") {
		return false
	}
	for i, r := range rows {
		if r.ID == "" || r.Type == "context_edit" {
			return false
		}
		if i > 0 && (r.Pos <= rows[i-1].Pos || r.Pos == rows[i-1].Pos+1 && r.ParentID != rows[i-1].ID) {
			return false
		}
	}
	return true
}

// contiguous reports whether rows[from:] are consecutive positions.
func contiguous(rows []BranchRow, from int) bool {
	for i := from + 1; i < len(rows); i++ {
		if rows[i].Pos != rows[i-1].Pos+1 {
			return false
		}
	}
	return true
}

// entry reads and checks the entry of row i: nil when its line is not
// the entry the row describes.
func (t *Tail) entry(i int) *Entry {
	if e, ok := t.got[i]; ok {
		return e
	}
	e := t.readEntry(t.rows[i])
	t.got[i] = e
	return e
}

func (t *Tail) readEntry(r BranchRow) *Entry {
	raw, err := t.read(r.Off, r.Len)
	if err != nil {
		return nil
	}
	e := newEntry(raw, 0, r.Off, nil)
	if e == nil || e.kind != kindObject || e.idK() != "s"+r.ID || e.Type != r.Type || e.Role() != r.Role {
		return nil
	}
	if e.HasParent() != (r.ParentID != "") || (r.ParentID != "" && e.parentK() != "s"+r.ParentID) {
		return nil
	}
	return e
}

// settings finds the thinking level and model in effect: the last entry
// on the path that sets each.
func (t *Tail) settings() bool {
	var c Context
	thinking, model := false, false
	for i := len(t.rows) - 1; i >= 0 && !(thinking && model); i-- {
		r := t.rows[i]
		sets := (!thinking && r.Type == "thinking_level_change") || (!model && (r.Type == "model_change" ||
			r.Type == "message" && r.Role == "assistant"))
		if !sets {
			continue
		}
		e := t.entry(i)
		if e == nil {
			return false
		}
		c.applySettings([]*Entry{e})
		if r.Type == "thinking_level_change" {
			thinking, t.ThinkingLevel = true, c.ThinkingLevel
		} else {
			model, t.Model = true, c.Model
		}
	}
	return true
}

// plan lists the context's entries (pi's buildContextEntries over the
// rows) and counts their messages.
func (t *Tail) plan() bool {
	rows, ok := t.contextRows()
	if !ok {
		return false
	}
	for i, row := range rows {
		n, sys, ok := t.count(row, i)
		if !ok {
			return false
		}
		t.ents = append(t.ents, tailEnt{row: row, n: n})
		t.Total += n
		t.System += sys
	}
	return true
}

// contextRows is contextEntries over the rows: with a compaction on the
// path, the last one, the kept rows before it from its firstKeptEntryId
// on (system messages left out) and every row after it.
func (t *Tail) contextRows() ([]int, bool) {
	k := -1
	for i, r := range t.rows {
		if r.Type == "compaction" {
			k = i
		}
	}
	all := make([]int, 0, len(t.rows))
	if k < 0 {
		if t.rows[0].Pos != 0 || !contiguous(t.rows, 0) {
			return nil, false
		}
		for i := range t.rows {
			all = append(all, i)
		}
		return all, true
	}
	comp := t.entry(k)
	if comp == nil || slices.ContainsFunc(t.rows[:k], func(r BranchRow) bool { return r.ID == t.rows[k].ID }) {
		return nil, false // pi's buildContextEntries would cut at the first entry of the compaction's id
	}
	all = append(all, k)
	keep, from := valueKey(comp.Field("firstKeptEntryId")), k
	for i, r := range t.rows[:k] {
		if from == k && "s"+r.ID == keep {
			from = i
		}
		if from < k && r.Role != RoleSystem {
			all = append(all, i)
		}
	}
	for i := k + 1; i < len(t.rows); i++ {
		all = append(all, i)
	}
	return all, contiguous(t.rows, from)
}

// count returns how many messages, and system messages, the context entry
// of row gives at position i of the context; lines are read only where
// the row cannot tell.
func (t *Tail) count(row, i int) (n, sys int, ok bool) {
	r := t.rows[row]
	switch {
	case r.Type == "custom_message":
		return 1, 0, true
	case r.Type == "message" && r.Role != "" && r.Role != RoleSystem:
		return 1, 0, true
	case r.Type == "compaction" && i > 0:
		return 0, 0, true // an older compaction in the kept range
	case r.Type != "message" && r.Type != "compaction" && r.Type != "branch_summary":
		return 0, 0, true
	}
	e := t.entry(row)
	if e == nil {
		return 0, 0, false
	}
	msgs := entryMessages(e)
	return len(msgs), SystemMessages(msgs), true
}

// Page returns the messages [start, end) of the context and the ids of
// the entries they come from; ok is false when a line is not what its
// row said (the file changed: the caller parses it).
func (t *Tail) Page(start, end int) (msgs [][]byte, ids []string, ok bool) {
	at := 0
	for _, te := range t.ents {
		lo, hi := at, at+te.n
		at = hi
		if te.n == 0 || hi <= start || lo >= end {
			continue
		}
		e := t.entry(te.row)
		if e == nil {
			return nil, nil, false
		}
		var c Context
		c.project(e, nil)
		if len(c.Messages) != te.n {
			return nil, nil, false
		}
		from, to := max(start, lo)-lo, min(end, hi)-lo
		msgs = append(msgs, c.Messages[from:to]...)
		ids = append(ids, c.EntryIDs[from:to]...)
	}
	return msgs, ids, true
}
