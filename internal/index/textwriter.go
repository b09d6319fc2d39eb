package index

import (
	"context"
	"database/sql"
	"errors"
	"runtime/pprof"
	"sync"
)

// textWriter writes the text file (textdb.go) on a goroutine of its own,
// in step with the index's writer: what the writer sends in one of its
// transactions (the text rows of the entries it writes, deletions, the
// word list) is written in one transaction of the text file, which the
// writer commits (commit) before its own. The writer does not wait for
// the rows: FTS5 tokenizes and hashes them while the writer goes on.
type textWriter struct {
	tdb    *sql.DB
	ops    chan textOp
	ins    *sql.Stmt // INSERT INTO fts(rowid, text), on tdb
	sent   int64     // bytes of text sent in the open transaction
	closed chan struct{}
	once   sync.Once
	err    error // of close

	// queued is the bytes of text sent and not yet written, at most
	// textQueued (a sender waits on room): the writer reads on while
	// FTS5 is behind, and the rows it sends hold their text.
	mu     sync.Mutex
	room   *sync.Cond
	queued int64
	late   error // of the steps no one waited for (commitLater)
}

// textOp is one step of the text writer: fn in its open transaction
// (begun as needed), or the transaction's end (commit or rollback),
// answered on done when it is not nil.
type textOp struct {
	fn     func(tx *sql.Tx) error
	bytes  int64 // of text fn holds (queued)
	end    int
	done   chan error
	noTx   func(q querier) error // a read outside any transaction
	cancel context.Context
}

const (
	opRun = iota
	opCommit
	opRollback
)

// textQueue is how many steps the writer may be ahead of the text
// writer, and textQueued how many bytes of text (BenchmarkMemDamaged's
// 30 MB files: a peak heap of 113 MB unbounded, 88 MB with one writer).
const (
	textQueue  = 256
	textQueued = 4 << 20
)

// startTextWriter starts the goroutine that owns tdb.
func startTextWriter(ctx context.Context, tdb *sql.DB) (*textWriter, error) {
	ins, err := tdb.PrepareContext(ctx, `INSERT INTO fts(rowid, text) VALUES(?, ?)`)
	if err != nil {
		return nil, wrap("prepare", err)
	}
	w := &textWriter{tdb: tdb, ins: ins, ops: make(chan textOp, textQueue), closed: make(chan struct{})}
	w.room = sync.NewCond(&w.mu)
	go w.loop()
	return w, nil
}

// loop runs the steps in order; after a failed step the rest of the
// transaction is skipped and its commit answers the error.
func (w *textWriter) loop() {
	defer close(w.closed)
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("idx", "text")))
	var tx *sql.Tx
	var failed error
	for op := range w.ops {
		var err error
		switch {
		case op.end == opCommit || op.end == opRollback:
			err = failed
			if tx != nil {
				if err == nil && op.end == opCommit {
					err = wrap("commit text", tx.Commit())
				} else {
					tx.Rollback()
				}
			}
			tx, failed = nil, nil
		case op.noTx != nil && tx == nil:
			err = op.noTx(w.tdb)
		case op.noTx != nil:
			err = op.noTx(tx)
		case failed != nil:
			err = failed
		default:
			if tx == nil {
				tx, err = w.tdb.BeginTx(op.cancel, nil)
				err = wrap("begin text", err)
			}
			if err == nil {
				err = op.fn(tx)
			}
			failed = err
		}
		if op.bytes > 0 {
			w.mu.Lock()
			w.queued -= op.bytes
			w.room.Broadcast()
			w.mu.Unlock()
		}
		if op.done != nil {
			op.done <- err
		} else if err != nil {
			w.mu.Lock()
			w.late = errors.Join(w.late, err)
			w.mu.Unlock()
		}
	}
}

// run sends fn for the open transaction without waiting for it.
func (w *textWriter) run(ctx context.Context, fn func(tx *sql.Tx) error) {
	w.ops <- textOp{fn: fn, cancel: ctx}
}

// wait sends fn for the open transaction and returns its error.
func (w *textWriter) wait(ctx context.Context, fn func(tx *sql.Tx) error) error {
	done := make(chan error, 1)
	w.ops <- textOp{fn: fn, cancel: ctx, done: done}
	return <-done
}

// read runs fn on the text file, in the open transaction if there is one.
func (w *textWriter) read(fn func(q querier) error) error {
	done := make(chan error, 1)
	w.ops <- textOp{noTx: fn, done: done}
	return <-done
}

// commit commits the open transaction (none is a success); an error of
// any step since it began is returned and the transaction rolled back.
func (w *textWriter) commit() error { return w.end(opCommit) }

// rollback drops the open transaction.
func (w *textWriter) rollback() { w.end(opRollback) }

func (w *textWriter) end(kind int) error {
	w.sent = 0
	done := make(chan error, 1)
	w.ops <- textOp{end: kind, done: done}
	err := <-done
	w.mu.Lock()
	defer w.mu.Unlock()
	err, w.late = errors.Join(w.late, err), nil
	return err
}

// commitLater commits the open transaction without waiting for it; its
// error is the next commit's or rollback's.
func (w *textWriter) commitLater() {
	w.sent = 0
	w.ops <- textOp{end: opCommit}
}

// insertText sends the text rows args (rowid, text, ...), written one
// row a statement: a statement that may write several needs a statement
// journal, and opening one makes FTS5 write the text it holds in memory
// as a new segment (a segment of a few rows per file made FTS5's merges a
// sixth of a cold index's CPU).
func (w *textWriter) insertText(ctx context.Context, args []any) {
	if len(args) == 0 {
		return
	}
	var n int64
	for i := 1; i < len(args); i += 2 {
		n += int64(len(args[i].(string)))
	}
	w.sent += n
	w.mu.Lock()
	for w.queued > 0 && w.queued+n > textQueued {
		w.room.Wait()
	}
	w.queued += n
	w.mu.Unlock()
	w.ops <- textOp{bytes: n, cancel: ctx, fn: func(tx *sql.Tx) error {
		stmt := tx.StmtContext(ctx, w.ins)
		for i := 0; i < len(args); i += 2 {
			if _, err := stmt.ExecContext(ctx, args[i], args[i+1]); err != nil {
				return wrap("insert text", err)
			}
		}
		return nil
	}}
}

// heldMax bounds the text of one transaction: FTS5 holds it in memory
// until the commit. On a 453 MB corpus (BenchmarkColdIndex) 8, 16 and
// 32 MB cost the same CPU, with peaks of 115-130, 125-134 and 176-184 MB
// of RSS.
var heldMax int64 = 16 << 20 // a variable for tests

// full reports whether the open transaction's text reached heldMax.
func (w *textWriter) full() bool { return w.sent >= heldMax }

// close stops the goroutine and closes the text file; again, it returns
// what it did the first time (Index.Close may be called twice).
func (w *textWriter) close() error {
	w.once.Do(func() {
		close(w.ops)
		<-w.closed
		w.err = errors.Join(w.ins.Close(), w.tdb.Close())
	})
	return w.err
}
