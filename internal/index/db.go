package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, FTS5 built in)
)

// schemaVersion is stored in PRAGMA user_version. Any other value, including
// a newer one, means the file is deleted and rebuilt: the index is derived
// data and is never migrated.
const schemaVersion = 12

var schema = []string{
	`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	// files holds one row per session file: its identity on disk, how far it
	// was parsed, and its metadata. Listing fields are columns so that a warm
	// listing reads no JSON. first_message is the first message's head and
	// first_size its whole size; info_json is the listing's element up to
	// its firstMessage (first.go).
	`CREATE TABLE files(
		id INTEGER PRIMARY KEY,
		path TEXT NOT NULL UNIQUE,
		listall INTEGER NOT NULL,
		dev INTEGER NOT NULL, ino INTEGER NOT NULL,
		size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
		offset INTEGER NOT NULL, line INTEGER NOT NULL,
		hdr_off INTEGER NOT NULL, hdr_len INTEGER NOT NULL, hdr_hash BLOB,
		tail_hash BLOB,
		text_offset INTEGER NOT NULL, text_line INTEGER NOT NULL,
		error TEXT NOT NULL,
		listed INTEGER NOT NULL,
		session_id TEXT NOT NULL, id_raw TEXT, cwd TEXT NOT NULL,
		parent_raw TEXT, parent_path TEXT NOT NULL,
		created REAL, created_str INTEGER NOT NULL,
		name TEXT NOT NULL, has_name INTEGER NOT NULL,
		activity REAL NOT NULL, msg_count INTEGER NOT NULL,
		first_message TEXT NOT NULL, first_size INTEGER NOT NULL DEFAULT 0,
		body TEXT NOT NULL, meta TEXT NOT NULL, problems TEXT NOT NULL,
		modified REAL NOT NULL DEFAULT 0, info_json TEXT NOT NULL DEFAULT ''
	)`,
	`CREATE INDEX files_cwd ON files(cwd)`,
	`CREATE INDEX files_parent ON files(parent_path)`,
	`CREATE INDEX files_session ON files(session_id)`,
	// firsts keeps a first message longer than the head files keeps, in
	// parts (first.go): written when it changes, never by a text pass.
	`CREATE TABLE firsts(file_id INTEGER NOT NULL, part INTEGER NOT NULL, text BLOB NOT NULL,
		PRIMARY KEY(file_id, part))`,
	// entries holds the entries whose text is indexed, plus the tree links
	// needed to keep the current-branch flag right as files grow. Rowids are
	// shared with the fts table.
	`CREATE TABLE entries(
		rowid INTEGER PRIMARY KEY,
		file_id INTEGER NOT NULL,
		eid TEXT NOT NULL, parent TEXT NOT NULL,
		type TEXT NOT NULL, role TEXT NOT NULL,
		ts INTEGER NOT NULL, model TEXT NOT NULL,
		on_branch INTEGER NOT NULL, bpos INTEGER NOT NULL,
		off INTEGER NOT NULL, len INTEGER NOT NULL
	)`,
	`CREATE INDEX entries_id ON entries(file_id, eid)`,
	branchIndex,
	// entries_marks finds the few branch entries that decide a context's
	// start and settings without reading the branch (Tail, branch.go).
	`CREATE INDEX entries_marks ON entries(file_id, bpos) WHERE on_branch = 1 AND type IN ` + markTypes,
	// usage sums charged usage per file, half-hour slot, model and
	// whether the entries were copied from a parent session (usage.go).
	`CREATE TABLE usage(
		file_id INTEGER NOT NULL, slot INTEGER NOT NULL, model TEXT NOT NULL, copy INTEGER NOT NULL,
		input REAL NOT NULL, output REAL NOT NULL, cache_read REAL NOT NULL, cache_write REAL NOT NULL,
		cost REAL NOT NULL, messages INTEGER NOT NULL,
		PRIMARY KEY(file_id, slot, model, copy)
	) WITHOUT ROWID`,
	// Search's helpers: runs and file_models turn filters into rowid
	// ranges (runs.go, filter.go). The text itself is in the text file
	// (textdb.go).
	`CREATE TABLE runs(lo INTEGER PRIMARY KEY, hi INTEGER NOT NULL, file_id INTEGER NOT NULL,
		ts_lo INTEGER NOT NULL, ts_hi INTEGER NOT NULL)`,
	`CREATE INDEX runs_file ON runs(file_id, hi)`,
	`CREATE TABLE file_models(model TEXT NOT NULL, file_id INTEGER NOT NULL, PRIMARY KEY(model, file_id)) WITHOUT ROWID`,
	`CREATE INDEX file_models_file ON file_models(file_id)`,
}

// branchIndex finds a file's branch rows in order (branch.go, moveBranch).
// A cold index of a fresh file creates it at the end instead, in one sorted
// pass (dropBranchIndex), and Open creates it when a crash left it out.
const branchIndex = `CREATE INDEX IF NOT EXISTS entries_branch ON entries(file_id, on_branch, bpos)`

// tokenizer is the FTS5 tokenizer of the text index, also used to list the
// words of new text (vocab.go).
const tokenizer = `tokenize = 'unicode61 remove_diacritics 2'`

// DefaultPath returns the index file for an agent dir under the user cache
// dir; see PathIn.
func DefaultPath(agentDir string, tools bool) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("index: cache dir: %w", err)
	}
	return PathIn(cache, agentDir, tools)
}

// PathIn returns the index file for an agent dir in cacheDir: one file per
// agent dir, named by a hash of the absolute agent dir, and a separate one
// when tool text is indexed too.
func PathIn(cacheDir, agentDir string, tools bool) (string, error) {
	abs, err := filepath.Abs(agentDir)
	if err != nil {
		return "", fmt.Errorf("index: %w", err)
	}
	sum := sha256.Sum256([]byte(abs))
	name := "index-" + hex.EncodeToString(sum[:8])
	if tools {
		name += "-tools"
	}
	return filepath.Join(cacheDir, "piweb", name+".db"), nil
}

// openDB opens the index file and its text file (textdb.go) on one
// writer connection each, deleting and recreating both when either is of
// another schema version, cannot be read, or is not the other's: the index
// is never trusted.
func openDB(ctx context.Context, path, agentDir string) (wdb, tdb *sql.DB, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("index: %w", err)
	}
	wdb, tdb, err = tryOpen(ctx, path, agentDir)
	if err == nil {
		return wdb, tdb, nil
	}
	if rerr := removeIndex(path); rerr != nil {
		return nil, nil, fmt.Errorf("%w (after %v)", rerr, err)
	}
	return tryOpen(ctx, path, agentDir)
}

// The dsns set the pragmas on every connection of a pool: WAL so that readers
// never wait for the writer, and a busy timeout for the rare checkpoint.
// The page cache is 8 MB a connection (64 MB before: a cold index of a
// 52 MB first message filled all of it), and the file is not mapped: the
// pages a mapping touches stay in the resident set, once per connection,
// so a cold index of 25,000 sessions grew to the size of its 330 MB file
// (issue 21: the index's peak at most 300 MB of RSS whatever the corpus;
// 372 MB before, 91 MB without the mapping, and the catalog of the same
// corpus 488 -> 216 MB). Reads copy pages from the OS's cache instead:
// searches 5 to 20% slower (p50 0.15 -> 0.27 ms for a rare word, 1.7 ->
// 2.0 for a common one, bench/NOTES.md). The bound is then 8 MB per
// connection (maxReaders + 1) plus FTS5's pending text.
const indexCacheKB = 8192

// dsnCache is the writers' dsn, with a page cache of cacheKB.
func dsnCache(path string, cacheKB int) string {
	return readerDSN(path, cacheKB) + "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
}

// readerDSN is dsnCache without the journal mode, which the file keeps
// (WAL, but during a cold build: build.go), for connections that only
// read. The busy timeout comes first, for the pragmas after it.
func readerDSN(path string, cacheKB int) string {
	return "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=temp_store(MEMORY)&_pragma=cache_size(-" +
		strconv.Itoa(cacheKB) + ")&_pragma=mmap_size(0)"
}

func tryOpen(ctx context.Context, path, agentDir string) (*sql.DB, *sql.DB, error) {
	wdb, err := openWriter(path, indexCacheKB)
	if err != nil {
		return nil, nil, err
	}
	id, created, err := prepare(ctx, wdb, agentDir)
	if err != nil {
		wdb.Close()
		return nil, nil, err
	}
	tdb, err := openWriter(textPath(path), textCacheKB)
	if err == nil {
		if err = prepareText(ctx, tdb, id, created); err != nil {
			tdb.Close()
		}
	}
	if err != nil {
		wdb.Close()
		return nil, nil, err
	}
	return wdb, tdb, nil
}

// openWriter opens a writer's pool of one connection on the file at path,
// with a page cache of cacheKB.
func openWriter(path string, cacheKB int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsnCache(path, cacheKB))
	if err != nil {
		return nil, fmt.Errorf("index: open: %w", err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// prepare checks the schema version and the agent dir, creating the schema
// in an empty file. It returns the id the text file must carry (textid),
// and whether the file was created now.
func prepare(ctx context.Context, db *sql.DB, agentDir string) (id string, created bool, err error) {
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return "", false, fmt.Errorf("index: read version: %w", err)
	}
	if v == schemaVersion {
		var dir string
		err := db.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = 'agentDir'), (SELECT value FROM meta WHERE key = 'textid')`).Scan(&dir, &id)
		if err != nil || dir != agentDir {
			return "", false, fmt.Errorf("index: belongs to agent dir %q, not %q (%v)", dir, agentDir, err)
		}
		// A cheap probe of each table instead of quick_check, which reads
		// the whole file and would make every warm start slow.
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT id FROM files LIMIT 1)`).Scan(new(int)); err != nil {
			return "", false, fmt.Errorf("index: corrupt: %w", err)
		}
		return id, false, nil
	}
	if v != 0 {
		return "", false, fmt.Errorf("index: schema version %d, want %d", v, schemaVersion)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil || n != 0 {
		return "", false, fmt.Errorf("index: unversioned non-empty file (%v)", err)
	}
	id = newTextID()
	return id, true, createSchema(ctx, db, schema, "meta", map[string]string{"agentDir": agentDir, "textid": id, "nextrow": "1"})
}

// createSchema creates the tables of stmts and the rows kv of its table
// meta in an empty file, and stamps it with the schema version.
func createSchema(ctx context.Context, db *sql.DB, stmts []string, meta string, kv map[string]string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer tx.Rollback()
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("index: create schema: %w", err)
		}
	}
	for k, v := range kv {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+meta+`(key, value) VALUES(?, ?)`, k, v); err != nil {
			return fmt.Errorf("index: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return tx.Commit()
}
