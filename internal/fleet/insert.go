package fleet

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// flushBytes bounds the rows a batch holds before sending them: a batch
// of 32 MB of files no longer sits in memory as its rows, their column
// arrays and the statement's encoded parameters all at once (the peak
// RSS of a first push of 25,000 sessions was 664 MB). Two pieces per
// batch are held since they are sent while the next fills (sender): at
// 2 MB a first push of 25,000 sessions peaked at 229 MB of RSS, at 4 MB
// at 288 MB, no slower (bench/NOTES.md).
const flushBytes = 2 << 20

// rowsOut is a batch's new entries, usage and lines as the column arrays
// of their INSERT statements, sent whenever they reach flushBytes: each
// column one array parameter in PostgreSQL's binary format (arrays.go;
// NULLs as "" or 0, made NULL in SQL), since row-level security checks
// each row and COPY refuses a table under it. Nothing is staged, so a push
// leaves no dead rows behind to slow the next one. A full piece is taken
// (take) and sent by the batch's sender while the next fills. The rows of
// a replaced file go before any new row is sent (no foreign keys: a check
// per inserted row was most of a bulk push's cost on the server).
type rowsOut struct {
	machine  string
	lex      bool     // send plain texts' tsvectors (Pusher.lexes)
	limit    int      // flushBytes unless a test says otherwise
	replaced []string // replaced files whose old rows are not yet deleted
	entries  entryCols
	usage    usageCols
	lines    lineCols
	bytes    int
	sent     struct{ entries, usage, lines int }
}

type entryCols struct {
	path, id, parent, typ, role, text, tools []string
	line                                     []int32
	hasParent, onBranch, lexed               []bool
	ts                                       []int64
	tsv                                      [][]byte // tsvectorOf(text) when lexed
}

type usageCols struct {
	path, sessionID, entryID, model            []string
	line                                       []int32
	ts                                         []int64
	answer                                     []bool
	input, output, cacheRead, cacheWrite, cost []float64
}

type lineCols struct {
	path []string
	line []int32
	off  []int64
	raw  [][]byte
}

const insertEntriesSQL = `INSERT INTO fleet.entries (machine, path, line, entry_id, parent_id, type, role, ts, on_branch, text, tools)
SELECT $1, u.path, u.line, u.entry_id, CASE WHEN u.has_parent THEN u.parent_id END, u.type, u.role, NULLIF(u.ts, 0),
	u.on_branch, NULLIF(u.text, ''), NULLIF(u.tools, '')
FROM unnest($2::text[], $3::integer[], $4::text[], $5::text[], $6::boolean[], $7::text[], $8::text[], $9::bigint[],
	$10::boolean[], $11::text[], $12::text[])
	AS u(path, line, entry_id, parent_id, has_parent, type, role, ts, on_branch, text, tools)`

// insertLexedSQL is insertEntriesSQL with the plain texts' tsvectors
// (schema 3): the others' are NULL, which the trigger makes.
const insertLexedSQL = `INSERT INTO fleet.entries (machine, path, line, entry_id, parent_id, type, role, ts, on_branch, text, tools, tsv)
SELECT $1, u.path, u.line, u.entry_id, CASE WHEN u.has_parent THEN u.parent_id END, u.type, u.role, NULLIF(u.ts, 0),
	u.on_branch, NULLIF(u.text, ''), NULLIF(u.tools, ''), CASE WHEN u.lexed THEN u.tsv END
FROM unnest($2::text[], $3::integer[], $4::text[], $5::text[], $6::boolean[], $7::text[], $8::text[], $9::bigint[],
	$10::boolean[], $11::text[], $12::text[], $13::boolean[], $14::tsvector[])
	AS u(path, line, entry_id, parent_id, has_parent, type, role, ts, on_branch, text, tools, lexed, tsv)`

const insertUsageSQL = `INSERT INTO fleet.usage (machine, path, line, session_id, entry_id, ts, model, answer, input, output,
	cache_read, cache_write, cost)
SELECT $1, u.path, u.line, u.session_id, u.entry_id, NULLIF(u.ts, 0), u.model, u.answer, u.input, u.output, u.cache_read,
	u.cache_write, u.cost
FROM unnest($2::text[], $3::integer[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::boolean[], $9::float8[],
	$10::float8[], $11::float8[], $12::float8[], $13::float8[])
	AS u(path, line, session_id, entry_id, ts, model, answer, input, output, cache_read, cache_write, cost)`

const insertLinesSQL = `INSERT INTO fleet.lines (machine, path, line, off, raw)
SELECT $1, u.* FROM unnest($2::text[], $3::integer[], $4::bigint[], $5::bytea[]) AS u`

func (r *rowsOut) addEntry(path string, e entryRow) {
	c := &r.entries
	text, tools := e.text, e.tools
	if !e.searchable {
		text, tools = "", ""
	}
	c.path = append(c.path, path)
	c.line = append(c.line, int32(e.line))
	c.id = append(c.id, clean(e.id))
	c.parent = append(c.parent, clean(e.parent))
	c.hasParent = append(c.hasParent, e.hasParent)
	c.typ = append(c.typ, e.typ)
	c.role = append(c.role, e.role)
	c.ts = append(c.ts, e.ts)
	c.onBranch = append(c.onBranch, e.onBranch)
	c.text = append(c.text, text)
	c.tools = append(c.tools, tools)
	r.bytes += 64 + len(e.id) + len(e.parent) + len(text) + len(tools)
	if r.lex {
		tsv, lexed := tsvectorOf(text)
		if !lexed {
			tsv = emptyTsvector // not used: the server makes it
		}
		c.tsv = append(c.tsv, tsv)
		c.lexed = append(c.lexed, lexed)
		r.bytes += len(tsv)
	}
}

// emptyTsvector is a tsvector of no lexemes, in the binary format.
var emptyTsvector = []byte{0, 0, 0, 0}

func (r *rowsOut) addUsage(path, sessionID string, u usageRow) {
	c, ch := &r.usage, u.charge
	c.path = append(c.path, path)
	c.line = append(c.line, int32(u.line))
	c.sessionID = append(c.sessionID, sessionID)
	c.entryID = append(c.entryID, clean(u.entryID))
	c.ts = append(c.ts, u.ts)
	c.model = append(c.model, clean(ch.Key))
	c.answer = append(c.answer, ch.Answer)
	c.input = append(c.input, ch.Usage.Input)
	c.output = append(c.output, ch.Usage.Output)
	c.cacheRead = append(c.cacheRead, ch.Usage.CacheRead)
	c.cacheWrite = append(c.cacheWrite, ch.Usage.CacheWrite)
	c.cost = append(c.cost, ch.Usage.Cost.Total)
	r.bytes += 96 + len(u.entryID) + len(ch.Key)
}

func (r *rowsOut) addLine(path string, line int, off int64, raw []byte) {
	c := &r.lines
	c.path = append(c.path, path)
	c.line = append(c.line, int32(line))
	c.off = append(c.off, off)
	c.raw = append(c.raw, raw)
	r.bytes += 32 + len(raw)
}

// full reports whether the rows held reached the limit.
func (r *rowsOut) full() bool { return r.bytes >= r.limit }

// take hands over the rows held, with the replaced files whose old rows
// go first, leaving r empty (nil when it holds nothing).
func (r *rowsOut) take() *rowsOut {
	if len(r.replaced) == 0 && r.bytes == 0 {
		return nil
	}
	out := &rowsOut{machine: r.machine, lex: r.lex, replaced: r.replaced, entries: r.entries, usage: r.usage, lines: r.lines}
	r.sent.entries += len(r.entries.path)
	r.sent.usage += len(r.usage.path)
	r.sent.lines += len(r.lines.path)
	r.replaced, r.entries, r.usage, r.lines, r.bytes = nil, entryCols{}, usageCols{}, lineCols{}, 0
	return out
}

// send deletes the replaced files' old rows, then inserts the rows.
func (r *rowsOut) send(ctx context.Context, tx pgx.Tx) error {
	if len(r.replaced) > 0 {
		for _, table := range []string{"entries", "usage", "lines"} {
			if _, err := tx.Exec(ctx, `DELETE FROM fleet.`+table+` WHERE machine = $1 AND path = ANY($2)`, r.machine, r.replaced); err != nil {
				return err
			}
		}
	}
	e, u, l := &r.entries, &r.usage, &r.lines
	m := param{oidText, []byte(r.machine)}
	entries, entriesSQL := []param{m, {oidTextArray, textArray(e.path)}, {oidInt4Array, int4Array(e.line)},
		{oidTextArray, textArray(e.id)}, {oidTextArray, textArray(e.parent)}, {oidBoolArray, boolArray(e.hasParent)},
		{oidTextArray, textArray(e.typ)}, {oidTextArray, textArray(e.role)}, {oidInt8Array, int8Array(e.ts)},
		{oidBoolArray, boolArray(e.onBranch)}, {oidTextArray, textArray(e.text)}, {oidTextArray, textArray(e.tools)}}, insertEntriesSQL
	if r.lex {
		entries = append(entries, param{oidBoolArray, boolArray(e.lexed)}, param{oidTsvectorArray, bytesArray(oidTsvector, e.tsv)})
		entriesSQL = insertLexedSQL
	}
	for _, s := range []struct {
		n    int
		sql  string
		args []param
	}{
		{len(e.path), entriesSQL, entries},
		{len(u.path), insertUsageSQL, []param{m, {oidTextArray, textArray(u.path)}, {oidInt4Array, int4Array(u.line)},
			{oidTextArray, textArray(u.sessionID)}, {oidTextArray, textArray(u.entryID)}, {oidInt8Array, int8Array(u.ts)},
			{oidTextArray, textArray(u.model)}, {oidBoolArray, boolArray(u.answer)}, {oidFloat8Array, float8Array(u.input)},
			{oidFloat8Array, float8Array(u.output)}, {oidFloat8Array, float8Array(u.cacheRead)},
			{oidFloat8Array, float8Array(u.cacheWrite)}, {oidFloat8Array, float8Array(u.cost)}}},
		{len(l.path), insertLinesSQL, []param{m, {oidTextArray, textArray(l.path)}, {oidInt4Array, int4Array(l.line)},
			{oidInt8Array, int8Array(l.off)}, {oidByteaArray, byteaArray(l.raw)}}},
	} {
		if s.n == 0 {
			continue
		}
		vals, oids, formats := params(s.args...)
		if res := tx.Conn().PgConn().ExecParams(ctx, s.sql, vals, oids, formats, nil).Read(); res.Err != nil {
			return res.Err
		}
	}
	return nil
}

// sender sends a batch's rows over its transaction on a goroutine of its
// own, one piece at a time, while the pusher reads and parses the next
// piece: the server's inserts and the pusher's work overlap, and at most
// two pieces (the one sent, the one filled) are held per batch.
type sender struct {
	ch      chan *rowsOut
	stopped chan struct{}
	err     error // why it stopped early; read once stopped is closed
}

func startSender(ctx context.Context, tx pgx.Tx) *sender {
	s := &sender{ch: make(chan *rowsOut), stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		for r := range s.ch {
			if err := r.send(ctx, tx); err != nil {
				s.err = err
				return
			}
		}
	}()
	return s
}

// send hands r to the sender (nil: nothing to send), waiting while it
// sends the previous piece; the sender's error once it has failed.
func (s *sender) send(r *rowsOut) error {
	if r == nil {
		return nil
	}
	select {
	case s.ch <- r:
		return nil
	case <-s.stopped:
		return s.err
	}
}

// wait waits until every piece handed over is sent, and says why not.
func (s *sender) wait() error {
	close(s.ch)
	<-s.stopped
	return s.err
}
