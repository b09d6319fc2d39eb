package index

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
)

// The text index (FTS5 and its word list) is a file of its own beside the
// index, written by its own connection on its own goroutine (textwriter.go)
// while the writer of the index file writes the files and entries rows:
// SQLite lets one writer a file, and a cold index of 2 GB was one
// thread's work (issue 24 item 3; decision 0050). Readers attach it
// (schema textSchema), so queries name its tables as before.
//
// A write transaction of the index commits the text file's transaction
// first, then its own. A crash between the two leaves text rows whose
// entries rows were never committed: entries rowids are given out from a
// counter that only grows (takeRowids), so those are exactly the text rows
// at or above the committed counter, and repairText deletes them when the
// index is opened (and after a failed commit). The files rows, not
// committed either, still describe the files as they were before, so the
// next Sync reads the same changes again and writes their entries and text
// once. Text deleted in such a transaction (a rewritten or removed file's)
// stays missing, its entries rows there, until that Sync clears them too.
// The counter is the text file's progress: per file it would say the
// same, since the text rows of a file's entries are written in the order
// of their rowids.

// textSchema is the text file's; fts's rowid is entries's.
var textSchema = []string{
	`CREATE TABLE tmeta(key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	// columnsize=0: FTS5 keeps no size of each row's text (its docsize
	// table, a B-tree row per text row), which only its bm25() and rank
	// read; search ranks in Go from highlight()'s text (search.go). The
	// cold index writes ~4% faster (BenchmarkColdIndex, 453 MB).
	`CREATE VIRTUAL TABLE fts USING fts5(text, columnsize=0, ` + tokenizer + `)`,
	// Pages of 16 KB instead of 4 KB: FTS5 seeks backwards through a long
	// word's list page by page, and a search newest first from a rowid deep
	// in the list (a filter's range) costs 15 ms with 4 KB pages, 1 ms here.
	`INSERT INTO fts(fts, rank) VALUES('pgsz', 16000)`,
	// fts_terms reads FTS5's word list, vocab keeps it for prefix queries
	// (vocab.go).
	`CREATE VIRTUAL TABLE fts_terms USING fts5vocab(fts, row)`,
	`CREATE TABLE vocab(term TEXT PRIMARY KEY) WITHOUT ROWID`,
}

// Each page cache is resident memory (issue 21: at most 300 MB), and the
// index file's connections keep theirs (dsn: 8 MB): the text file's
// writer, which appends (FTS5's content rows and segments) and holds its
// pending text apart, and each reader's attached text file have a quarter
// of that. (With 8 MB for each file a reader, the cold catalog of 25,000
// sessions held 15 MB more, BenchmarkMemManyFiles.)
const (
	textCacheKB       = 2048
	readerTextCacheKB = 2048
)

// tmetaValue is tmeta's value of key, "" when it has none.
func tmetaValue(ctx context.Context, q querier, key string) (string, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM tmeta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// setTmeta sets tmeta's value of key.
func setTmeta(ctx context.Context, tx *sql.Tx, key, value string) error {
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO tmeta(key, value) VALUES(?, ?)`, key, value)
	return err
}

// textSchemaName is the text file's name in the readers' connections.
const textSchemaName = "ft"

// textPath is the text file of the index at dbPath.
func textPath(dbPath string) string { return dbPath + ".text" }

// newTextID is a random id that ties a text file to its index file.
func newTextID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// prepareText checks that the text file is the index's (its id), creating
// its schema when the index file was created now; any other text file is
// an error, for openDB to rebuild both.
func prepareText(ctx context.Context, tdb *sql.DB, id string, created bool) error {
	var v int
	if err := tdb.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("index: read text version: %w", err)
	}
	if v == 0 && created {
		var n int
		if err := tdb.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil || n != 0 {
			return fmt.Errorf("index: unversioned non-empty text file (%v)", err)
		}
		return createSchema(ctx, tdb, textSchema, "tmeta", map[string]string{"textid": id})
	}
	if v != schemaVersion {
		return fmt.Errorf("index: text file of schema version %d, want %d", v, schemaVersion)
	}
	var got string
	if err := tdb.QueryRowContext(ctx, `SELECT value FROM tmeta WHERE key = 'textid'`).Scan(&got); err != nil || got != id {
		return fmt.Errorf("index: text file of another index (%v)", err)
	}
	if err := tdb.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT rowid FROM fts LIMIT 1)`).Scan(new(int)); err != nil {
		return fmt.Errorf("index: corrupt text file: %w", err)
	}
	return nil
}

// recoverDB takes up what a crash left: the text rows of an index
// transaction not committed (repairText) and the branch index a bulk pass
// dropped (dropBranchIndex).
func recoverDB(ctx context.Context, wdb, tdb *sql.DB) error {
	if err := repairText(ctx, wdb, tdb); err != nil {
		return err
	}
	return createBranchIndex(ctx, wdb)
}

// createBranchIndex creates entries_branch if it is not there. Its sort
// goes to temporary files, not to memory (temp_store): a cold index of
// 25,000 sessions sorted 30 MB of keys in memory
// (BenchmarkMemManyFiles).
func createBranchIndex(ctx context.Context, wdb *sql.DB) error {
	c, err := wdb.Conn(ctx)
	if err != nil {
		return wrap("create index", err)
	}
	defer c.Close()
	for _, q := range []string{`PRAGMA temp_store = FILE`, branchIndex, `PRAGMA temp_store = MEMORY`} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			return wrap("create index", err)
		}
	}
	return nil
}

// repairText deletes the text rows of entries rows that were never
// committed (at or above the committed rowid counter): a crash or a
// failed commit between the text file's commit and the index's.
func repairText(ctx context.Context, wdb, tdb *sql.DB) error {
	var next int64
	if err := wdb.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'nextrow'`).Scan(&next); err != nil {
		return wrap("repair text", err)
	}
	var top int64
	if err := tdb.QueryRowContext(ctx, `SELECT coalesce(max(rowid), 0) FROM fts`).Scan(&top); err != nil || top < next {
		return wrap("repair text", err)
	}
	_, err := tdb.ExecContext(ctx, `DELETE FROM fts WHERE rowid >= ?`, next)
	return wrap("repair text", err)
}

// readers is the read-only pool of the index, each connection with the
// text file attached.
func readers(path string) *sql.DB {
	drv := sqliteDriver()
	return sql.OpenDB(attaching{drv: drv, dsn: readerDSN(path, indexCacheKB) + "&_pragma=query_only(1)", text: textPath(path)})
}

// sqliteDriver is the driver registered as "sqlite".
func sqliteDriver() driver.Driver {
	db, _ := sql.Open("sqlite", "")
	defer db.Close()
	return db.Driver()
}

// attaching opens connections with the text file attached, with the page
// cache and mapping of dsn's.
type attaching struct {
	drv       driver.Driver
	dsn, text string
}

func (a attaching) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := a.drv.Open(a.dsn)
	if err != nil {
		return nil, err
	}
	ex, ok := c.(driver.ExecerContext)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("index: driver cannot attach")
	}
	for _, q := range []string{`ATTACH DATABASE ? AS ` + textSchemaName,
		`PRAGMA ` + textSchemaName + `.cache_size = -` + strconv.Itoa(readerTextCacheKB), `PRAGMA ` + textSchemaName + `.mmap_size = 0`} {
		var args []driver.NamedValue
		if q[0] == 'A' {
			args = []driver.NamedValue{{Ordinal: 1, Value: "file:" + a.text}}
		}
		if _, err := ex.ExecContext(ctx, q, args); err != nil {
			c.Close()
			return nil, fmt.Errorf("index: attach text: %w", err)
		}
	}
	return c, nil
}

func (a attaching) Driver() driver.Driver { return a.drv }
