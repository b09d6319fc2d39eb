package index

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"piweb/internal/opt"
)

// Query is a search.
type Query struct {
	// Text is what the user typed; see the query rules in query.go.
	Text string
	// Cwd keeps sessions of this project only; Model keeps sessions that
	// used this model ("provider/id" or just "id").
	Cwd, Model string
	// Cwds, when not empty, keeps sessions of any of these projects (and
	// of Cwd's, when both are set: both must hold).
	Cwds []string
	// Roles, when not empty, keeps entries of these message roles (as pi
	// writes them: user, assistant, toolResult, bashExecution, ...).
	Roles []string
	// Branch keeps entries of the current branch, or of abandoned ones.
	Branch Branch
	// From and To keep entries with From <= timestamp < To; zero is open.
	From, To time.Time
	// Limit is the number of hits; 0 means 20.
	Limit int
	// Now is the reference time for recency ranking; zero means now.
	Now time.Time
}

// Branch says which entries a search keeps by where they lie.
type Branch int

const (
	// AnyBranch keeps every entry (current-branch hits still rank first).
	AnyBranch Branch = iota
	// CurrentBranch keeps the entries on the path from the leaf to the root.
	CurrentBranch
	// Abandoned keeps the entries off it (other branches, compacted history).
	Abandoned
)

// Hit is one matching entry.
type Hit struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Cwd       string `json:"cwd"`
	EntryID   string `json:"entryId"`
	Role      string `json:"role"`
	Model     string `json:"model,omitempty"`
	// Timestamp is the entry's time in ms since the epoch.
	Timestamp int64 `json:"timestamp"`
	// OnBranch is true when the entry lies on the session's current branch
	// (the path from pi's leaf, the last entry, to the root). Entries of
	// abandoned branches and of compacted history are found too.
	OnBranch bool    `json:"onBranch"`
	Snippet  []Span  `json:"snippet"`
	Score    float64 `json:"score"`
}

// Span is a piece of a snippet; Match marks the matched words.
type Span struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}

// candidates bounds the work of a search: relevance is computed over the
// newest matches only (entries are indexed oldest first and appended
// entries are newest, so rowid order is time order), which keeps a search
// for a word found in every session as fast as a rare one.
const candidates = 200

// halfLife sets the recency weight: a hit this old counts half as much as
// an equally relevant one from now.
const halfLife = 30 * 24 * time.Hour

// Search runs a query. Any text is a valid query; text without words, or
// with a prefix no indexed word starts with, finds nothing. All reads run
// in one read transaction, so they see one state of the index. Its scan
// stops at the index's budget (budget.go); Answer says when it did.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	if len(parseQuery(q.Text)) == 0 {
		return nil, nil
	}
	var hits []Hit
	err := ix.readSearch(ctx, "search", q, func(tx *sql.Tx, match string, f *filter, deadline time.Time) error {
		r, err := rankedSearch(ctx, tx, match, f, q, deadline)
		hits = r.hits
		return err
	})
	return hits, err
}

// searched is a search's ranked hits, the candidates they were ranked
// from (newest first), and whether the scan stopped at its budget.
type searched struct {
	hits    []Hit
	cands   []cand
	partial bool
}

// rankedSearch ranks the newest candidates of the query, read until the
// deadline, and completes the best.
func rankedSearch(ctx context.Context, tx *sql.Tx, match string, f *filter, q Query, deadline time.Time) (searched, error) {
	opt.Positive(&q.Limit, 20)
	if q.Now.IsZero() {
		q.Now = time.Now()
	}
	var out searched
	var err error
	out.cands, out.partial, err = scanUntil(ctx, tx, match, f, max(candidates, q.Limit), deadline)
	if err != nil {
		return out, err
	}
	top := slices.Clone(out.cands)
	markLongs(top, q.Text)
	out.hits, err = hitsOf(ctx, tx, rank(top, q.Now.UnixMilli(), q.Limit))
	return out, err
}

// readSearch calls fn in one read transaction with q's FTS5 expression,
// its filter and the deadline of its scans (budget.go); not when nothing
// can match (as when q asks only for roles whose text the index does not
// hold).
func (ix *Index) readSearch(ctx context.Context, op string, q Query, fn func(tx *sql.Tx, match string, f *filter, deadline time.Time) error) error {
	if !ix.o.Tools && len(q.Roles) > 0 && !slices.ContainsFunc(q.Roles, func(r string) bool { return !toolOutput(r) }) {
		return nil // only tool output, whose text this index does not hold: every match would be read for none
	}
	tx, err := ix.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return wrap(op, err)
	}
	defer tx.Rollback()
	match, f, err := prepareSearch(ctx, tx, q)
	if err != nil || f == nil {
		return err
	}
	deadline, err := ix.deadline(ctx, tx)
	if err != nil {
		return err
	}
	return fn(tx, match, f, deadline)
}

// prepareSearch returns the FTS5 expression and the filter of q; a nil filter
// means that nothing can match.
func prepareSearch(ctx context.Context, tx *sql.Tx, q Query) (string, *filter, error) {
	expand, err := expander(ctx, tx)
	if err != nil {
		return "", nil, err
	}
	match, ok := ftsQuery(q.Text, expand)
	if !ok {
		return "", nil, nil
	}
	f, err := newFilter(ctx, tx, q)
	if err != nil || f.none {
		return "", nil, err
	}
	return match, f, nil
}

// cand is a candidate hit: its row, time and text with the matches marked
// by \x02 ... \x03.
type cand struct {
	rowid, ts int64
	marked    string
	score     float64
	on        bool // on the current branch
}

// hitsOf completes the ranked candidates with their entry and file.
func hitsOf(ctx context.Context, tx *sql.Tx, top []cand) ([]Hit, error) {
	if len(top) == 0 {
		return nil, nil
	}
	ids := make([]string, len(top))
	for i, c := range top {
		ids[i] = fmt.Sprint(c.rowid)
	}
	rows, err := tx.QueryContext(ctx, `SELECT e.rowid, f.session_id, f.path, f.cwd, e.eid, e.role, e.model, e.ts, e.on_branch
		FROM entries e JOIN files f ON f.id = e.file_id WHERE e.rowid IN (`+strings.Join(ids, ",")+`)`)
	if err != nil {
		return nil, wrap("search", err)
	}
	defer rows.Close()
	byRow := map[int64]Hit{}
	for rows.Next() {
		var h Hit
		var rowid int64
		if err := rows.Scan(&rowid, &h.SessionID, &h.Path, &h.Cwd, &h.EntryID, &h.Role, &h.Model, &h.Timestamp, &h.OnBranch); err != nil {
			return nil, wrap("search", err)
		}
		byRow[rowid] = h
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("search", err)
	}
	hits := make([]Hit, 0, len(top))
	for _, c := range top {
		if h, ok := byRow[c.rowid]; ok {
			h.Score, h.Snippet = c.score, snippet(c.marked, snippetWords)
			hits = append(hits, h)
		}
	}
	return hits, nil
}

// BM25's constants, as FTS5's bm25() uses them.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rank scores the candidates (see "Ranking" in doc.go) and returns the
// best limit of them, best first: current-branch ones before the others,
// and equal scores put the newer first.
func rank(cs []cand, now int64, limit int) []cand {
	var total float64
	for _, c := range cs {
		total += float64(textLen(c.marked))
	}
	avg := math.Max(1, total/float64(max(1, len(cs))))
	for i := range cs {
		c := &cs[i]
		tf := float64(strings.Count(c.marked, "\x02"))
		norm := 1 - bm25B + bm25B*float64(textLen(c.marked))/avg
		rel := tf * (bm25K1 + 1) / (tf + bm25K1*norm)
		age := float64(max(0, now-c.ts))
		c.score = rel / (1 + age/float64(halfLife.Milliseconds()))
	}
	sortCands(cs)
	return cs[:min(limit, len(cs))]
}

// textLen is the length of a marked text without its marks.
func textLen(marked string) int {
	return len(marked) - strings.Count(marked, "\x02") - strings.Count(marked, "\x03")
}
