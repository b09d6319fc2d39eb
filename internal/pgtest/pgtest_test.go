package pgtest

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestFreshDatabases checks that each test's database is its own, that
// roles other than the superuser need their password, and that DDL is
// logged under its database's name.
func TestFreshDatabases(t *testing.T) {
	c := Shared(t)
	a, b := c.NewDB(t), c.NewDB(t)
	if a == b {
		t.Fatalf("two tests share database %s", a)
	}
	c.Exec(t, a, "CREATE TABLE only_in_a (x int)")
	c.Exec(t, "postgres", "CREATE ROLE pgtest_user LOGIN PASSWORD 'right'")
	t.Cleanup(func() { c.Exec(t, "postgres", "DROP ROLE pgtest_user") })
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URL(b, "pgtest_user", "right"))
	if err != nil {
		t.Fatalf("connect with the right password: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n); err != nil || n != 0 {
		t.Errorf("database %s sees %d tables only_in_a (%v), want 0", b, n, err)
	}
	conn.Close(ctx)
	if _, err := pgx.Connect(ctx, c.URL(b, "pgtest_user", "wrong")); err == nil || !strings.Contains(err.Error(), "password authentication failed") {
		t.Errorf("wrong password: %v, want password authentication failed", err)
	}
	ddl := c.DDL(t, a)
	if len(ddl) != 1 || !strings.Contains(ddl[0], "CREATE TABLE only_in_a") {
		t.Errorf("DDL of %s = %q, want the CREATE TABLE", a, ddl)
	}
}

// TestCrashAndRestart stops the server as a crash does and starts it
// again: committed rows survive (recovery), as the fleet's tests need.
func TestCrashAndRestart(t *testing.T) {
	c := NewCluster(t)
	db := c.NewDB(t)
	c.Exec(t, db, "CREATE TABLE kept (x int); INSERT INTO kept VALUES (1)")
	if err := c.Stop("immediate"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if conn, err := pgx.Connect(ctx, c.URL(db, Superuser, "")); err == nil {
		conn.Close(ctx)
		t.Fatal("connected to a stopped server")
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, c.URL(db, Superuser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM kept").Scan(&n); err != nil || n != 1 {
		t.Errorf("after the crash: %d rows (%v), want 1", n, err)
	}
}
