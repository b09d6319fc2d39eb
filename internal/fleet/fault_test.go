package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"piweb/internal/pgtest"
)

// TestCrashMidPush stops the database as a crash does while a machine's
// first push is half done, and starts it again: the push resumes from
// the last commit and converges with every row once, whether its batches
// go one at a time or two at once.
func TestCrashMidPush(t *testing.T) {
	for _, conns := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d connections", conns), func(t *testing.T) { testCrashMidPush(t, conns) })
	}
}

func testCrashMidPush(t *testing.T, conns int) {
	c := pgtest.NewCluster(t)
	d := newFleetDB(t, c)
	url := d.role(t, "vm")
	a := newAgentDir(t)
	var paths []string
	for range 60 {
		paths = append(paths, a.create(t, 5))
	}
	cat := openCatalog(t, a)
	// The third batch's rows are written, not committed, when the server
	// crashes.
	batches := 0
	crashed := make(chan error, 1)
	p := startWith(t, Options{URL: url, Machine: "vm", Source: cat, Batch: 4, Conns: conns}, func() {
		if batches++; batches == 3 {
			crashed <- c.Stop("immediate")
		}
	})
	if err := <-crashed; err != nil {
		t.Fatal(err)
	}
	// Two batches committed (how many files each held depends on how much
	// the listing had when pushing began); nothing commits while down. Two
	// at once, the second may have been committing as the server stopped.
	if s := p.Status(); s.Pushed.Batches > 2 || s.Pushed.Batches < 3-conns || s.Pushed.Sessions == 0 || s.Pushed.Sessions >= 60 {
		t.Fatalf("%+v committed before the crash, want two batches (one or two of two at once), part of the sessions", s.Pushed)
	}
	awaitStatus(t, p, "the pusher to notice", func(s Status) bool { return s.State == StateFailing })
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	conn := d.admin(t)
	ctx := context.Background()
	eventually(t, func() error {
		for _, path := range paths {
			if err := converged(ctx, conn, cat, "vm", path); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		return nil
	}, "convergence after the restart")
	for _, want := range []struct {
		table string
		n     int
	}{{"sessions", 60}, {"entries", 60 * 10}, {"usage", 60 * 5}, {"lines", 60 * 11}} {
		if n := count(t, conn, `SELECT count(*) FROM fleet.`+want.table); n != want.n {
			t.Errorf("%s: %d rows, want %d", want.table, n, want.n)
		}
	}
	if s := p.Status(); s.State != StateCurrent || s.Behind != 0 {
		t.Errorf("status %+v, want current and nothing behind", s)
	}
}

// TestRowLevelSecurity: a machine's role (the README's: a member of
// MachineRole, the schema migrated by the owner's) cannot write another
// machine's rows, nor claim its name, nor lift the security: no ALTER
// TABLE, DROP POLICY, TRUNCATE or SET ROLE to the owner, which a member
// of the owner role could all do.
func TestRowLevelSecurity(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	migrateAs(t, d.role(t, "owner"))
	urlA, urlB := d.machineRole(t, "a"), d.machineRole(t, "b")
	_, path, cat := oneDir(t, 1)
	startPusher(t, Options{URL: urlA, Machine: "alpha", Source: cat})
	admin := d.admin(t)
	ctx := context.Background()
	eventually(t, func() error { return converged(ctx, admin, cat, "alpha", path) }, "alpha's push")

	b := connectAs(t, urlB)
	for _, sql := range []string{
		`UPDATE fleet.sessions SET name = 'hijacked' WHERE machine = 'alpha'`,
		`DELETE FROM fleet.entries WHERE machine = 'alpha'`,
		`DELETE FROM fleet.lines WHERE machine = 'alpha'`,
		`UPDATE fleet.machines SET advertise_url = 'http://evil' WHERE name = 'alpha'`,
	} {
		tag, err := b.Exec(ctx, sql)
		if err != nil || tag.RowsAffected() != 0 {
			t.Errorf("%s as b: %d rows (%v), want none", sql, tag.RowsAffected(), err)
		}
	}
	for _, sql := range []string{
		`ALTER TABLE fleet.sessions NO FORCE ROW LEVEL SECURITY`,
		`ALTER TABLE fleet.lines DISABLE ROW LEVEL SECURITY`,
		`DROP POLICY change ON fleet.sessions`,
		`ALTER TABLE fleet.machines OWNER TO CURRENT_USER`,
		`TRUNCATE fleet.lines`,
		`SET ROLE ` + OwnerRole,
		`CREATE POLICY mine ON fleet.sessions FOR UPDATE USING (true)`,
	} {
		if _, err := b.Exec(ctx, sql); err == nil || !strings.Contains(err.Error(), "SQLSTATE 42501") {
			t.Errorf("%s as b: %v, want a refusal (insufficient privilege)", sql, err)
		}
	}
	if tag, err := b.Exec(ctx, `UPDATE fleet.sessions SET name = 'hijacked' WHERE machine = 'alpha'`); err != nil || tag.RowsAffected() != 0 {
		t.Errorf("b's update of alpha's session after its attempts: %d rows (%v)", tag.RowsAffected(), err)
	}
	_, err := b.Exec(ctx, `INSERT INTO fleet.lines (machine, path, line, off, raw) VALUES ('alpha', $1, 999, 0, '')`, path)
	if err == nil || !strings.Contains(err.Error(), "row-level security") {
		t.Errorf("insert into alpha's lines as b: %v, want a row-level security refusal", err)
	}
	var rows int
	if err := b.QueryRow(ctx, `SELECT count(*) FROM fleet.lines WHERE machine = 'alpha'`).Scan(&rows); err != nil || rows != 3 {
		t.Errorf("b reads %d of alpha's lines (%v), want all 3", rows, err)
	}
	if err := converged(ctx, admin, cat, "alpha", path); err != nil {
		t.Errorf("alpha's rows after b's attempts: %v", err)
	}
	err = claim(ctx, b, Machine{Name: "alpha", Share: ShareFull})
	var taken *ErrNameTaken
	if !errors.As(err, &taken) || !strings.Contains(Explain(err), `machine name "alpha" belongs to database role`) {
		t.Errorf("b claiming alpha: %v, want the name refused", err)
	}
}

// connectAs connects with the role of url until the test ends.
func connectAs(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// migrateAs migrates the schema with the role of url.
func migrateAs(t *testing.T, url string) {
	t.Helper()
	if err := Migrate(context.Background(), connectAs(t, url), "piweb test"); err != nil {
		t.Fatal(err)
	}
}

// TestMachineCannotMigrate: a machine's role on a database without the
// schema pauses with words that say who migrates; once the owner has,
// the machine pushes, and running no DDL.
func TestMachineCannotMigrate(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	url := d.machineRole(t, "m")
	_, path, cat := oneDir(t, 1)
	p := startPusher(t, Options{URL: url, Machine: "m", Source: cat})
	awaitStatus(t, p, "the machine's pause", func(s Status) bool {
		return s.State == StatePaused && strings.Contains(s.Error, "piweb fleet migrate")
	})
	migrateAs(t, d.role(t, "owner"))
	admin := d.admin(t)
	eventually(t, func() error { return converged(context.Background(), admin, cat, "m", path) }, "the push once migrated")
}

// TestOldWriterRefused: a database migrated by a newer piweb that no
// longer accepts this one's rows pauses the push with the words the page
// shows, and nothing is written.
func TestOldWriterRefused(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	ctx := context.Background()
	url := d.role(t, "old")
	conn := connectAs(t, url)
	if err := Migrate(ctx, conn, "piweb 1.0"); err != nil {
		t.Fatal(err)
	}
	admin := d.admin(t)
	if _, err := admin.Exec(ctx, `UPDATE fleet.meta SET schema_version = $1, min_writer = $2, upgrade_to = 'piweb 2.0'`,
		SchemaVersion+1, Writer+1); err != nil {
		t.Fatal(err)
	}
	err := Migrate(ctx, conn, "piweb 1.0")
	want := "fleet paused: this piweb is older than the fleet database (upgrade to piweb 2.0)"
	if err == nil || err.Error() != want {
		t.Fatalf("Migrate: %v, want %q", err, want)
	}
	a := newAgentDir(t)
	a.create(t, 1)
	p := startPusher(t, Options{URL: url, Machine: "old", Source: openCatalog(t, a)})
	awaitStatus(t, p, "the pause", func(s Status) bool { return s.State == StatePaused && s.Error == want })
	if n := count(t, admin, `SELECT count(*) FROM fleet.sessions`); n != 0 {
		t.Errorf("an old writer pushed %d sessions", n)
	}
}

// TestNoDDLInSteadyState: once the schema is current, connecting and
// pushing run no DDL (the server logs every DDL statement).
func TestNoDDLInSteadyState(t *testing.T) {
	c := pgtest.Shared(t)
	d := newFleetDB(t, c)
	url := d.role(t, "steady")
	a, path, cat := oneDir(t, 2)
	admin := d.admin(t)
	ctx := context.Background()
	first, cancel := context.WithCancel(ctx)
	p := New(Options{URL: url, Machine: "steady", Source: cat, RetryMin: 10 * time.Millisecond})
	done := make(chan struct{})
	go func() { p.Run(first); close(done) }()
	eventually(t, func() error { return converged(ctx, admin, cat, "steady", path) }, "the first push")
	cancel()
	<-done
	migrated := len(c.DDL(t, d.name))
	if migrated == 0 {
		t.Fatal("the first push ran no DDL: is log_statement=ddl on?")
	}
	startPusher(t, Options{URL: url, Machine: "steady", Source: cat})
	appendExchange(t, path, "more", "", "steady state")
	other := a.create(t, 1)
	eventually(t, func() error {
		if err := converged(ctx, admin, cat, "steady", other); err != nil {
			return err
		}
		return converged(ctx, admin, cat, "steady", path)
	}, "pushes after a restart")
	if ddl := c.DDL(t, d.name)[migrated:]; len(ddl) != 0 {
		t.Errorf("steady state ran DDL:\n%s", strings.Join(ddl, "\n"))
	}
}

// TestShareMeta: --fleet-share meta pushes listing fields and usage, no
// text and no lines.
func TestShareMeta(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	url := d.role(t, "meta")
	_, path, cat := oneDir(t, 3)
	p := startPusher(t, Options{URL: url, Machine: "meta", Source: cat, Share: ShareMeta})
	admin := d.admin(t)
	awaitStatus(t, p, "the push", func(s Status) bool { return s.State == StateCurrent && s.Pushed.Sessions != 0 })
	for _, want := range []struct {
		table string
		n     int
	}{{"sessions", 1}, {"usage", 3}, {"entries", 0}, {"lines", 0}} {
		if n := count(t, admin, `SELECT count(*) FROM fleet.`+want.table+` WHERE path = $1`, path); n != want.n {
			t.Errorf("%s: %d rows, want %d", want.table, n, want.n)
		}
	}
}

// TestStalledDatabase: a push the database does not answer (a lock held
// elsewhere) fails at the timeout instead of waiting for ever, the status
// says so, and the push converges once the database answers again.
func TestStalledDatabase(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	url := d.role(t, "stall")
	_, path, cat := oneDir(t, 1)
	ctx := context.Background()
	migrateAs(t, url)
	admin := d.admin(t)
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE fleet.sessions IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	p := startPusher(t, Options{URL: url, Machine: "stall", Source: cat, Timeout: 200 * time.Millisecond})
	awaitStatus(t, p, "the timeout", func(s Status) bool {
		return s.State == StateFailing && strings.Contains(s.Error, "did not answer in time")
	})
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() error { return converged(ctx, admin, cat, "stall", path) }, "the push after the lock")
}

// TestMachineOnOlderSchema: a machine's role on a database at schema 2,
// which it may not migrate, pushes as the piwebs of schema 2 do (the
// server makes the tsvectors; decision 0046), and says why in its log.
func TestMachineOnOlderSchema(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	ctx := context.Background()
	owner := connectAs(t, d.role(t, "owner"))
	tx, err := owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{`SET LOCAL ROLE ` + OwnerRole, migrations[0].sql, migrations[1].sql, grantsTo(OwnerRole), grantsTo(MachineRole),
		`INSERT INTO fleet.meta (schema_version, min_writer, upgrade_to) VALUES (2, 1, 'piweb 2')`} {
		if _, err := tx.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	_, path, cat := oneDir(t, 2)
	p := startPusher(t, Options{URL: d.machineRole(t, "m"), Machine: "m", Source: cat})
	admin := d.admin(t)
	eventually(t, func() error { return converged(ctx, admin, cat, "m", path) }, "the push to schema 2")
	if s := p.Status(); s.State != StateCurrent || p.lexes.Load() {
		t.Errorf("status %+v, sending tsvectors %v; want current, sending none", s, p.lexes.Load())
	}
}
