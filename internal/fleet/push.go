package fleet

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"piweb/internal/catalog"
)

// batch is one push: what it writes of the sessions, and their new rows
// (sent as they reach flushBytes).
type batch struct {
	machine, share string
	sessions       sessionCols
	deleted        []string
	switched       [][2]string // path, new leaf: flags of older entries change
	rows           rowsOut
	more           []string // files with lines left for the next batch
	bytes          int64
}

// pushBatch pushes paths in one transaction: one query for what the
// database has, then the rows the files add. It returns the paths that
// need another batch (a file longer than the byte budget).
func (p *Pusher) pushBatch(ctx context.Context, conn *pgx.Conn, paths []string) (more []string, err error) {
	b := &batch{machine: p.o.Machine, share: p.o.Share, rows: rowsOut{machine: p.o.Machine, lex: p.lexes.Load(), limit: p.o.flushBytes}}
	paths = p.storable(paths)
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		// The database is the only cursor: a commit lost to a server crash
		// is pushed again from what the server kept, so a push need not
		// wait for the WAL flush.
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		have, err := loadStored(ctx, tx, p.o.Machine, paths)
		if err != nil {
			return err
		}
		if err := p.planAll(ctx, tx, b, paths, have); err != nil {
			return err
		}
		if err := b.write(ctx, tx); err != nil {
			return err
		}
		if p.midBatch != nil {
			p.hookMu.Lock()
			p.midBatch() // tests: the database crashes before the commit
			p.hookMu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.counts.add(b)
	p.mu.Unlock()
	return b.more, nil
}

// planAll adds each file's new rows to b until its byte budget is
// spent, and sends them over tx as they reach the flush size, on a
// goroutine of their own: the server inserts one piece while the next
// is read and parsed.
func (p *Pusher) planAll(ctx context.Context, tx pgx.Tx, b *batch, paths []string, have map[string]*stored) error {
	s := startSender(ctx, tx)
	err := p.planEach(b, paths, have, s)
	if err == nil {
		err = s.send(b.rows.take())
	}
	if werr := s.wait(); werr != nil {
		return werr // the sender's failure is the cause of any of ours
	}
	return err
}

// planEach plans paths in order into b, handing its rows to s whenever
// they are full.
func (p *Pusher) planEach(b *batch, paths []string, have map[string]*stored, s *sender) error {
	for i, path := range paths {
		if b.bytes >= p.o.MaxBytes {
			// The batch is full: the rest waits for the next one.
			b.more = append(b.more, paths[i:]...)
			return nil
		}
		if err := p.plan(b, path, have[path]); err != nil {
			return err
		}
		if b.rows.full() {
			if err := s.send(b.rows.take()); err != nil {
				return err
			}
		}
	}
	return nil
}

// storable leaves out the paths that are not UTF-8: PostgreSQL text
// holds UTF-8 only, and such a file stays local rather than failing
// every batch it is in.
func (p *Pusher) storable(paths []string) []string {
	out := paths[:0:0]
	for _, path := range paths {
		if utf8.ValidString(path) {
			out = append(out, path)
		} else {
			p.log.Warn("fleet: a session file's path is not UTF-8; not pushed", "path", path)
		}
	}
	return out
}

// plan adds what path needs to b: nothing when the database is current,
// a deletion mark when the file is gone from the listing, else its new
// lines (all of them when it was rewritten).
func (p *Pusher) plan(b *batch, path string, have *stored) error {
	m, listed := p.o.Source.ByPath(path)
	if !listed {
		if have != nil && !have.deleted {
			b.deleted = append(b.deleted, path)
		}
		return nil
	}
	from := have
	if have != nil && have.share != p.o.Share {
		from = nil // what is pushed changed: push the file again
	}
	c, err := readChunk(path, from, p.o.MaxBytes-b.bytes)
	c.replace = c.replace || (have != nil && from == nil)
	if errors.Is(err, fs.ErrNotExist) {
		if have != nil && !have.deleted {
			b.deleted = append(b.deleted, path)
		}
		return nil
	}
	if err != nil {
		p.log.Warn("fleet: cannot read a session file", "path", path, "err", err)
		return nil // its next change retries
	}
	meta := metaOf(m)
	if have != nil && !c.replace && c.end == have.offset && !have.deleted && have.share == p.o.Share && meta.same(have.meta) {
		return nil
	}
	b.add(c, meta, have)
	return nil
}

// add adds a chunk's rows.
func (b *batch) add(c chunk, meta metaRow, have *stored) {
	if c.replace {
		b.rows.replaced = append(b.rows.replaced, c.path)
	}
	if c.more {
		b.more = append(b.more, c.path)
	}
	b.bytes += int64(len(c.data))
	pr := parseChunk(c)
	leaf := pr.leaf
	if leaf == "" && have != nil && !c.replace {
		leaf = have.leaf
	}
	// The new leaf's path leaves the old branch (or starts a new root):
	// older entries' flags change.
	if have != nil && !c.replace && len(pr.entries) > 0 && have.leaf != "" && (pr.rootPath || pr.exitParent != have.leaf) {
		b.switched = append(b.switched, [2]string{c.path, pr.leaf})
	}
	b.sessions.add(c.path, meta, c.head, c.tail, c.end, c.fromLine+c.lines, leaf)
	for _, u := range pr.usage {
		b.rows.addUsage(c.path, meta.sessionID, u)
	}
	if b.share != ShareFull {
		return
	}
	for _, e := range pr.entries {
		b.rows.addEntry(c.path, e)
	}
	line, off := c.fromLine, c.from
	for rest := c.data; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		line++
		b.rows.addLine(c.path, line, off, rest[:i])
		off += int64(i + 1)
		rest = rest[i+1:]
	}
}

// write runs the batch's last statements in tx, once its rows are sent
// (planAll): the sessions' upsert, branch flags of switched sessions
// recomputed, and gone files marked deleted. The upsert comes after the
// rows, which is what moves each file's cursor.
func (b *batch) write(ctx context.Context, tx pgx.Tx) error {
	if err := b.sessions.upsert(ctx, tx, b.machine, b.share); err != nil {
		return err
	}
	for _, s := range b.switched {
		if _, err := tx.Exec(ctx, switchSQL, b.machine, s[0], s[1]); err != nil {
			return err
		}
	}
	if len(b.deleted) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE fleet.sessions SET deleted = true, updated_at = now()
			WHERE machine = $1 AND path = ANY($2)`, b.machine, b.deleted); err != nil {
			return err
		}
	}
	if len(b.sessions.path) == 0 && len(b.deleted) == 0 {
		return nil
	}
	// Listeners (every fleet page's piweb) hear of it at the commit.
	_, err := tx.Exec(ctx, `UPDATE fleet.machines SET last_push = now(), last_heartbeat = now() WHERE name = $1`, b.machine)
	if err == nil {
		_, err = tx.Exec(ctx, `SELECT pg_notify('`+Channel+`', $1)`, b.machine)
	}
	return err
}

// Channel is the notification channel a push notifies at its commit,
// with the machine's name as payload.
const Channel = "piweb_fleet"

// switchSQL recomputes the branch flags of a session whose new leaf does
// not extend the old branch: the path from the leaf (the last entry with
// that id) up to its root is on the branch, nothing else. UNION stops at
// a parent cycle.
const switchSQL = `WITH RECURSIVE up(entry_id, parent_id) AS (
	(SELECT entry_id, parent_id FROM fleet.entries WHERE machine = $1 AND path = $2 AND entry_id = $3 ORDER BY line DESC LIMIT 1)
	UNION
	SELECT e.entry_id, e.parent_id FROM fleet.entries e JOIN up ON e.machine = $1 AND e.path = $2 AND e.entry_id = up.parent_id
)
UPDATE fleet.entries SET on_branch = (entry_id IN (SELECT entry_id FROM up))
WHERE machine = $1 AND path = $2 AND on_branch IS DISTINCT FROM (entry_id IN (SELECT entry_id FROM up))`

// metasOf lists the local sessions' paths.
func pathsOf(metas []catalog.Meta) []string {
	out := make([]string, len(metas))
	for i, m := range metas {
		out[i] = m.Path
	}
	return out
}
