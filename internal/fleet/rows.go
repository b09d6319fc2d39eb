package fleet

import (
	"context"

	"github.com/jackc/pgx/v5"

	"piweb/internal/catalog"
)

// metaRow is a session's listing fields as fleet.sessions stores them.
type metaRow struct {
	key, sessionID, cwd, name string
	hasName                   bool
	created, modified         float64
	messageCount              int
	firstMessage, parentPath  string
	size                      int64
}

func metaOf(m catalog.Meta) metaRow {
	return metaRow{key: clean(m.Key), sessionID: clean(m.ID), cwd: clean(m.Cwd), name: clean(m.Name), hasName: m.HasName,
		created: m.Created, modified: m.Modified, messageCount: m.MessageCount, firstMessage: clean(m.FirstMessage),
		parentPath: clean(m.ParentPath), size: m.Size}
}

// same compares listings, two invalid (NaN) dates as equal.
func (a metaRow) same(b metaRow) bool {
	nan := func(x, y float64) bool { return x == y || (x != x && y != y) }
	ac, bc := a, b
	ac.created, ac.modified, bc.created, bc.modified = 0, 0, 0, 0
	return ac == bc && nan(a.created, b.created) && nan(a.modified, b.modified)
}

// loadStored is the one query a batch asks: what the database has of the
// batch's files.
func loadStored(ctx context.Context, tx pgx.Tx, machine string, paths []string) (map[string]*stored, error) {
	rows, err := tx.Query(ctx, `SELECT path, pushed_offset, pushed_lines, head_hash, tail_hash, leaf_id, deleted, share,
		key, session_id, cwd, name, has_name, created, modified, message_count, first_message, parent_path, size
		FROM fleet.sessions WHERE machine = $1 AND path = ANY($2)`, machine, paths)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]*stored, len(paths))
	for rows.Next() {
		var p string
		var s stored
		m := &s.meta
		if err := rows.Scan(&p, &s.offset, &s.lines, &s.head, &s.tail, &s.leaf, &s.deleted, &s.share,
			&m.key, &m.sessionID, &m.cwd, &m.name, &m.hasName, &m.created, &m.modified, &m.messageCount,
			&m.firstMessage, &m.parentPath, &m.size); err != nil {
			return nil, err
		}
		out[p] = &s
	}
	return out, rows.Err()
}

// sessionCols are the columns a push writes of fleet.sessions, in the
// order of the arrays upsertSessions passes.
const upsertSQL = `INSERT INTO fleet.sessions (machine, path, key, session_id, cwd, name, has_name, created, modified,
	message_count, first_message, parent_path, size, deleted, head_hash, tail_hash, pushed_offset, pushed_lines, leaf_id, share)
SELECT $1, u.path, u.key, u.session_id, u.cwd, u.name, u.has_name, u.created, u.modified, u.message_count,
	u.first_message, u.parent_path, u.size, false, u.head_hash, u.tail_hash, u.pushed_offset, u.pushed_lines, u.leaf_id, $2
FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::boolean[], $9::float8[], $10::float8[],
	$11::integer[], $12::text[], $13::text[], $14::bigint[], $15::bytea[], $16::bytea[], $17::bigint[], $18::integer[], $19::text[])
	AS u(path, key, session_id, cwd, name, has_name, created, modified, message_count, first_message, parent_path, size,
	head_hash, tail_hash, pushed_offset, pushed_lines, leaf_id)
ON CONFLICT (machine, path) DO UPDATE SET key = EXCLUDED.key, session_id = EXCLUDED.session_id, cwd = EXCLUDED.cwd,
	name = EXCLUDED.name, has_name = EXCLUDED.has_name, created = EXCLUDED.created, modified = EXCLUDED.modified,
	message_count = EXCLUDED.message_count, first_message = EXCLUDED.first_message, parent_path = EXCLUDED.parent_path,
	size = EXCLUDED.size, deleted = false, head_hash = EXCLUDED.head_hash, tail_hash = EXCLUDED.tail_hash,
	pushed_offset = EXCLUDED.pushed_offset, pushed_lines = EXCLUDED.pushed_lines, leaf_id = EXCLUDED.leaf_id,
	share = EXCLUDED.share, updated_at = now()`

// sessionCols holds the upsert's arrays, one element per session.
type sessionCols struct {
	path, key, sessionID, cwd, name []string
	hasName                         []bool
	created, modified               []float64
	messageCount                    []int32
	firstMessage, parentPath        []string
	size                            []int64
	head, tail                      [][]byte
	offset                          []int64
	lines                           []int32
	leaf                            []string
}

func (s *sessionCols) add(path string, m metaRow, head, tail []byte, offset int64, lines int, leaf string) {
	s.path = append(s.path, path)
	s.key = append(s.key, m.key)
	s.sessionID = append(s.sessionID, m.sessionID)
	s.cwd = append(s.cwd, m.cwd)
	s.name = append(s.name, m.name)
	s.hasName = append(s.hasName, m.hasName)
	s.created = append(s.created, m.created)
	s.modified = append(s.modified, m.modified)
	s.messageCount = append(s.messageCount, int32(m.messageCount))
	s.firstMessage = append(s.firstMessage, m.firstMessage)
	s.parentPath = append(s.parentPath, m.parentPath)
	s.size = append(s.size, m.size)
	s.head = append(s.head, head)
	s.tail = append(s.tail, tail)
	s.offset = append(s.offset, offset)
	s.lines = append(s.lines, int32(lines))
	s.leaf = append(s.leaf, leaf)
}

func (s *sessionCols) upsert(ctx context.Context, tx pgx.Tx, machine, share string) error {
	if len(s.path) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, upsertSQL, machine, share, s.path, s.key, s.sessionID, s.cwd, s.name, s.hasName, s.created,
		s.modified, s.messageCount, s.firstMessage, s.parentPath, s.size, s.head, s.tail, s.offset, s.lines, s.leaf)
	return err
}
