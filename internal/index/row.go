package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
)

// fileRow is a files row as the updater needs it.
type fileRow struct {
	id                  int64
	path                string
	listAll             bool
	fid                 fileID
	offset, line        int64
	hdrOff, hdrLen      int64
	hdrHash, tailHash   []byte
	textOffset, textLin int64
	err                 string
	body                body
	meta                meta
	problems            []problemJSON
	head                head
}

// problemJSON is a saved problem of a file.
type problemJSON struct {
	Line    int    `json:"line,omitempty"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

const rowCols = `id, path, listall, dev, ino, size, mtime_ns, offset, line, hdr_off, hdr_len, hdr_hash, tail_hash,
	text_offset, text_line, error, id_raw, cwd, parent_raw, created, created_str, listed, body, meta, problems,
	first_message, first_size`

// loadRow reads one file's row; nil when the file is not indexed.
func loadRow(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, path string) (*fileRow, error) {
	r := &fileRow{}
	var dev, ino int64
	var idRaw, parentRaw sql.NullString
	var created sql.NullFloat64
	var bodyJ, metaJ, probJ, first string
	err := q.QueryRowContext(ctx, `SELECT `+rowCols+` FROM files WHERE path = ?`, path).Scan(
		&r.id, &r.path, &r.listAll, &dev, &ino, &r.fid.size, &r.fid.mtimeNs, &r.offset, &r.line,
		&r.hdrOff, &r.hdrLen, &r.hdrHash, &r.tailHash, &r.textOffset, &r.textLin, &r.err,
		&idRaw, &r.head.info.Cwd, &parentRaw, &created, &r.head.created, &r.head.ok, &bodyJ, &metaJ, &probJ,
		&first, &r.body.FirstSize)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("index: load %s: %w", path, err)
	}
	r.fid.dev, r.fid.ino, r.fid.regular = uint64(dev), uint64(ino), true
	r.head.off, r.head.len, r.head.hash = r.hdrOff, r.hdrLen, r.hdrHash
	if idRaw.Valid {
		r.head.info.ID = []byte(idRaw.String)
		r.head.idStr = str(r.head.info.ID)
	}
	if parentRaw.Valid {
		r.head.info.ParentSessionPath = []byte(parentRaw.String)
	}
	r.head.info.Created = math.NaN()
	if created.Valid {
		r.head.info.Created = created.Float64
	}
	if err := unmarshalAll(bodyJ, &r.body, metaJ, &r.meta, probJ, &r.problems); err != nil {
		return nil, fmt.Errorf("index: load %s: %w", path, err)
	}
	if r.body.HasFirst { // its head: the whole one is kept (first.go)
		r.body.FirstMessage, r.body.FirstStored = first, true
	}
	return r, nil
}

func unmarshalAll(pairs ...any) error {
	for i := 0; i < len(pairs); i += 2 {
		if s := pairs[i].(string); s != "" {
			if err := json.Unmarshal([]byte(s), pairs[i+1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// nullable returns raw as a nullable text value.
func nullable(raw []byte) any {
	if raw == nil {
		return nil
	}
	return string(raw)
}

func nullFloat(f float64) any {
	if math.IsNaN(f) {
		return nil
	}
	return f
}
