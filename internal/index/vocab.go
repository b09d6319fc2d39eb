package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The vocabulary serves prefix queries. FTS5 answers "fu*" by merging the
// lists of every indexed word that starts with "fu" into one list before
// it returns the first row, so a prefix of a common word costs as much as
// reading all its postings (hundreds of ms on 2 GB of sessions). The
// vocab table lists every word of the index; a prefix is rewritten as an
// OR of its completions, which FTS5 walks lazily from the newest row and
// stops early, and which matches exactly the same rows.
//
// That needs every word to be listed, else a prefix would miss rows. The
// list is taken from FTS5 itself (the fts5vocab table fts_terms) after a
// bulk text pass, and kept current after that by tokenizing newly indexed
// text with the same tokenizer in a temporary table (addVocab). meta key
// "vocab" is "ok" while it is complete; while it is not (during and after
// an interrupted bulk pass), prefixes go to FTS5 as they are. All of it
// is in the text file (textdb.go; meta is its tmeta). Words of
// deleted text stay listed until the next rebuild: their completions then
// match nothing, which costs a lookup.

// maxExpand is the most completions a prefix is rewritten into; an OR of
// a few hundred words still costs a few ms, thousands cost more than
// FTS5's own merge.
const maxExpand = 256

// vocabOK reports whether the vocabulary lists every indexed word.
func vocabOK(ctx context.Context, q querier) (bool, error) {
	v, err := tmetaValue(ctx, q, "vocab")
	return v == "ok", wrap("vocab", err)
}

// querier is what reads need of *sql.DB, *sql.Tx and *sql.Conn.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// expander returns the prefix expansion of ftsQuery over q, nil when the
// vocabulary is not complete.
func expander(ctx context.Context, q querier) (func(string) ([]string, bool), error) {
	ok, err := vocabOK(ctx, q)
	if err != nil || !ok {
		return nil, err
	}
	return func(prefix string) ([]string, bool) {
		words, err := completions(ctx, q, prefix)
		return words, err == nil && len(words) <= maxExpand
	}, nil
}

// widePrefixes lists the prefixes of text (with their *) that stand for
// more than maxExpand words, which the expansion leaves to FTS5.
func widePrefixes(ctx context.Context, q querier, text string) ([]string, error) {
	var out []string
	for _, t := range parseQuery(text) {
		words, ok := asciiWords(t.text)
		if !t.prefix || !ok {
			continue
		}
		full, err := completions(ctx, q, words[len(words)-1])
		if err != nil {
			return nil, err
		}
		if len(full) > maxExpand {
			out = append(out, t.text+"*")
		}
	}
	return out, nil
}

// WideNote says what a wide prefix (Answer.Wide) did to a partial answer,
// for the page and the command line.
func WideNote(prefix string) string {
	return fmt.Sprintf("%s stands for more than %d words, too many to read within the search's time: type more of the word", prefix, maxExpand)
}

// completions lists up to maxExpand+1 words that start with the ASCII
// prefix p.
func completions(ctx context.Context, q querier, p string) ([]string, error) {
	end := p[:len(p)-1] + string(p[len(p)-1]+1)
	return texts(ctx, q, "vocab", `SELECT term FROM vocab WHERE term >= ? AND term < ? LIMIT ?`, p, end, maxExpand+1)
}

// texts runs query, whose rows are one text each, and returns them in
// order; its errors say op.
func texts(ctx context.Context, q querier, op, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	return collect(rows, err, op, func(r *sql.Rows, s *string) error { return r.Scan(s) })
}

// collect reads every row of a query's rows (err its error) with scan and
// closes them; its errors say op, and come with the rows read before.
func collect[T any](rows *sql.Rows, err error, op string, scan func(*sql.Rows, *T) error) ([]T, error) {
	if err != nil {
		return nil, wrap(op, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return out, wrap(op, err)
		}
		out = append(out, v)
	}
	return out, wrap(op, rows.Err())
}

// setVocab records whether the vocabulary is complete.
func setVocab(ctx context.Context, tx *sql.Tx, ok bool) error {
	v := "stale"
	if ok {
		v = "ok"
	}
	return wrap("vocab", setTmeta(ctx, tx, "vocab", v))
}

// rebuildVocab lists every word of the index again.
func rebuildVocab(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{`DELETE FROM vocab`, `INSERT INTO vocab(term) SELECT term FROM fts_terms`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return wrap("rebuild vocab", err)
		}
	}
	return setVocab(ctx, tx, true)
}

// addVocab adds the words of newly indexed texts, tokenized by FTS5 in a
// temporary table of the writer's connection.
func addVocab(ctx context.Context, tx *sql.Tx, texts []string) error {
	if len(texts) == 0 {
		return nil
	}
	for _, q := range []string{
		`CREATE VIRTUAL TABLE IF NOT EXISTS temp.newtext USING fts5(text, content='', detail=none, ` + tokenizer + `)`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS temp.newterms USING fts5vocab(temp, newtext, row)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return wrap("vocab", err)
		}
	}
	// One row of all texts: a newline separates words as well.
	if _, err := tx.ExecContext(ctx, `INSERT INTO temp.newtext(text) VALUES(?)`, strings.Join(texts, "\n")); err != nil {
		return wrap("vocab", err)
	}
	for _, q := range []string{
		`INSERT OR IGNORE INTO vocab(term) SELECT term FROM temp.newterms`,
		`INSERT INTO temp.newtext(newtext) VALUES('delete-all')`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return wrap("vocab", err)
		}
	}
	return nil
}
