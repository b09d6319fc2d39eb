package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"piweb/internal/broker"
	"piweb/internal/opt"
	"piweb/pisession"
)

// Options configures an Index.
type Options struct {
	// AgentDir is pi's agent dir; pisession.AgentDir gives pi's choice.
	AgentDir string
	// Getenv reads PI_CODING_AGENT_SESSION_DIR and HOME; nil is os.Getenv.
	Getenv func(string) string
	// Path is the index file; empty means DefaultPath(AgentDir, Tools).
	Path string
	// Tools also indexes tool call arguments, tool results and shell
	// commands and output (DefaultPath keeps such an index apart).
	Tools bool
	// Log gets problems found while indexing; nil is slog.Default().
	Log *slog.Logger
	// Rescan is the period of the stat rescan that backs up file system
	// events while watching; 0 means 2 seconds.
	Rescan time.Duration
	// Debounce is how long a file must be quiet before a change is indexed
	// while watching; 0 means 10 ms.
	Debounce time.Duration
	// Workers parse files in parallel; 0 means GOMAXPROCS.
	Workers int
	// SearchBudget bounds each of a search's scans, its ranked hits and
	// its count (budget.go); 0 means 100 ms.
	SearchBudget time.Duration
	// BudgetFrom is the number of entries up to which an index is searched
	// whole, with no budget (budget.go); 0 means 20,000, a negative
	// number that every search has its budget.
	BudgetFrom int
}

// withDefaults fills in the zero fields of o.
func (o Options) withDefaults() (Options, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	opt.Positive(&o.SearchBudget, defaultBudget)
	if o.BudgetFrom == 0 {
		o.BudgetFrom = defaultBudgetFrom
	}
	if o.AgentDir == "" {
		o.AgentDir = pisession.AgentDir(o.Getenv)
	}
	var err error
	if o.Path == "" {
		o.Path, err = DefaultPath(o.AgentDir, o.Tools)
	}
	return o, err
}

// Index is the session index of one agent dir. Reads may run concurrently;
// writes are serialized on one connection, one file update at a time.
type Index struct {
	o    Options
	db   *sql.DB // readers
	wdb  *sql.DB // the single writer connection
	path string
	// roots are where session files are found; project settings can add
	// some as sessions are indexed (currentRoots), so they are read under
	// rootsMu.
	rootsMu sync.Mutex
	roots   []root

	wmu       *writeLock
	bulkText  bool        // a bulk text pass runs: vocab is rebuilt after it (vocab.go)
	build     *build      // an unjournaled cold build runs (build.go)
	journaled bool        // tests: no unjournaled build
	textW     *textWriter // the text file's writer (textwriter.go)
	entryIns  batchInsert // the entries rows' inserts (batch.go)
	bytesRead atomic.Int64
	open      func(string) (readFile, error) // replaced by tests to inject faults
	afterPart func()                         // tests: called after each text pass update is written
	tidied    func()                         // tests: called after each step of the merge, the writer held
	// crashAfterText, in tests, is called once the text file committed a
	// transaction; true makes the index's own commit not happen, as if
	// the process died there (TestCrashBetweenCommits).
	crashAfterText func() bool

	events *broker.Broker[Event] // change events (events.go)

	ws stmts // the writer's statements of one row (stmts.go)
	// lastRows is the last entries rowid each file got in this Sync: a
	// junction there is the file's leaf (moveBranch).
	lastRows map[int64]int64
	bufs     sync.Pool // *[]byte read buffers of the listing pass
	// readBudget is the bytes of files a pass's workers may hold at once;
	// 0 is the default readBudget (memory.go). Tests set it.
	readBudget int64
}

// readFile is what the indexer needs of an open file.
type readFile interface {
	io.ReaderAt
	Stat() (os.FileInfo, error)
	Close() error
}

// maxReaders bounds the index's read connections.
const maxReaders = 4

// Open opens (or creates, or rebuilds) the index of o.AgentDir. It does not
// read any session; call Sync or Watch.
func Open(ctx context.Context, o Options) (*Index, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	path := o.Path
	if err := settleBuild(path, o.Log.Warn); err != nil {
		return nil, err
	}
	wdb, tdb, err := openDB(ctx, path, o.AgentDir)
	if err != nil {
		return nil, err
	}
	if err := recoverDB(ctx, wdb, tdb); err != nil {
		wdb.Close()
		tdb.Close()
		return nil, err
	}
	textW, err := startTextWriter(ctx, tdb)
	if err != nil {
		wdb.Close()
		tdb.Close()
		return nil, err
	}
	// Each reader connection holds its own page cache and file handles:
	// requests beyond the bound wait for one instead of opening more.
	db := readers(path)
	db.SetMaxOpenConns(maxReaders)
	db.SetMaxIdleConns(maxReaders)
	ix := &Index{o: o, db: db, wdb: wdb, textW: textW, path: path, roots: roots(o.AgentDir, o.Getenv, nil), events: newEvents(), wmu: newWriteLock()}
	ix.open = openFile
	if ix.entryIns, err = prepareEntries(ctx, wdb); err != nil {
		ix.Close()
		return nil, err
	}
	if ix.ws, err = prepareStmts(ctx, wdb, writerSQL); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// Close closes the database.
func (ix *Index) Close() error {
	return errors.Join(ix.db.Close(), ix.textW.close(), ix.wdb.Close())
}

// Path returns the index file.
func (ix *Index) Path() string { return ix.path }

// Tools says whether tool output (results, shell commands) is indexed.
func (ix *Index) Tools() bool { return ix.o.Tools }

// BytesRead returns the number of session file bytes read so far, for
// tests and benchmarks of incremental reading.
func (ix *Index) BytesRead() int64 { return ix.bytesRead.Load() }

// readAt reads [off, end) of f, counting the bytes.
func (ix *Index) readAt(f io.ReaderAt, off, end int64) ([]byte, error) {
	return ix.readInto(f, nil, off, end)
}

// readInto is readAt into buf when it is big enough.
func (ix *Index) readInto(f io.ReaderAt, buf []byte, off, end int64) ([]byte, error) {
	if int64(cap(buf)) >= end-off {
		buf = buf[:end-off]
	} else {
		buf = make([]byte, end-off)
	}
	n, err := f.ReadAt(buf, off)
	ix.bytesRead.Add(int64(n))
	if err == io.EOF && int64(n) == end-off {
		err = nil
	}
	if err != nil {
		return buf[:n], fmt.Errorf("read at %d: %w", off, err)
	}
	return buf, nil
}

// warn logs a problem found while indexing: what, then attributes.
func (ix *Index) warn(what string, args ...any) { ix.o.Log.Warn("index: "+what, args...) }

// openFile opens a session file for reading without blocking: a FIFO or a
// device named *.jsonl must not hang the indexer (prepare then sees that it
// is not a regular file).
func openFile(p string) (readFile, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
