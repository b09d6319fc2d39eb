package fleet

import (
	"context"
	"fmt"
	"testing"

	"piweb/internal/pgtest"
)

// TestMigrateTogether: a piweb that found no schema and waits for the
// lock while another migrates sees that migration once it has the lock,
// instead of creating the schema again ("relation meta already exists",
// a failed first push for every machine but one started together).
func TestMigrateTogether(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	url := d.role(t, "together")
	ctx := context.Background()
	first := connectAs(t, url)
	tx, err := first.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey); err != nil {
		t.Fatal(err)
	}
	second := connectAs(t, url)
	done := make(chan error, 1)
	go func() { done <- Migrate(ctx, second, "piweb second") }()
	// The second waits for the lock, having found no schema.
	admin := d.admin(t)
	eventually(t, func() error {
		if n := count(t, admin, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`); n != 1 {
			return fmt.Errorf("%d waiting", n)
		}
		return nil
	}, "the second piweb to wait for the lock")
	if _, err := asOwner(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, migrations[0].sql); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO fleet.meta (schema_version, min_writer, upgrade_to) VALUES (1, 1, 'piweb first')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("the second piweb's migration: %v", err)
	}
}
