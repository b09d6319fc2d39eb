// Package fleet pushes this machine's pi sessions into a PostgreSQL
// database that every machine of the user's fleet shares (issue 22), and
// keeps them current from the local index's own change events.
//
// A push is a batch of changed files: one query learns what the database
// has of them (how far each file was pushed, and hashes of its header line
// and of the bytes before that offset), then their new rows are copied in
// bulk and the sessions' push state moves, in one transaction. The
// database is the only cursor: a push that fails or a database that
// restarts mid-push leaves the files pending, and the next push reads the
// committed state again, so nothing is lost or pushed twice. A file whose
// header or tail changed was rewritten and is replaced; a file gone from
// the listing is marked deleted, and comes back when it returns. The local
// page and index never wait for the fleet: pushing runs on its own
// goroutine and only reads the catalog and the files.
//
// The schema is migrated by whichever piweb finds it older than it knows
// (schema.go); row-level security binds each machine's rows to the role
// that first claimed the machine's name.
package fleet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"piweb/internal/broker"
	"piweb/internal/catalog"
	"piweb/internal/index"
	"piweb/internal/opt"
)

// What a machine shares (--fleet-share).
const (
	ShareFull = "full" // listing, usage, searchable entries and raw lines
	ShareMeta = "meta" // listing fields and usage only
)

// Source is the local listing a Pusher pushes: *catalog.Catalog.
type Source interface {
	List(ctx context.Context, q catalog.ListQuery) ([]catalog.Meta, int, error)
	ByPath(path string) (catalog.Meta, bool)
	Changes() *broker.Sub[catalog.Change]
	// Index is the index the listing is read from: its events say when a
	// file's bytes changed though its listing did not (a rewrite of the
	// same listing). A Source without an index cannot push.
	Index() *index.Index
}

// Options configures a Pusher.
type Options struct {
	URL     string // postgres://…
	Machine string
	Share   string // ShareFull (default) or ShareMeta
	// Version is this piweb's version, recorded for the machine and shown
	// to older piwebs as what to upgrade to; PiVersion is pi's.
	Version, PiVersion string
	Advertise          string // where other machines reach this piweb
	Source             Source
	Log                *slog.Logger
	// Batch bounds the files of one push (0: 500) and MaxBytes the bytes
	// of session files it reads (0: 32 MB).
	Batch    int
	MaxBytes int64
	// Conns bounds the batches pushed at once, each over a connection of
	// its own (0: 2): a first push is the server's insert work, which one
	// connection keeps to one core.
	Conns int
	// RetryMin and RetryMax bound the wait before reconnecting after a
	// failure, doubling from one to the other (0: 1 s and 1 min).
	RetryMin, RetryMax time.Duration
	// Heartbeat is how often the machine says it is online (0: 30 s).
	Heartbeat time.Duration
	// flushBytes bounds the rows a batch holds before sending them (0:
	// flushBytes; tests send smaller pieces).
	flushBytes int
	// Timeout bounds one push or heartbeat: a database that stops
	// answering (a lock held elsewhere, a dead peer) fails it, and the
	// push retries on a new connection (0: 2 minutes).
	Timeout time.Duration
}

func (o Options) withDefaults() Options {
	o.Share = cmp.Or(o.Share, ShareFull)
	o.Batch = cmp.Or(o.Batch, 500)
	o.Conns = cmp.Or(o.Conns, 2)
	o.MaxBytes = cmp.Or(o.MaxBytes, 32<<20)
	o.RetryMin = cmp.Or(o.RetryMin, time.Second)
	o.RetryMax = cmp.Or(o.RetryMax, time.Minute)
	o.Heartbeat = cmp.Or(o.Heartbeat, 30*time.Second)
	o.Timeout = cmp.Or(o.Timeout, 2*time.Minute)
	o.flushBytes = cmp.Or(o.flushBytes, flushBytes)
	opt.Log(&o.Log)
	return o
}

// Pusher pushes one machine's sessions. Run it on a goroutine of its own.
type Pusher struct {
	o      Options
	log    *slog.Logger
	mu     sync.Mutex
	status Status
	counts counts
	// midBatch, when set (tests), runs after a batch's rows are written
	// and before its commit, one batch at a time (hookMu).
	midBatch func()
	hookMu   sync.Mutex
	// lexes says whether the database makes plain texts' tsvectors as
	// tsvectorOf does (serverLexes): then pushes send them.
	lexes, lexWarned, olderWarned atomic.Bool
}

// New returns a pusher; nothing connects before Run.
func New(o Options) *Pusher {
	o = o.withDefaults()
	return &Pusher{o: o, log: o.Log, status: Status{Machine: o.Machine, State: StateConnecting}}
}

// Run pushes until ctx ends: a full comparison with the database after
// each (re)connection, then every change of the listing as it comes.
func (p *Pusher) Run(ctx context.Context) {
	r := &runner{p: p, sub: p.o.Source.Changes(), files: p.o.Source.Index().Subscribe(), pending: map[string]bool{}, full: true,
		retry: p.o.RetryMin}
	defer func() { r.sub.Close(); r.files.Close() }()
	defer r.disconnect()
	for ctx.Err() == nil {
		r.step(ctx)
	}
}

// runner is Run's state.
type runner struct {
	p       *Pusher
	sub     *broker.Sub[catalog.Change]
	files   *index.Subscription
	conn    *pgx.Conn
	extra   []*pgx.Conn // the other connections of parallel batches
	pending map[string]bool
	full    bool // compare every file (first connection, or changes were missed)
	retry   time.Duration
}

// step does one thing: connect, push one batch, or wait for a change.
func (r *runner) step(ctx context.Context) {
	p := r.p
	if r.conn == nil {
		conn, err := p.connect(ctx)
		if err != nil {
			r.fail(ctx, err)
			return
		}
		r.conn, r.full = conn, true
	}
	if r.full {
		lctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
		err := r.listAll(lctx)
		cancel()
		if err != nil {
			r.fail(ctx, err)
			return
		}
		r.full = false
	}
	r.drain()
	if len(r.pending) > 0 {
		r.pushSome(ctx)
		return
	}
	p.setState(StateCurrent, nil, 0)
	r.wait(ctx, p.o.Heartbeat, true)
}

// pushSome pushes the next batches of pending files (up to
// roundBatches per connection), Conns at once over connections of their
// own, each connection taking the next batch as soon as its last one is
// committed. Each batch is its own transaction over its own files, so one
// that fails leaves only its files (and those not yet started) pending.
func (r *runner) pushSome(ctx context.Context) {
	p := r.p
	groups := r.nextBatches()
	workers := min(len(groups), p.o.Conns)
	if err := r.connectExtra(ctx, workers-1); err != nil {
		r.fail(ctx, err)
		return
	}
	p.setState(StatePushing, nil, len(r.pending))
	res := r.pushGroups(ctx, groups, append([]*pgx.Conn{r.conn}, r.extra...)[:workers])
	var failed error
	for i, paths := range groups {
		if !res[i].done {
			failed = cmp.Or(failed, res[i].err)
			continue
		}
		for _, path := range paths {
			delete(r.pending, path)
		}
		for _, path := range res[i].more {
			r.pending[path] = true
		}
	}
	if failed != nil {
		r.fail(ctx, failed)
		return
	}
	if ctx.Err() != nil {
		return
	}
	r.retry = p.o.RetryMin
	p.pushed(len(r.pending))
}

// batchResult is what became of one batch of pushGroups.
type batchResult struct {
	done bool     // committed
	more []string // its files with lines left for another batch
	err  error
}

// pushGroups pushes groups over conns, one worker per connection taking
// the next group until none is left or one failed.
func (r *runner) pushGroups(ctx context.Context, groups [][]string, conns []*pgx.Conn) []batchResult {
	p := r.p
	res := make([]batchResult, len(groups))
	var next atomic.Int64
	var failed atomic.Bool
	behind := atomic.Int64{}
	behind.Store(int64(len(r.pending)))
	var wg sync.WaitGroup
	for _, conn := range conns {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(groups) && !failed.Load() && ctx.Err() == nil; i = int(next.Add(1)) - 1 {
				bctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
				more, err := p.pushBatch(bctx, conn, groups[i])
				cancel()
				res[i] = batchResult{done: err == nil, more: more, err: err}
				if err != nil {
					failed.Store(true)
					continue
				}
				p.pushed(int(behind.Add(int64(len(more) - len(groups[i])))))
			}
		})
	}
	wg.Wait()
	return res
}

// roundBatches is how many batches per connection one pushSome takes:
// enough that a connection seldom waits for the others at the round's
// end, few enough that the status and new changes are seen between.
const roundBatches = 8

// nextBatches splits the pending files, in order, into up to
// Conns*roundBatches batches of up to Batch files.
func (r *runner) nextBatches() [][]string {
	paths := make([]string, 0, len(r.pending))
	for path := range r.pending {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	var groups [][]string
	for len(paths) > 0 && len(groups) < r.p.o.Conns*roundBatches {
		n := min(len(paths), r.p.o.Batch)
		groups = append(groups, paths[:n:n])
		paths = paths[n:]
	}
	return groups
}

// connectExtra makes sure there are n connections besides the first.
func (r *runner) connectExtra(ctx context.Context, n int) error {
	for len(r.extra) < n {
		conn, err := r.p.connect(ctx)
		if err != nil {
			return err
		}
		r.extra = append(r.extra, conn)
	}
	return nil
}

// listAll makes every local file and every file the database has of this
// machine pending: the full comparison.
func (r *runner) listAll(ctx context.Context) error {
	metas, _, err := r.p.o.Source.List(ctx, catalog.ListQuery{})
	if err != nil {
		return err
	}
	for _, path := range pathsOf(metas) {
		r.pending[path] = true
	}
	rows, err := r.conn.Query(ctx, `SELECT path FROM fleet.sessions WHERE machine = $1 AND NOT deleted`, r.p.o.Machine)
	if err != nil {
		return err
	}
	paths, err := pgx.CollectRows(rows, pgx.RowTo[string])
	for _, path := range paths {
		r.pending[path] = true
	}
	return err
}

// drain takes every change already queued.
func (r *runner) drain() {
	for {
		select {
		case ch, open := <-r.sub.C:
			if !r.note(ch, open) {
				return
			}
		case ev, open := <-r.files.C:
			if !r.noteFile(ev, open) {
				return
			}
		default:
			return
		}
	}
}

// note records one change; false when the subscription ended.
func (r *runner) note(ch catalog.Change, open bool) bool {
	if !open {
		// Cut off as too slow: follow again and compare everything.
		r.sub = r.p.o.Source.Changes()
		r.full = true
		return false
	}
	r.pending[ch.Meta.Path] = true
	return true
}

// noteFile records one file event; false when the subscription ended.
func (r *runner) noteFile(ev index.Event, open bool) bool {
	if !open {
		r.files = r.p.o.Source.Index().Subscribe()
		r.full = true
		return false
	}
	if ev.Path != "" { // else an update of the index alone
		r.pending[ev.Path] = true
	}
	return true
}

// wait blocks until a change, the timeout or ctx; a heartbeat is sent
// when the timeout passes while connected.
func (r *runner) wait(ctx context.Context, d time.Duration, heartbeat bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case ch, open := <-r.sub.C:
		r.note(ch, open)
	case ev, open := <-r.files.C:
		r.noteFile(ev, open)
	case <-t.C:
		if heartbeat && r.conn != nil {
			hctx, cancel := context.WithTimeout(ctx, r.p.o.Timeout)
			_, err := r.conn.Exec(hctx, `UPDATE fleet.machines SET last_heartbeat = now() WHERE name = $1`, r.p.o.Machine)
			cancel()
			if err != nil {
				r.fail(ctx, err)
			}
		}
	}
}

// fail records err, drops the connection and waits before the next try
// (while still collecting changes).
func (r *runner) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	p := r.p
	p.setState(stateOf(err), err, len(r.pending))
	p.log.Warn("fleet: push failed", "machine", p.o.Machine, "err", Explain(err))
	r.disconnect()
	deadline := time.Now().Add(r.retry)
	r.retry = min(2*r.retry, p.o.RetryMax)
	for ctx.Err() == nil && time.Now().Before(deadline) {
		r.wait(ctx, time.Until(deadline), false)
	}
}

func (r *runner) disconnect() {
	for _, conn := range append(r.extra, r.conn) {
		if conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			conn.Close(ctx)
			cancel()
		}
	}
	r.conn, r.extra = nil, nil
}

// connect connects, migrates the schema when it is older than this piweb
// knows, and claims the machine's name.
func (p *Pusher) connect(ctx context.Context) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
	defer cancel()
	conn, err := pgx.Connect(cctx, p.o.URL)
	if err != nil {
		return nil, err
	}
	older, err := p.migrate(cctx, conn)
	if err == nil {
		err = claim(cctx, conn, p.machine())
	}
	same := false
	if err == nil && !older {
		same, err = serverLexes(cctx, conn)
	}
	if err != nil {
		conn.Close(ctx)
		return nil, err
	}
	if !same && !older && !p.lexWarned.Swap(true) {
		p.log.Warn("fleet: the database's 'simple' text search configuration or lower case differs from PostgreSQL's default; it makes every entry's tsvector itself")
	}
	p.lexes.Store(same)
	return conn, nil
}

// migrate migrates the schema when it is older than this piweb knows;
// older says it stays older (this machine's role may not migrate it) but
// this piweb still pushes to it (minPushSchema), as the piwebs of its
// version do.
func (p *Pusher) migrate(ctx context.Context, conn *pgx.Conn) (older bool, err error) {
	err = Migrate(ctx, conn, p.o.Version)
	var cannot *ErrCannotMigrate
	if !errors.As(err, &cannot) || cannot.Have < minPushSchema {
		return false, err
	}
	if !p.olderWarned.Swap(true) {
		p.log.Warn(fmt.Sprintf("fleet: the database's schema is at version %d and this machine's role may not migrate it to %d; "+
			"pushing as the piwebs of that schema do (slower: the server makes every tsvector) until piweb fleet migrate runs with a role of %s",
			cannot.Have, cannot.Want, OwnerRole))
	}
	return true, nil
}

func (p *Pusher) machine() Machine {
	return Machine{Name: p.o.Machine, PiwebVersion: p.o.Version, PiVersion: p.o.PiVersion, Advertise: p.o.Advertise, Share: p.o.Share}
}
