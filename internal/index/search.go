package index

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Query is a search.
type Query struct {
	// Text is what the user typed; see the query rules in query.go.
	Text string
	// Cwd keeps sessions of this project only; Model keeps sessions that
	// used this model ("provider/id" or just "id").
	Cwd, Model string
	// From and To keep entries with From <= timestamp < To; zero is open.
	From, To time.Time
	// Limit is the number of hits; 0 means 20.
	Limit int
	// Now is the reference time for recency ranking; zero means now.
	Now time.Time
}

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
const candidates = 1000

// halfLife sets the recency weight: a hit this old counts half as much as
// an equally relevant one from now.
const halfLife = 30 * 24 * time.Hour

// Search runs a query. Any text is a valid query; text without words
// finds nothing.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	match, ok := ftsQuery(q.Text)
	if !ok {
		return nil, nil
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	if q.Now.IsZero() {
		q.Now = time.Now()
	}
	where, args := filters(q)
	// Without filters the newest matches need no join.
	cand := `SELECT fts.rowid AS rid, bm25(fts) AS rank FROM fts
			WHERE fts MATCH ?1 ORDER BY fts.rowid DESC LIMIT %[2]d`
	if where != "" {
		cand = `SELECT fts.rowid AS rid, bm25(fts) AS rank FROM fts
			JOIN entries e ON e.rowid = fts.rowid JOIN files f ON f.id = e.file_id
			WHERE fts MATCH ?1 %[1]s ORDER BY fts.rowid DESC LIMIT %[2]d`
	}
	sqlText := fmt.Sprintf(`WITH m AS MATERIALIZED (`+cand+`),
		top AS MATERIALIZED (
			SELECT m.rid, -m.rank / (1.0 + max(0, ?2 - e.ts) / ?3) AS score
			FROM m JOIN entries e ON e.rowid = m.rid ORDER BY score DESC LIMIT ?4)
		SELECT f.session_id, f.path, f.cwd, e.eid, e.role, e.model, e.ts, e.on_branch, top.score,
			snippet(fts, 0, char(2), char(3), '…', 16)
		FROM top JOIN fts ON fts.rowid = top.rid JOIN entries e ON e.rowid = top.rid JOIN files f ON f.id = e.file_id
		WHERE fts MATCH ?1 ORDER BY top.score DESC`, where, candidates)
	args = append([]any{match, q.Now.UnixMilli(), float64(halfLife.Milliseconds()), q.Limit}, args...)
	rows, err := ix.db.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, wrap("search", err)
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		var snip string
		if err := rows.Scan(&h.SessionID, &h.Path, &h.Cwd, &h.EntryID, &h.Role, &h.Model, &h.Timestamp, &h.OnBranch, &h.Score, &snip); err != nil {
			return nil, wrap("search", err)
		}
		h.Snippet = spans(snip)
		hits = append(hits, h)
	}
	return hits, wrap("search", rows.Err())
}

// filters returns the SQL conditions of the query's filters; their
// parameters are numbered from ?5.
func filters(q Query) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		args = append(args, arg)
		conds = append(conds, strings.ReplaceAll(cond, "?", fmt.Sprintf("?%d", 4+len(args))))
	}
	if q.Cwd != "" {
		add("f.cwd = ?", q.Cwd)
	}
	if !q.From.IsZero() {
		add("e.ts >= ?", q.From.UnixMilli())
	}
	if !q.To.IsZero() {
		add("e.ts < ?", q.To.UnixMilli())
	}
	if q.Model != "" {
		add(`EXISTS (SELECT 1 FROM json_each(f.meta, '$.models') WHERE value = ? OR value LIKE '%/' || ?)`, q.Model)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return "AND " + strings.Join(conds, " AND "), args
}

// spans splits a snippet marked with \x02 ... \x03.
func spans(s string) []Span {
	var out []Span
	for s != "" {
		i := strings.IndexByte(s, 2)
		if i < 0 {
			return append(out, Span{Text: s})
		}
		if i > 0 {
			out = append(out, Span{Text: s[:i]})
		}
		s = s[i+1:]
		j := strings.IndexByte(s, 3)
		if j < 0 {
			j = len(s)
		}
		out = append(out, Span{Text: s[:j], Match: true})
		s = s[min(j+1, len(s)):]
	}
	return out
}
